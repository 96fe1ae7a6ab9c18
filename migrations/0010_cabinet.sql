-- Partner cabinet (issue 16): team members who sign in with passkeys, their invitations and
-- sessions, the audit log, and the self-serve fields of API keys. See docs/cabinet.md.

-- A cabinet user belongs to exactly one partner. No password column exists, by design.
CREATE TABLE cabinet_users (
  id TEXT PRIMARY KEY,                       -- UUID; also the WebAuthn user handle
  partner_id TEXT NOT NULL REFERENCES partners (id),
  email TEXT NOT NULL,                       -- lower-cased
  role TEXT NOT NULL CHECK (role IN ('admin', 'developer', 'viewer')),
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'deactivated')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (partner_id, email)
);

-- Passkeys (WebAuthn credentials). Only public keys are stored.
CREATE TABLE cabinet_passkeys (
  id TEXT PRIMARY KEY,                       -- credential id, base64url
  user_id TEXT NOT NULL REFERENCES cabinet_users (id),
  public_key TEXT NOT NULL,                  -- COSE public key, base64url
  counter INTEGER NOT NULL DEFAULT 0,
  transports TEXT,                           -- JSON array, as the browser reported
  name TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_used_at TEXT
);
CREATE INDEX cabinet_passkeys_user ON cabinet_passkeys (user_id);

-- One-time invitation links: only the SHA-256 of the token is stored. user_id is set when the
-- invite is for an existing member (lost access): using it replaces that member's passkeys.
CREATE TABLE cabinet_invites (
  id TEXT PRIMARY KEY,                       -- UUID
  partner_id TEXT NOT NULL REFERENCES partners (id),
  email TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('admin', 'developer', 'viewer')),
  user_id TEXT REFERENCES cabinet_users (id),
  token_hash TEXT NOT NULL UNIQUE,
  created_by TEXT NOT NULL,                  -- 'operator' or a cabinet user's email
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,                  -- created_at + 72 h
  used_at TEXT,
  revoked_at TEXT
);
CREATE INDEX cabinet_invites_partner ON cabinet_invites (partner_id, created_at);

-- Server-side sessions: the cookie carries a random token, the table its SHA-256.
CREATE TABLE cabinet_sessions (
  id TEXT PRIMARY KEY,                       -- hex SHA-256 of the cookie token
  user_id TEXT NOT NULL REFERENCES cabinet_users (id),
  csrf_token TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_seen_at TEXT NOT NULL,                -- idle timeout 12 h
  expires_at TEXT NOT NULL,                  -- absolute timeout: created_at + 7 days
  ip TEXT,
  user_agent TEXT
);
CREATE INDEX cabinet_sessions_user ON cabinet_sessions (user_id);

-- Pending WebAuthn challenges (single use, a few minutes).
CREATE TABLE cabinet_challenges (
  id TEXT PRIMARY KEY,
  challenge TEXT NOT NULL,
  purpose TEXT NOT NULL CHECK (purpose IN ('register', 'authenticate', 'add_passkey')),
  subject TEXT,                              -- invite id or user id the challenge is bound to
  expires_at TEXT NOT NULL
);

-- Failed sign-ins, counted per client address and per user in fixed windows.
CREATE TABLE cabinet_signin_failures (
  subject TEXT NOT NULL,                     -- 'ip:<addr>' or 'user:<id>'
  window_start TEXT NOT NULL,
  failures INTEGER NOT NULL,
  PRIMARY KEY (subject, window_start)
);

-- Who did what in a partner's cabinet, newest first by id.
CREATE TABLE cabinet_audit_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  partner_id TEXT NOT NULL,
  actor TEXT NOT NULL,                       -- a user's email, or 'operator'
  action TEXT NOT NULL,                      -- e.g. 'key.created', 'member.invited'
  target TEXT,
  detail TEXT,
  ip TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX cabinet_audit_partner ON cabinet_audit_log (partner_id, id);

-- Self-serve API keys. mode: 'test' keys (ids 'pk_test_…') arrive with test mode; existing keys
-- are live. expires_at is set when a key is rolled (the old key keeps working until then).
-- ip_allowlist: JSON array of CIDRs, NULL = any address.
ALTER TABLE api_keys ADD COLUMN name TEXT NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN mode TEXT NOT NULL DEFAULT 'live' CHECK (mode IN ('live', 'test'));
ALTER TABLE api_keys ADD COLUMN created_by TEXT NOT NULL DEFAULT 'operator';
ALTER TABLE api_keys ADD COLUMN expires_at TEXT;
ALTER TABLE api_keys ADD COLUMN ip_allowlist TEXT;
ALTER TABLE api_keys ADD COLUMN rolled_to TEXT;
