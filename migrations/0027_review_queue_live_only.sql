-- The operator's review queue holds live orders only: a failed test order waits for the test
-- key's own decision, and a test key must not bury live held orders (docs/test-mode.md).
DROP INDEX IF EXISTS orders_needs_action;
CREATE INDEX orders_needs_action ON orders (created_at, id) WHERE needs_action = 1 AND livemode = 1;
