-- Ledger's status webhook of a Ledger partner (docs/ledger.md, "Status webhook"): the base URL of
-- Ledger's swap backend, the x-api-key Ledger issued for it (a secret, never answered back) and
-- the provider id Ledger knows the partner by.
CREATE TABLE ledger_webhooks (
  partner_id TEXT PRIMARY KEY REFERENCES partners (id),
  url TEXT NOT NULL,
  api_key TEXT NOT NULL,
  provider_id TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
