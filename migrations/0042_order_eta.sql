-- How long a swap takes (docs/orders.md, "How long it takes"): each order's index row keeps when
-- its deposit was first seen (completed_at already says when its payout was sent), and the cron sums
-- the completed live orders of each network pair into pair_eta, which quotes read from isolate
-- memory. Orders projected before this have no deposit_seen_at and are not counted.
ALTER TABLE orders ADD COLUMN deposit_seen_at TEXT;
CREATE INDEX orders_live_completed ON orders (completed_at) WHERE livemode = 1 AND status = 'completed';
CREATE TABLE pair_eta (
  network_from TEXT NOT NULL,
  network_to TEXT NOT NULL,
  orders INTEGER NOT NULL,
  p50_seconds INTEGER NOT NULL,
  p90_seconds INTEGER NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (network_from, network_to)
);
