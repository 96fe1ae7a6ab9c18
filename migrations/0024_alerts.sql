-- Operator alerts (docs/lifecycle.md, "Alerts"): one row per problem of an order, per kind, from
-- when it opened until it cleared, projected from the order object (src/objects/order-alerts.ts).
-- GET /admin/v1/alerts lists open ones first.
CREATE TABLE alerts (
  order_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  opened_at TEXT NOT NULL,
  message TEXT NOT NULL,
  data TEXT NOT NULL,
  last_at TEXT NOT NULL,
  reminders INTEGER NOT NULL DEFAULT 0,
  cleared_at TEXT,
  open INTEGER NOT NULL,
  PRIMARY KEY (order_id, kind, opened_at)
);
CREATE INDEX alerts_listing ON alerts (open, opened_at);
