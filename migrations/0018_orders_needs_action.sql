-- Whether the order waits for a decision on money it holds (its `actions` is not null): projected
-- from the OrderObject with its status, for the operator's review queue
-- (GET /admin/v1/orders?needs_action=true, oldest first). The partial index holds only those rows.
ALTER TABLE orders ADD COLUMN needs_action INTEGER NOT NULL DEFAULT 0;
-- Every failed order holds money waiting for a decision (docs/lifecycle.md, "Decisions on held funds").
UPDATE orders SET needs_action = 1 WHERE status = 'failed';
CREATE INDEX orders_needs_action ON orders (created_at, id) WHERE needs_action = 1;
