-- The slow sweep (src/services/sweep.ts, sweepAfterWatch) reads a terminal order's deposit address
-- once a day for AFTER_WATCH_HORIZON_DAYS after its late-deposit watch, the order checked longest
-- ago first: `after_watch_checked_at` is when it last did ('' never; '~' past the horizon, sorted
-- after every timestamp so that the index's walk never meets it again).
ALTER TABLE orders ADD COLUMN after_watch_checked_at TEXT NOT NULL DEFAULT '';
CREATE INDEX orders_status_after_watch ON orders (status, after_watch_checked_at, expires_at);
