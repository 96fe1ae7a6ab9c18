-- Webhook history is kept WEBHOOK_RETENTION_DAYS (docs/webhooks.md, "Retention"): the purge walks
-- these indexes from the oldest row, so it costs nothing when there is nothing to delete.
CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at);
CREATE INDEX webhook_attempts_time ON webhook_attempts (attempted_at);
