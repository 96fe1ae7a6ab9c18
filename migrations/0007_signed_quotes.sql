-- Fixed quotes are no longer stored: quote_id is self-contained and HMAC-signed (src/domain/quote-token.ts);
-- an order stores the terms of the quote it locked.
DROP TABLE quotes;

-- Keys the service signs its own tokens with, generated on first use (never supplied by anyone).
-- Deleting a row rotates that key: tokens signed with the old one stop verifying once isolates
-- have dropped their cached copy.
CREATE TABLE signing_keys (
  purpose TEXT PRIMARY KEY,                -- 'quote'
  secret TEXT NOT NULL,                    -- base64url, 32 random bytes
  created_at TEXT NOT NULL
);
