-- Operator audit log: one row per change an operator makes through /admin/v1 (catalog edits today).
-- `operator` names who acted: the Cloudflare Access e-mail, or "admin-token" for the shared token.
-- before/after are JSON snapshots of the changed row (NULL before a create), so a change can be
-- read, and undone by hand, without the request that made it.
CREATE TABLE operator_audit (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at TEXT NOT NULL,
  operator TEXT NOT NULL,
  action TEXT NOT NULL,                      -- e.g. currency.create, currency.update
  entity_type TEXT NOT NULL,                 -- e.g. currency
  entity_id TEXT NOT NULL,
  before_json TEXT,
  after_json TEXT NOT NULL,
  request_id TEXT NOT NULL
);
CREATE INDEX operator_audit_entity ON operator_audit (entity_type, entity_id, id);
CREATE INDEX operator_audit_at ON operator_audit (at, id);
