// One operator_audit row per operator decision that has no batch of its own to join (partner
// creation, keys, order decisions): who (the Access e-mail, `token…` or `break_glass…`), what,
// and the request id. docs/operators.md, "Audit".
import { auditStatement } from "../storage/operator-audit";

export interface OperatorActor {
  operator: string;
  requestId: string;
}

/** The audit row's INSERT, for a change written to D1: run it in the change's batch. */
export function operatorAuditStatement(
  db: D1Database,
  actor: OperatorActor,
  action: string,
  entity: { type: string; id: string },
  before: unknown,
  after: unknown,
): D1PreparedStatement {
  return auditStatement(db, {
    at: new Date().toISOString(),
    operator: actor.operator,
    action,
    entityType: entity.type,
    entityId: entity.id,
    before,
    after,
    requestId: actor.requestId,
  });
}

/** A D1 change and its audit row in one batch: both land or neither. */
export async function auditedWrite(
  db: D1Database,
  actor: OperatorActor,
  action: string,
  entity: { type: string; id: string },
  before: unknown,
  after: unknown,
  change: D1PreparedStatement,
): Promise<void> {
  await db.batch([change, operatorAuditStatement(db, actor, action, entity, before, after)]);
}

/** The row of a change that is not a D1 write (an order object's decision), once it is made. */
export async function auditOperatorAction(
  db: D1Database,
  actor: OperatorActor,
  action: string,
  entity: { type: string; id: string },
  before: unknown,
  after: unknown,
): Promise<void> {
  await operatorAuditStatement(db, actor, action, entity, before, after).run();
}
