// D1 storage of the partner cabinet: members, invites, passkeys, sessions, WebAuthn challenges,
// failed sign-ins and the audit log (migrations/0010_cabinet.sql).
import type { Role } from "../domain/cabinet";

export interface UserRow {
  id: string;
  partner_id: string;
  email: string;
  role: Role;
  status: "active" | "deactivated";
  created_at: string;
  updated_at: string;
}

export interface InviteRow {
  id: string;
  partner_id: string;
  email: string;
  role: Role;
  user_id: string | null;
  token_hash: string;
  created_by: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  revoked_at: string | null;
}

export interface PasskeyRow {
  id: string;
  user_id: string;
  public_key: string;
  counter: number;
  transports: string | null;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

export interface SessionRow {
  id: string;
  user_id: string;
  csrf_token: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
}

/** A session with the member and partner behind it, as every cabinet request needs them. */
export interface SessionContext {
  session: SessionRow;
  user: UserRow;
  partner: { id: string; name: string; is_active: number };
  /** The header switch's Live / Test view this browser chose (a cookie; not stored with the session). */
  mode?: "live" | "test";
}

const USER_COLUMNS = "id, partner_id, email, role, status, created_at, updated_at";

// ---- members ----------------------------------------------------------------------------------

export async function insertUser(db: D1Database, u: UserRow): Promise<void> {
  await db
    .prepare(`INSERT INTO cabinet_users (${USER_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`)
    .bind(u.id, u.partner_id, u.email, u.role, u.status, u.created_at, u.updated_at)
    .run();
}

export function getUser(db: D1Database, partnerId: string, id: string): Promise<UserRow | null> {
  return db
    .prepare(`SELECT ${USER_COLUMNS} FROM cabinet_users WHERE partner_id = ? AND id = ?`)
    .bind(partnerId, id)
    .first<UserRow>();
}

export function findUserByEmail(db: D1Database, partnerId: string, email: string): Promise<UserRow | null> {
  return db
    .prepare(`SELECT ${USER_COLUMNS} FROM cabinet_users WHERE partner_id = ? AND email = ?`)
    .bind(partnerId, email)
    .first<UserRow>();
}

export async function listUsers(db: D1Database, partnerId: string): Promise<UserRow[]> {
  const { results } = await db
    .prepare(`SELECT ${USER_COLUMNS} FROM cabinet_users WHERE partner_id = ? ORDER BY created_at, id`)
    .bind(partnerId)
    .all<UserRow>();
  return results;
}

export async function updateUser(
  db: D1Database,
  partnerId: string,
  id: string,
  changes: Partial<Pick<UserRow, "role" | "status">>,
  now: string,
): Promise<UserRow | null> {
  const entries = Object.entries(changes).filter(([, v]) => v !== undefined);
  const sets = [...entries.map(([k]) => `${k} = ?`), "updated_at = ?"].join(", ");
  return db
    .prepare(`UPDATE cabinet_users SET ${sets} WHERE partner_id = ? AND id = ? RETURNING ${USER_COLUMNS}`)
    .bind(...entries.map(([, v]) => v), now, partnerId, id)
    .first<UserRow>();
}

/**
 * Changes a member's role or deactivates them unless that leaves the partner without an active
 * admin: the check is in the UPDATE's own WHERE, so two admins demoting each other at once cannot
 * both succeed (a read-then-write could). Null when refused or not found.
 */
export async function updateMemberKeepingAnAdmin(
  db: D1Database,
  partnerId: string,
  id: string,
  change: { role: Role } | { status: "deactivated" },
  now: string,
): Promise<UserRow | null> {
  const [column, value] = "role" in change ? ["role", change.role] : ["status", change.status];
  const staysAdmin = "role" in change && change.role === "admin";
  return db
    .prepare(
      `UPDATE cabinet_users SET ${column} = ?, updated_at = ?
        WHERE partner_id = ? AND id = ?
          AND (? OR role <> 'admin' OR status <> 'active' OR EXISTS (
                SELECT 1 FROM cabinet_users o
                 WHERE o.partner_id = cabinet_users.partner_id AND o.id <> cabinet_users.id
                   AND o.role = 'admin' AND o.status = 'active'))
        RETURNING ${USER_COLUMNS}`,
    )
    .bind(value, now, partnerId, id, staysAdmin ? 1 : 0)
    .first<UserRow>();
}

// ---- invites ----------------------------------------------------------------------------------

const INVITE_COLUMNS =
  "id, partner_id, email, role, user_id, token_hash, created_by, created_at, expires_at, used_at, revoked_at";

export async function insertInvite(db: D1Database, i: InviteRow): Promise<void> {
  await db
    .prepare(`INSERT INTO cabinet_invites (${INVITE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    .bind(
      i.id,
      i.partner_id,
      i.email,
      i.role,
      i.user_id,
      i.token_hash,
      i.created_by,
      i.created_at,
      i.expires_at,
      i.used_at,
      i.revoked_at,
    )
    .run();
}

export function findInviteByHash(db: D1Database, tokenHash: string): Promise<InviteRow | null> {
  return db
    .prepare(`SELECT ${INVITE_COLUMNS} FROM cabinet_invites WHERE token_hash = ?`)
    .bind(tokenHash)
    .first<InviteRow>();
}

/** Marks a valid invite used; false when it was used, revoked or expired meanwhile (single use). */
export async function consumeInvite(db: D1Database, id: string, now: string): Promise<boolean> {
  const row = await db
    .prepare(
      "UPDATE cabinet_invites SET used_at = ? WHERE id = ? AND used_at IS NULL AND revoked_at IS NULL AND expires_at > ? RETURNING id",
    )
    .bind(now, id, now)
    .first();
  return row !== null;
}

/** Earlier pending invites for the same address end when a new one is issued. */
export async function revokePendingInvites(
  db: D1Database,
  partnerId: string,
  email: string,
  now: string,
): Promise<void> {
  await db
    .prepare(
      "UPDATE cabinet_invites SET revoked_at = ? WHERE partner_id = ? AND email = ? AND used_at IS NULL AND revoked_at IS NULL",
    )
    .bind(now, partnerId, email)
    .run();
}

export async function listPendingInvites(
  db: D1Database,
  partnerId: string,
  now: string,
): Promise<InviteRow[]> {
  const { results } = await db
    .prepare(
      `SELECT ${INVITE_COLUMNS} FROM cabinet_invites
        WHERE partner_id = ? AND used_at IS NULL AND revoked_at IS NULL AND expires_at > ?
        ORDER BY created_at DESC, id`,
    )
    .bind(partnerId, now)
    .all<InviteRow>();
  return results;
}

export async function revokeInvite(
  db: D1Database,
  partnerId: string,
  id: string,
  now: string,
): Promise<boolean> {
  const row = await db
    .prepare(
      "UPDATE cabinet_invites SET revoked_at = ? WHERE partner_id = ? AND id = ? AND used_at IS NULL AND revoked_at IS NULL RETURNING id",
    )
    .bind(now, partnerId, id)
    .first();
  return row !== null;
}

// ---- passkeys ---------------------------------------------------------------------------------

const PASSKEY_COLUMNS = "id, user_id, public_key, counter, transports, name, created_at, last_used_at";

export function insertPasskeyStatement(db: D1Database, p: PasskeyRow): D1PreparedStatement {
  return db
    .prepare(`INSERT INTO cabinet_passkeys (${PASSKEY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
    .bind(p.id, p.user_id, p.public_key, p.counter, p.transports, p.name, p.created_at, p.last_used_at);
}

export function getPasskey(db: D1Database, id: string): Promise<PasskeyRow | null> {
  return db
    .prepare(`SELECT ${PASSKEY_COLUMNS} FROM cabinet_passkeys WHERE id = ?`)
    .bind(id)
    .first<PasskeyRow>();
}

export async function listPasskeys(db: D1Database, userId: string): Promise<PasskeyRow[]> {
  const { results } = await db
    .prepare(`SELECT ${PASSKEY_COLUMNS} FROM cabinet_passkeys WHERE user_id = ? ORDER BY created_at, id`)
    .bind(userId)
    .all<PasskeyRow>();
  return results;
}

export function deleteUserPasskeysStatement(db: D1Database, userId: string): D1PreparedStatement {
  return db.prepare("DELETE FROM cabinet_passkeys WHERE user_id = ?").bind(userId);
}

/** Removes one passkey unless it is the member's last; false when nothing was removed. */
export async function deletePasskeyUnlessLast(db: D1Database, userId: string, id: string): Promise<boolean> {
  const row = await db
    .prepare(
      `DELETE FROM cabinet_passkeys WHERE user_id = ? AND id = ?
         AND (SELECT COUNT(*) FROM cabinet_passkeys WHERE user_id = ?) > 1 RETURNING id`,
    )
    .bind(userId, id, userId)
    .first();
  return row !== null;
}

export async function recordPasskeyUse(
  db: D1Database,
  id: string,
  counter: number,
  now: string,
): Promise<void> {
  await db
    .prepare("UPDATE cabinet_passkeys SET counter = ?, last_used_at = ? WHERE id = ?")
    .bind(counter, now, id)
    .run();
}

// ---- sessions ---------------------------------------------------------------------------------

export function insertSessionStatement(
  db: D1Database,
  s: SessionRow & { ip: string | null; user_agent: string | null },
): D1PreparedStatement {
  return db
    .prepare(
      "INSERT INTO cabinet_sessions (id, user_id, csrf_token, created_at, last_seen_at, expires_at, ip, user_agent) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(s.id, s.user_id, s.csrf_token, s.created_at, s.last_seen_at, s.expires_at, s.ip, s.user_agent);
}

export async function findSession(db: D1Database, id: string): Promise<SessionContext | null> {
  const row = await db
    .prepare(
      `SELECT s.id AS s_id, s.user_id, s.csrf_token, s.created_at AS s_created_at, s.last_seen_at, s.expires_at,
              u.partner_id, u.email, u.role, u.status, u.created_at AS u_created_at, u.updated_at AS u_updated_at,
              p.name AS partner_name, p.is_active
         FROM cabinet_sessions s JOIN cabinet_users u ON u.id = s.user_id JOIN partners p ON p.id = u.partner_id
        WHERE s.id = ?`,
    )
    .bind(id)
    .first<{
      s_id: string;
      user_id: string;
      csrf_token: string;
      s_created_at: string;
      last_seen_at: string;
      expires_at: string;
      partner_id: string;
      email: string;
      role: Role;
      status: UserRow["status"];
      u_created_at: string;
      u_updated_at: string;
      partner_name: string;
      is_active: number;
    }>();
  if (!row) return null;
  return {
    session: {
      id: row.s_id,
      user_id: row.user_id,
      csrf_token: row.csrf_token,
      created_at: row.s_created_at,
      last_seen_at: row.last_seen_at,
      expires_at: row.expires_at,
    },
    user: {
      id: row.user_id,
      partner_id: row.partner_id,
      email: row.email,
      role: row.role,
      status: row.status,
      created_at: row.u_created_at,
      updated_at: row.u_updated_at,
    },
    partner: { id: row.partner_id, name: row.partner_name, is_active: row.is_active },
  };
}

export async function touchSession(db: D1Database, id: string, now: string): Promise<void> {
  await db.prepare("UPDATE cabinet_sessions SET last_seen_at = ? WHERE id = ?").bind(now, id).run();
}

export async function deleteSession(db: D1Database, id: string): Promise<void> {
  await db.prepare("DELETE FROM cabinet_sessions WHERE id = ?").bind(id).run();
}

export function deleteUserSessionsStatement(db: D1Database, userId: string): D1PreparedStatement {
  return db.prepare("DELETE FROM cabinet_sessions WHERE user_id = ?").bind(userId);
}

/** Ends every session of a member; returns how many there were. */
export async function deleteUserSessions(db: D1Database, userId: string): Promise<number> {
  const r = await deleteUserSessionsStatement(db, userId).run();
  return r.meta.changes ?? 0;
}

// ---- WebAuthn challenges ----------------------------------------------------------------------

export type ChallengePurpose = "register" | "authenticate" | "add_passkey";

export async function insertChallenge(
  db: D1Database,
  c: { id: string; challenge: string; purpose: ChallengePurpose; subject: string | null; expires_at: string },
): Promise<void> {
  await db
    .prepare(
      "INSERT INTO cabinet_challenges (id, challenge, purpose, subject, expires_at) VALUES (?, ?, ?, ?, ?)",
    )
    .bind(c.id, c.challenge, c.purpose, c.subject, c.expires_at)
    .run();
}

/** Takes a challenge out (single use); null when unknown, expired or for another purpose. */
export async function takeChallenge(
  db: D1Database,
  id: string,
  purpose: ChallengePurpose,
  subject: string | null,
  now: string,
): Promise<string | null> {
  const row = await db
    .prepare(
      "DELETE FROM cabinet_challenges WHERE id = ? AND purpose = ? AND subject IS ? AND expires_at > ? RETURNING challenge",
    )
    .bind(id, purpose, subject, now)
    .first<{ challenge: string }>();
  return row?.challenge ?? null;
}

// ---- failed sign-ins --------------------------------------------------------------------------

export async function countFailures(db: D1Database, subjects: string[], windowStart: string) {
  const { results } = await db
    .prepare(
      `SELECT subject, failures FROM cabinet_signin_failures WHERE window_start = ? AND subject IN (${subjects.map(() => "?").join(", ")})`,
    )
    .bind(windowStart, ...subjects)
    .all<{ subject: string; failures: number }>();
  return new Map(results.map((r) => [r.subject, r.failures]));
}

export async function recordFailures(db: D1Database, subjects: string[], windowStart: string): Promise<void> {
  await db.batch(
    subjects.map((s) =>
      db
        .prepare(
          `INSERT INTO cabinet_signin_failures (subject, window_start, failures) VALUES (?, ?, 1)
           ON CONFLICT (subject, window_start) DO UPDATE SET failures = failures + 1`,
        )
        .bind(s, windowStart),
    ),
  );
}

// ---- pruning ----------------------------------------------------------------------------------

/**
 * Deletes up to `limit` rows of each table that can never be used again: challenges and sessions
 * past `expires_at`, failure counts of windows before `windowStart` (the current one). Each delete
 * walks its own index (migration 0025), so a run costs what it removes; the cron repeats it.
 */
export async function purgeExpiredCabinetRows(
  db: D1Database,
  now: string,
  windowStart: string,
  limit: number,
): Promise<number> {
  const results = await db.batch([
    db
      .prepare(
        "DELETE FROM cabinet_challenges WHERE id IN (SELECT id FROM cabinet_challenges WHERE expires_at <= ? ORDER BY expires_at LIMIT ?)",
      )
      .bind(now, limit),
    db
      .prepare(
        "DELETE FROM cabinet_sessions WHERE id IN (SELECT id FROM cabinet_sessions WHERE expires_at <= ? ORDER BY expires_at LIMIT ?)",
      )
      .bind(now, limit),
    db
      .prepare(
        "DELETE FROM cabinet_signin_failures WHERE rowid IN (SELECT rowid FROM cabinet_signin_failures WHERE window_start < ? ORDER BY window_start LIMIT ?)",
      )
      .bind(windowStart, limit),
  ]);
  return results.reduce((n, r) => n + (r.meta.changes ?? 0), 0);
}

// ---- audit log --------------------------------------------------------------------------------

export interface AuditEntry {
  partner_id: string;
  actor: string;
  action: string;
  target: string | null;
  detail: string | null;
  ip: string | null;
  created_at: string;
}

export async function insertAudit(db: D1Database, e: AuditEntry): Promise<void> {
  await db
    .prepare(
      "INSERT INTO cabinet_audit_log (partner_id, actor, action, target, detail, ip, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(e.partner_id, e.actor, e.action, e.target, e.detail, e.ip, e.created_at)
    .run();
}

/** Newest first; `before` is the id of the last entry of the previous page. */
export async function listAudit(
  db: D1Database,
  partnerId: string,
  before: number | null,
  limit: number,
): Promise<(AuditEntry & { id: number })[]> {
  const { results } = await db
    .prepare(
      `SELECT id, partner_id, actor, action, target, detail, ip, created_at FROM cabinet_audit_log
        WHERE partner_id = ? AND id < ? ORDER BY id DESC LIMIT ?`,
    )
    .bind(partnerId, before ?? Number.MAX_SAFE_INTEGER, limit)
    .all<AuditEntry & { id: number }>();
  return results;
}
