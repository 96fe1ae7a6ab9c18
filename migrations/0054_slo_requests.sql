-- Requests per UTC day, route and latency bucket (docs/operators.md, "Service levels"): what
-- GET /admin/v1/slo and the /status page compute availability and percentiles from. Each isolate
-- adds its counts in batches (src/services/slo.ts); a day has a few hundred rows at most.
CREATE TABLE slo_requests (
  day TEXT NOT NULL,
  route TEXT NOT NULL,
  bucket INTEGER NOT NULL,
  requests INTEGER NOT NULL,
  server_errors INTEGER NOT NULL,
  PRIMARY KEY (day, route, bucket)
) WITHOUT ROWID;
