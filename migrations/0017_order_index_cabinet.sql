-- The cabinet's order pages (docs/cabinet.md): the order index gains what the list shows, searches
-- and sums. Written at creation and on every status change from the OrderObject, like the rest of
-- the row. Orders indexed before this migration keep NULLs here until their next status change.
ALTER TABLE orders ADD COLUMN rate_type TEXT;
ALTER TABLE orders ADD COLUMN amount_from TEXT;          -- received once known, else expected
ALTER TABLE orders ADD COLUMN amount_to TEXT;            -- actual once known, else expected
ALTER TABLE orders ADD COLUMN deposit_txid TEXT;
ALTER TABLE orders ADD COLUMN payout_txid TEXT;
ALTER TABLE orders ADD COLUMN refund_txid TEXT;
ALTER TABLE orders ADD COLUMN markup_bps INTEGER;
-- Earnings (docs/earnings.md), fixed when the order completes so history never changes.
ALTER TABLE orders ADD COLUMN completed_at TEXT;
ALTER TABLE orders ADD COLUMN markup_amount TEXT;        -- in coin_from
ALTER TABLE orders ADD COLUMN usd_price_from TEXT;       -- coin_from's USD price at completion
ALTER TABLE orders ADD COLUMN markup_usd TEXT;
ALTER TABLE orders ADD COLUMN volume_usd TEXT;           -- amount_from in USD at completion

-- Filters that keep keyset paging on an index: a status, a pair; each within the Live / Test view
-- (the status one also counts a partner's open test orders, so 0015's shorter index goes).
CREATE INDEX orders_partner_status_created ON orders (partner_id, livemode, status, created_at DESC, id DESC);
CREATE INDEX orders_partner_pair_created ON orders (partner_id, livemode, coin_from, coin_to, created_at DESC, id DESC);
DROP INDEX IF EXISTS orders_partner_mode_status;
-- Search: a deposit address (any network), a deposit / payout / refund txid.
CREATE INDEX orders_deposit_address ON orders (deposit_address);
CREATE INDEX orders_deposit_txid ON orders (deposit_txid) WHERE deposit_txid IS NOT NULL;
CREATE INDEX orders_payout_txid ON orders (payout_txid) WHERE payout_txid IS NOT NULL;
CREATE INDEX orders_refund_txid ON orders (refund_txid) WHERE refund_txid IS NOT NULL;
-- Overview and earnings: completed orders by completion time.
CREATE INDEX orders_partner_completed ON orders (partner_id, livemode, completed_at) WHERE completed_at IS NOT NULL;
-- The deliveries of one order (the order detail).
CREATE INDEX IF NOT EXISTS webhook_deliveries_order ON webhook_deliveries (order_id, sequence);
