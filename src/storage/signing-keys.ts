import { base64urlnopad } from "@scure/base";

export type SigningPurpose = "quote";

/**
 * The secret for `purpose`, created on first use. INSERT OR IGNORE then SELECT: when two isolates
 * race, both read the one row that won.
 */
export async function signingSecret(db: D1Database, purpose: SigningPurpose): Promise<Uint8Array> {
  const fresh = base64urlnopad.encode(crypto.getRandomValues(new Uint8Array(32)));
  const [, read] = await db.batch<{ secret: string }>([
    db
      .prepare("INSERT OR IGNORE INTO signing_keys (purpose, secret, created_at) VALUES (?, ?, ?)")
      .bind(purpose, fresh, new Date().toISOString()),
    db.prepare("SELECT secret FROM signing_keys WHERE purpose = ?").bind(purpose),
  ]);
  const row = read?.results[0];
  if (!row) throw new Error(`signing key ${purpose} could not be created`);
  return base64urlnopad.decode(row.secret);
}
