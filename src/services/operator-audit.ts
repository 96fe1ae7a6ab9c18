// One operator_audit row per operator decision that has no batch of its own to join (partner
// creation, keys, order decisions): who (the Access e-mail, `token…` or `break_glass…`), what,
// and the request id. docs/operators.md, "Audit".
import { auditStatement } from "../storage/operator-audit";

export interface OperatorActor {
  operator: string;
  requestId: string;
}

export async function auditOperatorAction(
  db: D1Database,
  actor: OperatorActor,
  action: string,
  entity: { type: string; id: string },
  before: unknown,
  after: unknown,
): Promise<void> {
  await auditStatement(db, {
    at: new Date().toISOString(),
    operator: actor.operator,
    action,
    entityType: entity.type,
    entityId: entity.id,
    before,
    after,
    requestId: actor.requestId,
  }).run();
}
