import type { KeyKind } from "../domain/key-scopes";
import { TtlCache } from "../lib/ttl-cache";
import type { D1Reads } from "./session";

export interface PartnerRow {
  id: string;
  name: string;
  is_active: number;
  markup_bps: number;
  rate_limit_per_minute: number;
  /** The highest markup a partner admin may set themselves (the operator's cap). */
  max_markup_bps: number;
  contact_email: string | null;
  /** The live webhook endpoint's URL (webhook_endpoints). */
  webhook_url: string | null;
  /** 1 when a webhook signing secret exists (the secret itself is never read back out). */
  has_webhook_secret: number;
  created_at: string;
  updated_at: string;
}

export interface ApiKeyRow {
  key_id: string;
  partner_id: string;
  secret_hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** Self-serve fields (migrations/0010_cabinet.sql). */
  name: string;
  mode: "live" | "test";
  created_by: string;
  /** Set when the key was rolled: it keeps working until then. */
  expires_at: string | null;
  /** JSON array of CIDRs; null = any address. */
  ip_allowlist: string | null;
  /** Space-separated key scopes (src/domain/key-scopes.ts; migrations/0026_key_scopes.sql). */
  scopes: string;
  /** `app`: a public key that lives inside an app (migrations/0048_app_keys.sql). */
  kind: KeyKind;
}

export const KEY_COLUMNS =
  "key_id, partner_id, secret_hash, created_at, last_used_at, revoked_at, name, mode, created_by, expires_at, ip_allowlist, scopes, kind";

export interface KeyWithPartner {
  key: ApiKeyRow;
  partner: PartnerRow;
}

const LIVE_ENDPOINT = "FROM webhook_endpoints w WHERE w.partner_id = partners.id AND w.mode = 'live'";
const PARTNER_COLUMNS = `id, name, is_active, markup_bps, max_markup_bps, contact_email, rate_limit_per_minute,
  (SELECT w.url ${LIVE_ENDPOINT}) AS webhook_url,
  EXISTS (SELECT 1 ${LIVE_ENDPOINT} AND w.secret IS NOT NULL) AS has_webhook_secret, created_at, updated_at`;

// Key lookups are cached for at most 30 s: a revocation or deactivation made through another
// isolate takes effect within that time (this isolate's own admin writes clear it at once).
export const KEY_CACHE_TTL_MS = 30_000;
const keyCache = new TtlCache<KeyWithPartner | null>(KEY_CACHE_TTL_MS, 10_000);

export function invalidateKeyCache(): void {
  keyCache.clear();
}

export function findKey(db: D1Database, keyId: string): Promise<KeyWithPartner | null> {
  return keyCache.get(keyId, async () => {
    const row = await db
      .prepare(
        `SELECT k.key_id, k.partner_id, k.secret_hash, k.created_at, k.last_used_at, k.revoked_at,
                k.name, k.mode, k.created_by, k.expires_at, k.ip_allowlist, k.scopes, k.kind, p.id, p.name, p.is_active, p.markup_bps, p.max_markup_bps, p.contact_email, p.rate_limit_per_minute, p.created_at AS p_created_at,
                p.updated_at AS p_updated_at
           FROM api_keys k JOIN partners p ON p.id = k.partner_id WHERE k.key_id = ?`,
      )
      .bind(keyId)
      .first<ApiKeyRow & PartnerRow & { p_created_at: string; p_updated_at: string }>();
    if (!row) return null;
    return {
      key: {
        key_id: row.key_id,
        partner_id: row.partner_id,
        secret_hash: row.secret_hash,
        created_at: row.created_at,
        last_used_at: row.last_used_at,
        revoked_at: row.revoked_at,
        name: row.name,
        mode: row.mode,
        created_by: row.created_by,
        expires_at: row.expires_at,
        ip_allowlist: row.ip_allowlist,
        scopes: row.scopes,
        kind: row.kind,
      },
      partner: {
        id: row.id,
        name: row.name,
        is_active: row.is_active,
        markup_bps: row.markup_bps,
        max_markup_bps: row.max_markup_bps,
        contact_email: row.contact_email,
        rate_limit_per_minute: row.rate_limit_per_minute,
        webhook_url: null,
        has_webhook_secret: 0,
        created_at: row.p_created_at,
        updated_at: row.p_updated_at,
      },
    };
  });
}

