-- The order index: a projection of each OrderObject (the object is the source of truth), used for
-- short_id lookup, partner listings and sweeps. Written at creation and on every transition.
CREATE TABLE orders (
  id TEXT PRIMARY KEY,                       -- UUID, also the OrderObject's name
  short_id TEXT NOT NULL UNIQUE,             -- 10 chars Crockford base32, upper case
  partner_id TEXT NOT NULL,
  status TEXT NOT NULL,
  coin_from TEXT NOT NULL,
  network_from TEXT NOT NULL,
  coin_to TEXT NOT NULL,
  network_to TEXT NOT NULL,
  deposit_address TEXT NOT NULL,
  deposit_address_tag TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX orders_partner_created ON orders (partner_id, created_at DESC, id DESC);
CREATE INDEX orders_status_expires ON orders (status, expires_at);
-- A deposit address (with its tag, on memo networks) belongs to one order, ever.
CREATE UNIQUE INDEX orders_deposit_unique ON orders (network_from, deposit_address, COALESCE(deposit_address_tag, ''));

-- Atomic counters: derivation indexes per xpub, memo tags per network.
CREATE TABLE address_counters (
  name TEXT PRIMARY KEY,
  next_value INTEGER NOT NULL
);

-- Operator-loaded deposit addresses for networks without public derivation (SOL).
CREATE TABLE address_pool (
  network TEXT NOT NULL,
  address TEXT NOT NULL,
  order_id TEXT,                             -- NULL while available
  added_at TEXT NOT NULL,
  assigned_at TEXT,
  PRIMARY KEY (network, address)
);
CREATE INDEX address_pool_free ON address_pool (network, order_id);
