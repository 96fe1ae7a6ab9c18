-- What opens an order without a key (src/domain/order-link.ts), on the order index, so list rows
-- and the cabinet's CSV carry the order's keyless links. Written by the order's projection; NULL
-- for orders created before tokens, which open by their UUID alone.
ALTER TABLE orders ADD COLUMN track_token TEXT;
