-- Alert routing (docs/operators.md, "Alert routing"): what of each alert its destination has heard.
-- `route_due_at` (ms) is set when the alert opens, reminds or clears, and cleared once delivered;
-- `routed_reminders` is NULL until the opening is delivered. Alerts from before stay unrouted.
ALTER TABLE alerts ADD COLUMN route_due_at INTEGER;
ALTER TABLE alerts ADD COLUMN routed_reminders INTEGER;
ALTER TABLE alerts ADD COLUMN routed_cleared INTEGER NOT NULL DEFAULT 0;
ALTER TABLE alerts ADD COLUMN route_attempts INTEGER NOT NULL DEFAULT 0;
CREATE INDEX alerts_routing ON alerts (route_due_at) WHERE route_due_at IS NOT NULL;
