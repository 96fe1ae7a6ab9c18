-- Self-serve webhooks and partner settings (issue 17; docs/webhooks.md, docs/cabinet.md).

-- One webhook endpoint per partner and mode (live today; test keys get their own). Replaces
-- partners.webhook_url / webhook_secret. During a secret rotation with overlap, previous_secret
-- keeps signing (a second `v1=`) until previous_secret_until.
CREATE TABLE webhook_endpoints (
  partner_id TEXT NOT NULL REFERENCES partners (id),
  mode TEXT NOT NULL CHECK (mode IN ('live', 'test')),
  url TEXT,
  enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  secret TEXT,                               -- stored as issued: the service signs with it
  previous_secret TEXT,
  previous_secret_until TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (partner_id, mode)
);
INSERT INTO webhook_endpoints (partner_id, mode, url, enabled, secret, created_at, updated_at)
  SELECT id, 'live', webhook_url, 1, webhook_secret, updated_at, updated_at FROM partners
   WHERE webhook_url IS NOT NULL OR webhook_secret IS NOT NULL;
ALTER TABLE partners DROP COLUMN webhook_url;
ALTER TABLE partners DROP COLUMN webhook_secret;

-- Settings: the operator caps the markup a partner admin may set; a contact e-mail for the partner.
ALTER TABLE partners ADD COLUMN max_markup_bps INTEGER NOT NULL DEFAULT 200 CHECK (max_markup_bps >= 0);
ALTER TABLE partners ADD COLUMN contact_email TEXT;

-- The delivery log gains the mode and test events (`ping`, no order): rebuilt, since SQLite
-- cannot drop a NOT NULL in place.
CREATE TABLE webhook_deliveries_v2 (
  event_id TEXT PRIMARY KEY,                 -- evt_…
  partner_id TEXT NOT NULL,
  mode TEXT NOT NULL DEFAULT 'live' CHECK (mode IN ('live', 'test')),
  order_id TEXT,                             -- NULL for a ping
  sequence INTEGER NOT NULL,                 -- per-order, increasing (0 for a ping)
  type TEXT NOT NULL,
  payload TEXT NOT NULL,                     -- the exact body delivered (and signed)
  status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'skipped')),
  attempts INTEGER NOT NULL DEFAULT 0,
  last_status_code INTEGER,
  last_error TEXT,
  window_start TEXT NOT NULL,
  next_retry_at TEXT,
  created_at TEXT NOT NULL,
  delivered_at TEXT
);
INSERT INTO webhook_deliveries_v2
  (event_id, partner_id, mode, order_id, sequence, type, payload, status, attempts, last_status_code,
   last_error, window_start, next_retry_at, created_at, delivered_at)
  SELECT event_id, partner_id, 'live', order_id, sequence, type, payload, status, attempts, last_status_code,
         last_error, window_start, next_retry_at, created_at, delivered_at
    FROM webhook_deliveries;
DROP TABLE webhook_deliveries;
ALTER TABLE webhook_deliveries_v2 RENAME TO webhook_deliveries;
CREATE INDEX webhook_deliveries_partner ON webhook_deliveries (partner_id, mode, created_at DESC, event_id DESC);
CREATE INDEX webhook_deliveries_order ON webhook_deliveries (partner_id, mode, order_id, created_at DESC, event_id DESC);

-- Every HTTP attempt of a delivery: when, what came back (status or error) and how long it took.
CREATE TABLE webhook_attempts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id TEXT NOT NULL,
  attempted_at TEXT NOT NULL,
  trigger TEXT NOT NULL CHECK (trigger IN ('automatic', 'resend', 'test')),
  status_code INTEGER,
  error TEXT,
  duration_ms INTEGER NOT NULL
);
CREATE INDEX webhook_attempts_event ON webhook_attempts (event_id, id);
