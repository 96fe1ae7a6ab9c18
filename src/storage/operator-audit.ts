/** The operator audit log (migrations/0012_operator_audit.sql): who changed what, before and after. */
export interface AuditEntry {
  at: string;
  operator: string;
  action: string;
  entityType: string;
  entityId: string;
  before: unknown;
  after: unknown;
  requestId: string;
}

export interface AuditRow {
  id: number;
  at: string;
  operator: string;
  action: string;
  entity_type: string;
  entity_id: string;
  before_json: string | null;
  after_json: string;
  request_id: string;
}

/** The audit INSERT, to run in the same D1 batch as the change it records (both or neither). */
export function auditStatement(db: D1Database, e: AuditEntry): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO operator_audit (at, operator, action, entity_type, entity_id, before_json, after_json, request_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(
      e.at,
      e.operator,
      e.action,
      e.entityType,
      e.entityId,
      e.before === null ? null : JSON.stringify(e.before),
      JSON.stringify(e.after),
      e.requestId,
    );
}

/** Newest first; optionally one entity's history. */
export async function listAudit(
  db: D1Database,
  filter: { entityType?: string | undefined; entityId?: string | undefined; limit: number },
): Promise<AuditRow[]> {
  const { results } = await db
    .prepare(
      `SELECT id, at, operator, action, entity_type, entity_id, before_json, after_json, request_id
         FROM operator_audit
        WHERE (?1 IS NULL OR entity_type = ?1) AND (?2 IS NULL OR entity_id = ?2)
        ORDER BY id DESC LIMIT ?3`,
    )
    .bind(filter.entityType ?? null, filter.entityId ?? null, filter.limit)
    .all<AuditRow>();
  return results;
}
