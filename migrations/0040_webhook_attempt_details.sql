-- The event browser (issue 31; docs/webhooks.md, "Delivery log"): each attempt keeps the headers we
-- sent (JSON; the signature cut to its first 8 characters, never the secret) and the first 2 KB of
-- the receiver's answer, with whether it was longer. Attempts made before this have neither (NULL).
ALTER TABLE webhook_attempts ADD COLUMN request_headers TEXT;
ALTER TABLE webhook_attempts ADD COLUMN response_body TEXT;
ALTER TABLE webhook_attempts ADD COLUMN response_truncated INTEGER NOT NULL DEFAULT 0;
