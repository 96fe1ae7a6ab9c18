-- The slow sweep after the watch (src/services/sweep.ts, sweepAfterWatch) walks live and test
-- orders in lanes of their own, so a partner's test loop never pushes a live order's read back:
-- the index gains the mode between the status and the check time.
DROP INDEX IF EXISTS orders_status_after_watch;
CREATE INDEX orders_status_after_watch ON orders (status, livemode, after_watch_checked_at, expires_at);
