-- The order's public view on its index row (docs/orders.md, "Listing orders"), so GET
-- /partner/orders rows and the cabinet's CSV carry amounts, addresses, txids and each side's
-- token contract without one read per order. Written by the order's projection; NULL on rows
-- projected before, until their order next changes.
ALTER TABLE orders ADD COLUMN status_reason TEXT;
ALTER TABLE orders ADD COLUMN amount_from_expected TEXT;
ALTER TABLE orders ADD COLUMN amount_to_expected TEXT;
ALTER TABLE orders ADD COLUMN amount_from_received TEXT;
ALTER TABLE orders ADD COLUMN amount_to_actual TEXT;
ALTER TABLE orders ADD COLUMN rate_quoted TEXT;
ALTER TABLE orders ADD COLUMN recipient_address TEXT;
ALTER TABLE orders ADD COLUMN recipient_address_tag TEXT;
ALTER TABLE orders ADD COLUMN refund_address TEXT;
ALTER TABLE orders ADD COLUMN refund_address_tag TEXT;
ALTER TABLE orders ADD COLUMN contract_from TEXT;
ALTER TABLE orders ADD COLUMN contract_to TEXT;
