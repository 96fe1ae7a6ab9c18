-- The published service status (docs/operators.md, "Service status and incidents"): one row, written
-- by the cron each minute (src/services/service-status.ts) with the signals it judged and the status
-- they gave. Requests read it through an isolate cache, never the signals themselves.
CREATE TABLE service_status (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  status_json TEXT NOT NULL,
  -- The chain readers' probes, carried from run to run (when each last answered).
  probes_json TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
