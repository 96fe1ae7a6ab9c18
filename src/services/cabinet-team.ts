// Team and key management shared by the cabinet and the operator API; every change is audited.
import { ROLL_OVERLAPS, type Role, type RollOverlap } from "../domain/cabinet";
import type { KeyMode } from "../domain/credentials";
import { DomainError } from "../domain/errors";
import { parseCidr } from "../domain/ip-allowlist";
import { type KeyKind, type KeyScope, movesFunds, parseScopes } from "../domain/key-scopes";
import { setKeyAllowlist, setKeyExpiry } from "../storage/api-keys";
import {
  deletePasskeyUnlessLast,
  deleteUserSessions,
  deleteUserSessionsStatement,
  getUser,
  revokeInvite,
  type UserRow,
  updateMemberKeepingAnAdmin,
} from "../storage/cabinet";
import { listKeys, revokeKey } from "../storage/partners";
import { type IssuedKey, issueKey } from "./api-keys";
import { type Actor, audit } from "./cabinet-auth";
import type { StepUpGate } from "./step-up";

const memberNotFound = () => new DomainError("member_not_found", "Team member not found.");
const keyNotFound = () => new DomainError("key_not_found", "API key not found.");

async function member(db: D1Database, partnerId: string, userId: string): Promise<UserRow> {
  const user = await getUser(db, partnerId, userId);
  if (!user) throw memberNotFound();
  return user;
}

const lastAdmin = () => new DomainError("last_admin", "The team must keep at least one active admin.");

export async function changeRole(db: D1Database, actor: Actor, userId: string, role: Role): Promise<UserRow> {
  const user = await member(db, actor.partnerId, userId);
  const row = await updateMemberKeepingAnAdmin(
    db,
    actor.partnerId,
    userId,
    { role },
    new Date().toISOString(),
  );
  if (!row) throw lastAdmin();
  await audit(db, actor, "member.role_changed", user.email, { from: user.role, to: role });
  return row;
}

/**
 * Deactivates a member and ends their sessions at once. The operator may deactivate anyone; a
 * partner admin never the last admin (`enforceLastAdmin`).
 */
export async function deactivateMember(
  db: D1Database,
  actor: Actor,
  userId: string,
  opts: { enforceLastAdmin: boolean },
): Promise<UserRow> {
  const user = await member(db, actor.partnerId, userId);
  const now = new Date().toISOString();
  if (!opts.enforceLastAdmin) {
    const [updated] = await db.batch<UserRow>([
      db
        .prepare("UPDATE cabinet_users SET status = 'deactivated', updated_at = ? WHERE id = ? RETURNING *")
        .bind(now, userId),
      deleteUserSessionsStatement(db, userId),
    ]);
    await audit(db, actor, "member.removed", user.email);
    return updated?.results[0] ?? user;
  }
  const row = await updateMemberKeepingAnAdmin(db, actor.partnerId, userId, { status: "deactivated" }, now);
  if (!row) throw lastAdmin();
  await deleteUserSessionsStatement(db, userId).run();
  await audit(db, actor, "member.removed", user.email);
  return row;
}

export async function revokeSessions(db: D1Database, actor: Actor, userId: string): Promise<number> {
  const user = await member(db, actor.partnerId, userId);
  const n = await deleteUserSessions(db, userId);
  await audit(db, actor, "member.sessions_revoked", user.email, { sessions: n });
  return n;
}

export async function removePasskey(db: D1Database, actor: Actor, user: UserRow, passkeyId: string) {
  if (!(await deletePasskeyUnlessLast(db, user.id, passkeyId)))
    throw new DomainError(
      "last_passkey",
      "That passkey is not yours, or it is your last one: add another first.",
    );
  await audit(db, actor, "passkey.removed", passkeyId);
}

// ---- keys -------------------------------------------------------------------------------------

export function parseAllowlist(text: string): { cidrs: string[]; invalid: string[] } {
  const items = text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
  const parsed = items.map((t) => ({ t, c: parseCidr(t) }));
  return {
    cidrs: parsed.flatMap((p) => (p.c ? [p.c.text] : [])),
    invalid: parsed.filter((p) => !p.c).map((p) => p.t),
  };
}

async function ownKey(db: D1Database, partnerId: string, keyId: string) {
  const key = (await listKeys(db, partnerId)).find((k) => k.key_id === keyId);
  if (!key) throw keyNotFound();
  return key;
}

/** Revokes a pending invite (the link stops working at once); audited like every team change. */
export async function revokeInviteAudited(db: D1Database, actor: Actor, inviteId: string): Promise<void> {
  if (!(await revokeInvite(db, actor.partnerId, inviteId, new Date().toISOString())))
    throw new DomainError("invite_not_found", "Invite not found or no longer pending.");
  await audit(db, actor, "invite.revoked", inviteId);
}

export async function createKey(
  db: D1Database,
  actor: Actor,
  input: {
    name: string;
    ipAllowlist: string[] | null;
    mode?: KeyMode;
    scopes?: readonly KeyScope[];
    kind?: KeyKind;
  },
  alsoRecord?: (issued: IssuedKey) => D1PreparedStatement[],
): Promise<IssuedKey> {
  const issued = await issueKey(
    db,
    actor.partnerId,
    {
      name: input.name,
      createdBy: actor.label,
      ipAllowlist: input.ipAllowlist?.length ? JSON.stringify(input.ipAllowlist) : null,
      mode: input.mode ?? "live",
      ...(input.scopes ? { scopes: input.scopes } : {}),
      ...(input.kind ? { kind: input.kind } : {}),
    },
    alsoRecord,
  );
  await audit(db, actor, "key.created", issued.key_id, {
    name: input.name,
    mode: issued.mode,
    scopes: issued.scopes,
    kind: issued.kind,
  });
  return issued;
}

export async function revokeKeyAudited(db: D1Database, actor: Actor, keyId: string): Promise<void> {
  await ownKey(db, actor.partnerId, keyId);
  await revokeKey(db, actor.partnerId, keyId, new Date().toISOString());
  await audit(db, actor, "key.revoked", keyId);
}

/**
 * A new key with the old one's name, allowlist and scopes; the old one keeps working for `overlap`.
 * A key that moves funds is issued again only through the member's step-up.
 */
export async function rollKey(
  db: D1Database,
  actor: Actor,
  keyId: string,
  overlap: RollOverlap,
  stepUp: StepUpGate,
): Promise<IssuedKey> {
  const old = await ownKey(db, actor.partnerId, keyId);
  if (old.revoked_at || old.expires_at) throw keyNotFound();
  if (movesFunds(parseScopes(old.scopes))) await stepUp({ action: "key.roll", target: keyId });
  const issued = await issueKey(db, actor.partnerId, {
    name: old.name,
    createdBy: actor.label,
    ipAllowlist: old.ip_allowlist,
    mode: old.mode,
    scopes: parseScopes(old.scopes),
    kind: old.kind,
  });
  const expiresAt = new Date(Date.now() + ROLL_OVERLAPS[overlap]).toISOString();
  await setKeyExpiry(db, actor.partnerId, keyId, expiresAt, issued.key_id);
  await audit(db, actor, "key.rolled", keyId, { new_key_id: issued.key_id, old_key_expires_at: expiresAt });
  return issued;
}

export async function setAllowlist(
  db: D1Database,
  actor: Actor,
  keyId: string,
  cidrs: string[],
): Promise<void> {
  await ownKey(db, actor.partnerId, keyId);
  await setKeyAllowlist(db, actor.partnerId, keyId, cidrs);
  await audit(db, actor, "key.allowlist_changed", keyId, { ip_allowlist: cidrs });
}
