-- App keys (docs/auth-and-limits.md, "App keys"): a key meant to live inside an app, public by
-- design. `kind` is 'server' (every key made before) or 'app'; an app key may quote, create orders
-- and read the orders it created (src/domain/key-scopes.ts, APP_KEY_OPERATIONS), nothing else.
ALTER TABLE api_keys ADD COLUMN kind TEXT NOT NULL DEFAULT 'server';
