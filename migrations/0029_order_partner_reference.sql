-- A partner's own reference on its orders (docs/orders.md, "Your own reference"): the order index
-- carries it so GET /partner/orders?partner_order_id= finds the order; unique per partner and mode
-- by construction (the order's id is derived from it), so the index need not enforce it.
ALTER TABLE orders ADD COLUMN partner_order_id TEXT;
CREATE INDEX orders_partner_reference ON orders (partner_id, livemode, partner_order_id) WHERE partner_order_id IS NOT NULL;