// last_used_at is informational; writing it on every request would put a D1 write on the hot path.
const LAST_USED_RESOLUTION_MS = 60_000;
const lastTouched = new Map<string, number>();

/**
 * Writes the key's last_used_at when the one written is older than the resolution; null (no
 * promise, nothing for the request to wait on) when it is recent.
 */
export function touchKey(db: D1Database, keyId: string, now = Date.now()): Promise<unknown> | null {
  const prev = lastTouched.get(keyId) ?? 0;
  if (now - prev < LAST_USED_RESOLUTION_MS) return null;
  if (lastTouched.size >= 10_000) lastTouched.clear(); // at worst one extra write per key
  lastTouched.set(keyId, now);
  return db
    .prepare("UPDATE api_keys SET last_used_at = ? WHERE key_id = ?")
    .bind(new Date(now).toISOString(), keyId)
    .run();
}

/** The partner's INSERT, to run in one D1 batch with its audit row. */
export function insertPartnerStatement(db: D1Database, p: PartnerRow): D1PreparedStatement {
  return db
    .prepare(
      "INSERT INTO partners (id, name, is_active, markup_bps, max_markup_bps, contact_email, rate_limit_per_minute, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(
      p.id,
      p.name,
      p.is_active,
      p.markup_bps,
      p.max_markup_bps,
      p.contact_email,
      p.rate_limit_per_minute,
      p.created_at,
      p.updated_at,
    );
}

export async function getPartner(db: D1Reads, id: string): Promise<PartnerRow | null> {
  return db.prepare(`SELECT ${PARTNER_COLUMNS} FROM partners WHERE id = ?`).bind(id).first<PartnerRow>();
}

export async function listPartners(db: D1Database): Promise<PartnerRow[]> {
  const { results } = await db
    .prepare(`SELECT ${PARTNER_COLUMNS} FROM partners ORDER BY created_at, id`)
    .all<PartnerRow>();
  return results;
}

export type PartnerChanges = Partial<
  Pick<
    PartnerRow,
    "name" | "is_active" | "markup_bps" | "max_markup_bps" | "contact_email" | "rate_limit_per_minute"
  >
>;

export async function updatePartner(
  db: D1Database,
  id: string,
  changes: PartnerChanges,
  now: string,
): Promise<PartnerRow | null> {
  const entries = Object.entries(changes).filter(([, v]) => v !== undefined);
  const sets = [...entries.map(([k]) => `${k} = ?`), "updated_at = ?"].join(", ");
  const changed = await db
    .prepare(`UPDATE partners SET ${sets} WHERE id = ? RETURNING id`)
    .bind(...entries.map(([, v]) => v), now, id)
    .first();
  invalidateKeyCache();
  return changed ? getPartner(db, id) : null;
}

/** The key's INSERT, to run in one D1 batch with its audit rows. */
export function insertKeyStatement(db: D1Database, k: ApiKeyRow): D1PreparedStatement {
  return db
    .prepare(`INSERT INTO api_keys (${KEY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    .bind(
      k.key_id,
      k.partner_id,
      k.secret_hash,
      k.created_at,
      k.last_used_at,
      k.revoked_at,
      k.name,
      k.mode,
      k.created_by,
      k.expires_at,
      k.ip_allowlist,
      k.scopes,
      k.kind,
    );
}

export async function listKeys(db: D1Database, partnerId: string): Promise<ApiKeyRow[]> {
  const { results } = await db
    .prepare(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE partner_id = ? ORDER BY created_at, key_id`)
    .bind(partnerId)
    .all<ApiKeyRow>();
  return results;
}

/**
 * The key's revocation (revoking twice is harmless), to run in one D1 batch with its audit row;
 * the caller checks the key exists and clears the key cache after.
 */
export function revokeKeyStatement(
  db: D1Database,
  partnerId: string,
  keyId: string,
  now: string,
): D1PreparedStatement {
  return db
    .prepare("UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE partner_id = ? AND key_id = ?")
    .bind(now, partnerId, keyId);
}

/** Revokes a key; true when the key exists for that partner (revoking twice is harmless). */
export async function revokeKey(
  db: D1Database,
  partnerId: string,
  keyId: string,
  now: string,
): Promise<boolean> {
  const { meta } = await revokeKeyStatement(db, partnerId, keyId, now).run();
  invalidateKeyCache();
  return meta.changes > 0;
}
