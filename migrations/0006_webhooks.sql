-- Signed webhooks: each partner's endpoint and signing secret, and the delivery log.
ALTER TABLE partners ADD COLUMN webhook_url TEXT;
-- The signing secret is stored as issued: the service must sign with it. It is never returned
-- after creation (POST .../webhook-secret shows it once).
ALTER TABLE partners ADD COLUMN webhook_secret TEXT;

CREATE TABLE webhook_deliveries (
  event_id TEXT PRIMARY KEY,                 -- evt_…
  partner_id TEXT NOT NULL,
  order_id TEXT NOT NULL,
  sequence INTEGER NOT NULL,                 -- per-order, increasing
  type TEXT NOT NULL,
  payload TEXT NOT NULL,                     -- the exact body delivered (and signed)
  status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'skipped')),
  attempts INTEGER NOT NULL DEFAULT 0,
  last_status_code INTEGER,
  last_error TEXT,
  window_start TEXT NOT NULL,                -- the 3-day retry window starts here (reset by a manual retry)
  next_retry_at TEXT,
  created_at TEXT NOT NULL,
  delivered_at TEXT
);
CREATE INDEX webhook_deliveries_partner ON webhook_deliveries (partner_id, created_at DESC, event_id);
