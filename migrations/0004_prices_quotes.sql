-- Market prices (USD per coin, decimal strings) refreshed by the cron trigger or set by the operator.
CREATE TABLE prices (
  coin TEXT PRIMARY KEY,
  usd TEXT NOT NULL,
  source TEXT NOT NULL,
  updated_at TEXT NOT NULL                 -- ISO 8601 UTC
);

-- Fixed-rate quotes, so an order can lock exactly the quoted rate with quote_id.
CREATE TABLE quotes (
  id TEXT PRIMARY KEY,                     -- UUID, the quote_id
  partner_id TEXT,                         -- NULL for an anonymous (public-pricing) quote
  coin_from TEXT NOT NULL,
  network_from TEXT NOT NULL,
  coin_to TEXT NOT NULL,
  network_to TEXT NOT NULL,
  amount_from TEXT NOT NULL,
  amount_to TEXT NOT NULL,
  rate TEXT NOT NULL,
  rate_type TEXT NOT NULL CHECK (rate_type IN ('fixed')),
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX quotes_expires ON quotes (expires_at);
