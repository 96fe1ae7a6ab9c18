// Self-serve key changes (roll, allowlist); creation, listing and revocation live in partners.ts.
import { invalidateKeyCache } from "./partners";

/** Ends an active key at `expiresAt` (roll); false when the key is unknown, revoked or already ending. */
export async function setKeyExpiry(
  db: D1Database,
  partnerId: string,
  keyId: string,
  expiresAt: string,
  rolledTo: string,
): Promise<boolean> {
  const row = await db
    .prepare(
      `UPDATE api_keys SET expires_at = ?, rolled_to = ?
        WHERE partner_id = ? AND key_id = ? AND revoked_at IS NULL AND expires_at IS NULL RETURNING key_id`,
    )
    .bind(expiresAt, rolledTo, partnerId, keyId)
    .first();
  invalidateKeyCache();
  return row !== null;
}

/** Replaces a key's allowlist (null: any address); false when the key is not the partner's. */
export async function setKeyAllowlist(
  db: D1Database,
  partnerId: string,
  keyId: string,
  cidrs: string[] | null,
): Promise<boolean> {
  const row = await db
    .prepare("UPDATE api_keys SET ip_allowlist = ? WHERE partner_id = ? AND key_id = ? RETURNING key_id")
    .bind(cidrs && cidrs.length > 0 ? JSON.stringify(cidrs) : null, partnerId, keyId)
    .first();
  invalidateKeyCache();
  return row !== null;
}
