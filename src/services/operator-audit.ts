// One operator_audit row per operator decision that has no batch of its own to join (partner
// creation, keys, order decisions): who (the Access e-mail, `token…` or `break_glass…`), what,
// and the request id. docs/operators.md, "Audit".
import { auditStatement } from "../storage/operator-audit";

export interface OperatorActor {
  operator: string;
  requestId: string;
}

/** What an audit row records of a decision: the action, on what, the state before and after. */
export interface OperatorDecision {
  action: string;
  entity: { type: string; id: string };
  before: unknown;
  after: unknown;
}

/** The audit row's INSERT, for a change written to D1: run it in the change's batch. */
export function operatorAuditStatement(
  db: D1Database,
  actor: OperatorActor,
  d: OperatorDecision,
): D1PreparedStatement {
  return auditStatement(db, {
    at: new Date().toISOString(),
    operator: actor.operator,
    action: d.action,
    entityType: d.entity.type,
    entityId: d.entity.id,
    before: d.before,
    after: d.after,
    requestId: actor.requestId,
  });
}

/** A D1 change and its audit row in one batch: both land or neither. */
export async function auditedWrite(
  db: D1Database,
  actor: OperatorActor,
  d: OperatorDecision,
  change: D1PreparedStatement,
): Promise<void> {
  await db.batch([change, operatorAuditStatement(db, actor, d)]);
}

/** The row of a change that is not a D1 write (an order object's decision), once it is made. */
export async function auditOperatorAction(
  db: D1Database,
  actor: OperatorActor,
  d: OperatorDecision,
): Promise<void> {
  await operatorAuditStatement(db, actor, d).run();
}
