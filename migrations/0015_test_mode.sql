-- Test mode (docs/test-mode.md): each order's mode, so a key only ever lists orders of its own mode.
-- Existing orders are live.
ALTER TABLE orders ADD COLUMN livemode INTEGER NOT NULL DEFAULT 1 CHECK (livemode IN (0, 1));
CREATE INDEX orders_partner_mode_created ON orders (partner_id, livemode, created_at DESC, id DESC);
-- Counting a partner's open test orders (the bound on test orders) reads this index only.
CREATE INDEX orders_partner_mode_status ON orders (partner_id, livemode, status);
