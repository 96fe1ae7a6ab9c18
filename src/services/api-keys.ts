// Issuing API keys, shared by the operator API and the cabinet.
import { generateApiKey } from "../domain/credentials";
import { insertKey } from "../storage/partners";

export interface IssuedKey {
  key_id: string;
  /** The full `<key_id>.<secret>`: returned once, never stored. */
  key: string;
  created_at: string;
}

export async function issueKey(
  db: D1Database,
  partnerId: string,
  opts: { name?: string; createdBy: string; ipAllowlist?: string | null; now?: Date },
): Promise<IssuedKey> {
  const key = await generateApiKey();
  const created_at = (opts.now ?? new Date()).toISOString();
  await insertKey(db, {
    key_id: key.keyId,
    partner_id: partnerId,
    secret_hash: key.secretHash,
    created_at,
    last_used_at: null,
    revoked_at: null,
    name: opts.name ?? "",
    // Test keys (`pk_test_…`) arrive with test mode (issue 15); every key issued today is live.
    mode: "live",
    created_by: opts.createdBy,
    expires_at: null,
    ip_allowlist: opts.ipAllowlist ?? null,
  });
  return { key_id: key.keyId, key: key.key, created_at };
}
