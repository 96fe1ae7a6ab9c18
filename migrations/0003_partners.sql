-- Partner accounts and their API keys. Only a SHA-256 of each key secret is stored; the full key is
-- shown once, when it is created.
CREATE TABLE partners (
  id TEXT PRIMARY KEY,                       -- UUID
  name TEXT NOT NULL,
  is_active INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
  markup_bps INTEGER NOT NULL DEFAULT 0 CHECK (markup_bps >= 0),
  rate_limit_per_minute INTEGER NOT NULL CHECK (rate_limit_per_minute > 0),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE api_keys (
  key_id TEXT PRIMARY KEY,                   -- public half of the key, "pk_…"
  partner_id TEXT NOT NULL REFERENCES partners (id),
  secret_hash TEXT NOT NULL,                 -- hex SHA-256 of the secret half
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  revoked_at TEXT
);
CREATE INDEX api_keys_partner ON api_keys (partner_id, created_at);
