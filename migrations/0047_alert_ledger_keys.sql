-- Operator alerts keyed by what they are about (docs/lifecycle.md, "Alerts"): `ledger_key` is the
-- ledger key of the send an alert concerns ('' for the order as a whole), so the alerts of two
-- sends of one order (two extra deposits' refunds) or of one partner's payouts object (two months'
-- statements) are separate rows. SQLite cannot change a primary key: the table is rebuilt. A send's
-- earlier alert takes the key its data names.
CREATE TABLE alerts_with_ledger_keys (
  order_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  ledger_key TEXT NOT NULL DEFAULT '',
  opened_at TEXT NOT NULL,
  message TEXT NOT NULL,
  data TEXT NOT NULL,
  last_at TEXT NOT NULL,
  reminders INTEGER NOT NULL DEFAULT 0,
  cleared_at TEXT,
  open INTEGER NOT NULL,
  PRIMARY KEY (order_id, kind, ledger_key, opened_at)
);
INSERT INTO alerts_with_ledger_keys (order_id, kind, ledger_key, opened_at, message, data, last_at, reminders, cleared_at, open)
  SELECT order_id, kind,
    CASE WHEN kind LIKE '%outcome_unknown' OR kind LIKE '%gateway_config'
      THEN COALESCE(json_extract(data, '$.key'), '') ELSE '' END,
    opened_at, message, data, last_at, reminders, cleared_at, open
  FROM alerts;
DROP TABLE alerts;
ALTER TABLE alerts_with_ledger_keys RENAME TO alerts;
CREATE INDEX alerts_listing ON alerts (open, opened_at);
