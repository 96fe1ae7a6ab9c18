-- API key scopes (issue 27, docs/auth-and-limits.md "Key scopes"): space-separated, from
-- read, orders:write, orders:act, webhooks:write. Every existing key keeps what it could do,
-- except orders:act (refund / continue / payout of a user's held funds): a partner grants that
-- by creating a key with it (cabinet, `POST /admin/v1/partners/{id}/keys` with "scopes", or the
-- CLI's --scopes). The default is DEFAULT_SCOPES in src/domain/key-scopes.ts.
ALTER TABLE api_keys ADD COLUMN scopes TEXT NOT NULL DEFAULT 'read orders:write webhooks:write';
