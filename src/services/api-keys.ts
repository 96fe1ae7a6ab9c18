// Issuing API keys, shared by the operator API and the cabinet.
import { generateApiKey, type KeyMode } from "../domain/credentials";
import {
  APP_KEY_SCOPES,
  DEFAULT_SCOPES,
  formatScopes,
  type KeyKind,
  type KeyScope,
  parseScopes,
} from "../domain/key-scopes";
import { insertKeyStatement } from "../storage/partners";

export interface IssuedKey {
  key_id: string;
  /** The full `<key_id>.<secret>`: returned once, never stored. */
  key: string;
  mode: KeyMode;
  scopes: KeyScope[];
  kind: KeyKind;
  created_at: string;
}

export async function issueKey(
  db: D1Database,
  partnerId: string,
  opts: {
    name?: string;
    createdBy: string;
    ipAllowlist?: string | null;
    now?: Date;
    mode?: KeyMode;
    /** Unset: DEFAULT_SCOPES (everything but orders:act). Ignored for an app key. */
    scopes?: readonly KeyScope[];
    /** Unset: `server`. An app key always has APP_KEY_SCOPES. */
    kind?: KeyKind;
  },
  /** Rows recording the issue (an operator audit entry), written in the same D1 batch as the key. */
  alsoRecord: (issued: IssuedKey) => D1PreparedStatement[] = () => [],
): Promise<IssuedKey> {
  const mode = opts.mode ?? "live";
  const kind = opts.kind ?? "server";
  const scopes = formatScopes(kind === "app" ? APP_KEY_SCOPES : (opts.scopes ?? DEFAULT_SCOPES));
  const key = await generateApiKey(mode, kind === "app");
  const created_at = (opts.now ?? new Date()).toISOString();
  const row = {
    key_id: key.keyId,
    partner_id: partnerId,
    secret_hash: key.secretHash,
    created_at,
    last_used_at: null,
    revoked_at: null,
    name: opts.name ?? "",
    mode,
    created_by: opts.createdBy,
    expires_at: null,
    ip_allowlist: opts.ipAllowlist ?? null,
    scopes,
    kind,
  };
  const issued = { key_id: key.keyId, key: key.key, mode, scopes: parseScopes(scopes), kind, created_at };
  await db.batch([insertKeyStatement(db, row), ...alsoRecord(issued)]);
  return issued;
}
