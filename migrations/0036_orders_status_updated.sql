-- The cron sweep (src/services/sweep.ts) reads each status by its due time, not by walking every
-- order in it: waiting_deposit and the terminal statuses' late-deposit watch on (status, expires_at)
-- (orders_status_expires, 0005), the other open statuses on (status, updated_at) (this index). A run
-- then costs what is due, not what exists (docs/performance.md, "Scale check").
CREATE INDEX orders_status_updated ON orders (status, updated_at);
