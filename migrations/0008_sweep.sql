-- The cron sweep (src/services/sweep.ts) wakes non-terminal orders whose alarm may have been lost,
-- status by status in id order, continuing each run where the last one stopped, so a long backlog
-- cannot starve any order.
CREATE INDEX orders_status_id ON orders (status, id);
CREATE TABLE sweep_cursors (
  status TEXT PRIMARY KEY,
  after_id TEXT NOT NULL
);
