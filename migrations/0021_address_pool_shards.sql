-- SOL-style operator-loaded pools are handed out by regional pool shards (Durable Objects,
-- src/objects/address-pool-shard.ts): each takes a block of free addresses here in the background
-- and gives them to orders itself. reserved_by names the shard holding an address that no order
-- has yet; order_id is written once an order has it (docs/networks.md, "Address pools").
ALTER TABLE address_pool ADD COLUMN reserved_by TEXT;
ALTER TABLE address_pool ADD COLUMN reserved_at TEXT;
CREATE INDEX address_pool_unreserved ON address_pool (network, reserved_by, order_id);
CREATE INDEX address_pool_reserved_by ON address_pool (reserved_by, order_id);
