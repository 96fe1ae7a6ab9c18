// Cabinet accounts: invitations, passkey ceremonies (@simplewebauthn/server) and sessions.
// Routes stay thin: they hand these functions the request's data and render what comes back.

import { base64urlnopad } from "@scure/base";
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import {
  CHALLENGE_TTL_MS,
  INVITE_TTL_MS,
  inviteState,
  normaliseEmail,
  type Role,
  SESSION_ABSOLUTE_MS,
  SESSION_TOUCH_MS,
  SIGNIN_MAX_FAILURES,
  sessionAlive,
  signinWindowStart,
} from "../domain/cabinet";
import { sha256Hex } from "../domain/credentials";
import { DomainError } from "../domain/errors";
import { ipRateLimitSubject } from "../domain/rate-limit";
import {
  type ChallengePurpose,
  consumeInvite,
  countFailures,
  deleteUserPasskeysStatement,
  deleteUserSessionsStatement,
  findInviteByHash,
  findSession,
  findUserByEmail,
  getPasskey,
  type InviteRow,
  insertAudit,
  insertChallenge,
  insertInvite,
  insertPasskeyStatement,
  insertSessionStatement,
  listPasskeys,
  type PasskeyRow,
  purgeExpiredCabinetRows,
  recordFailures,
  recordPasskeyUse,
  revokePendingInvites,
  type SessionContext,
  takeChallenge,
  touchSession,
  type UserRow,
} from "../storage/cabinet";
import { getPartner } from "../storage/partners";

const RP_NAME = "Swap partner cabinet";
const random = (bytes: number) => base64urlnopad.encode(crypto.getRandomValues(new Uint8Array(bytes)));

export interface RelyingParty {
  origin: string;
  rpID: string;
}

export function relyingParty(cabinetOrigin: string): RelyingParty {
  const u = new URL(cabinetOrigin);
  return { origin: u.origin, rpID: u.hostname };
}

/** Who did something and from where, for the audit log. */
export interface Actor {
  partnerId: string;
  label: string;
  ip: string | null;
}

export async function audit(
  db: D1Database,
  actor: Actor,
  action: string,
  target: string | null = null,
  detail: Record<string, unknown> | null = null,
): Promise<void> {
  await insertAudit(db, {
    partner_id: actor.partnerId,
    actor: actor.label,
    action,
    target,
    detail: detail ? JSON.stringify(detail) : null,
    ip: actor.ip,
    created_at: new Date().toISOString(),
  });
}

// ---- invitations ------------------------------------------------------------------------------

export interface IssuedInvite {
  id: string;
  email: string;
  role: Role;
  expires_at: string;
  /** The one-time link; only its hash is stored. */
  url: string;
}

/**
 * Invites `email` to the partner's cabinet. An invite for an existing member is a recovery link:
 * using it replaces their passkeys. A newer invite for the same address voids older ones.
 */
export async function createInvite(
  db: D1Database,
  cabinetOrigin: string,
  actor: Actor,
  input: { email: string; role: Role },
): Promise<IssuedInvite> {
  const partner = await getPartner(db, actor.partnerId);
  if (!partner) throw new DomainError("partner_not_found", "Partner not found.");
  const email = normaliseEmail(input.email);
  const existing = await findUserByEmail(db, actor.partnerId, email);
  const token = random(32);
  const now = new Date();
  const invite: InviteRow = {
    id: crypto.randomUUID(),
    partner_id: actor.partnerId,
    email,
    role: input.role,
    user_id: existing?.id ?? null,
    token_hash: await sha256Hex(token),
    created_by: actor.label,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + INVITE_TTL_MS).toISOString(),
    used_at: null,
    revoked_at: null,
  };
  await revokePendingInvites(db, actor.partnerId, email, invite.created_at);
  await insertInvite(db, invite);
  await audit(db, actor, "member.invited", email, { role: input.role, recovery: existing !== null });
  return {
    id: invite.id,
    email,
    role: input.role,
    expires_at: invite.expires_at,
    url: `${relyingParty(cabinetOrigin).origin}/cabinet/invite/${token}`,
  };
}

export type InviteLookup =
  | { state: "valid"; invite: InviteRow; partnerName: string }
  | { state: "used" | "expired" | "revoked" | "unknown" | "partner_inactive" };

export async function lookupInvite(db: D1Database, token: string): Promise<InviteLookup> {
  const invite = await findInviteByHash(db, await sha256Hex(token));
  if (!invite) return { state: "unknown" };
  const state = inviteState(invite, Date.now());
  if (state !== "valid") return { state };
  const partner = await getPartner(db, invite.partner_id);
  if (partner?.is_active !== 1) return { state: "partner_inactive" };
  return { state, invite, partnerName: partner.name };
}

// ---- challenges -------------------------------------------------------------------------------

export async function storeChallenge(
  db: D1Database,
  challenge: string,
  purpose: ChallengePurpose,
  subject: string | null,
): Promise<string> {
  const id = random(16);
  await insertChallenge(db, {
    id,
    challenge,
    purpose,
    subject,
    expires_at: new Date(Date.now() + CHALLENGE_TTL_MS).toISOString(),
  });
  return id;
}

const fail = (detail: string) => new DomainError("cabinet_auth_failed", detail);

async function registrationOptions(
  db: D1Database,
  rp: RelyingParty,
  user: { id: string; email: string },
  purpose: ChallengePurpose,
  subject: string,
  exclude: string[],
) {
  const options = await generateRegistrationOptions({
    rpName: RP_NAME,
    rpID: rp.rpID,
    userName: user.email,
    userID: new Uint8Array(new TextEncoder().encode(user.id)),
    attestationType: "none",
    excludeCredentials: exclude.map((id) => ({ id })),
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
  });
  return { challengeId: await storeChallenge(db, options.challenge, purpose, subject), options };
}

async function verifyNewPasskey(
  db: D1Database,
  rp: RelyingParty,
  purpose: ChallengePurpose,
  subject: string,
  challengeId: string,
  response: RegistrationResponseJSON,
) {
  const expected = await takeChallenge(db, challengeId, purpose, subject, new Date().toISOString());
  if (!expected) throw fail("The sign-in challenge expired; start again.");
  const result = await verifyRegistrationResponse({
    response,
    expectedChallenge: expected,
    expectedOrigin: rp.origin,
    expectedRPID: rp.rpID,
    requireUserVerification: true,
  }).catch(() => ({ verified: false as const }));
  if (!result.verified) throw fail("The passkey could not be verified.");
  return result.registrationInfo.credential;
}

function passkeyRow(
  userId: string,
  credential: { id: string; publicKey: Uint8Array; counter: number; transports?: string[] },
  name: string,
) {
  return {
    id: credential.id,
    user_id: userId,
    public_key: base64urlnopad.encode(credential.publicKey),
    counter: credential.counter,
    transports: credential.transports ? JSON.stringify(credential.transports) : null,
    name,
    created_at: new Date().toISOString(),
    last_used_at: null,
  };
}

// ---- sessions ---------------------------------------------------------------------------------

export interface ClientMeta {
  ip: string | null;
  userAgent: string | null;
}

export interface NewSession {
  /** Cookie value; the table keeps only its hash. */
  token: string;
  maxAgeSeconds: number;
}

async function sessionStatement(db: D1Database, userId: string, meta: ClientMeta) {
  const token = random(32);
  const now = Date.now();
  const stmt = insertSessionStatement(db, {
    id: await sha256Hex(token),
    user_id: userId,
    csrf_token: random(24),
    created_at: new Date(now).toISOString(),
    last_seen_at: new Date(now).toISOString(),
    expires_at: new Date(now + SESSION_ABSOLUTE_MS).toISOString(),
    ip: meta.ip,
    user_agent: meta.userAgent?.slice(0, 300) ?? null,
  });
  return { stmt, session: { token, maxAgeSeconds: SESSION_ABSOLUTE_MS / 1000 } };
}

/**
 * The live session behind a cookie, or null (unknown, timed out, member or partner disabled). The
 * once-a-minute last-seen write is handed to `defer` (the request's waitUntil): the page need not
 * wait on the D1 primary for it, and a lost touch only moves the idle timeout a minute earlier.
 */
export async function resolveSession(
  db: D1Database,
  token: string,
  defer: (work: Promise<unknown>) => void,
): Promise<SessionContext | null> {
  const ctx = await findSession(db, await sha256Hex(token));
  if (!ctx) return null;
  const now = Date.now();
  const times = {
    createdAt: Date.parse(ctx.session.created_at),
    lastSeenAt: Date.parse(ctx.session.last_seen_at),
    expiresAt: Date.parse(ctx.session.expires_at),
  };
  if (!sessionAlive(times, now) || ctx.user.status !== "active" || ctx.partner.is_active !== 1) return null;
  if (now - times.lastSeenAt >= SESSION_TOUCH_MS)
    defer(touchSession(db, ctx.session.id, new Date(now).toISOString()));
  return ctx;
}

// ---- invite → passkey → session ---------------------------------------------------------------

export async function inviteRegistrationOptions(db: D1Database, rp: RelyingParty, token: string) {
  const found = await lookupInvite(db, token);
  if (found.state !== "valid") throw fail(`This invitation is ${found.state}.`);
  const userId = found.invite.user_id ?? crypto.randomUUID();
  // The member id is chosen now so the passkey's user handle matches the account it creates.
  const ceremony = await registrationOptions(
    db,
    rp,
    { id: userId, email: found.invite.email },
    "register",
    `${found.invite.id}:${userId}`,
    [],
  );
  return { ...ceremony, userId };
}

export async function completeInvite(
  db: D1Database,
  rp: RelyingParty,
  token: string,
  input: { challengeId: string; userId: string; response: RegistrationResponseJSON },
  meta: ClientMeta,
): Promise<NewSession> {
  const found = await lookupInvite(db, token);
  if (found.state !== "valid") throw fail(`This invitation is ${found.state}.`);
  const { invite } = found;
  if (invite.user_id && invite.user_id !== input.userId)
    throw fail("The passkey does not match this invitation.");
  const credential = await verifyNewPasskey(
    db,
    rp,
    "register",
    `${invite.id}:${input.userId}`,
    input.challengeId,
    input.response,
  );
  const now = new Date().toISOString();
  if (!(await consumeInvite(db, invite.id, now))) throw fail("This invitation has already been used.");
  const { stmt, session } = await sessionStatement(db, input.userId, meta);
  const userWrites = invite.user_id
    ? [
        // Recovery: the member's old passkeys and sessions end; role follows the new invite.
        deleteUserPasskeysStatement(db, invite.user_id),
        deleteUserSessionsStatement(db, invite.user_id),
        db
          .prepare("UPDATE cabinet_users SET role = ?, status = 'active', updated_at = ? WHERE id = ?")
          .bind(invite.role, now, invite.user_id),
      ]
    : [
        db
          .prepare(
            "INSERT INTO cabinet_users (id, partner_id, email, role, status, created_at, updated_at) VALUES (?, ?, ?, ?, 'active', ?, ?)",
          )
          .bind(input.userId, invite.partner_id, invite.email, invite.role, now, now),
      ];
  await db.batch([
    ...userWrites,
    insertPasskeyStatement(db, passkeyRow(input.userId, credential, "Passkey 1")),
    stmt,
  ]);
  await audit(db, { partnerId: invite.partner_id, label: invite.email, ip: meta.ip }, "member.joined", null, {
    role: invite.role,
    recovery: invite.user_id !== null,
  });
  return session;
}

// ---- sign in ----------------------------------------------------------------------------------

/**
 * Checks a passkey assertion against the stored credential, with user verification (PIN or
 * biometrics) required: a passkey that only proves presence signs nobody in. The new signature
 * counter, or null when the assertion does not verify.
 */
export async function verifyAssertion(
  rp: RelyingParty,
  passkey: PasskeyRow,
  expectedChallenge: string,
  response: AuthenticationResponseJSON,
): Promise<number | null> {
  const result = await verifyAuthenticationResponse({
    response,
    expectedChallenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.rpID,
    requireUserVerification: true,
    credential: {
      id: passkey.id,
      publicKey: new Uint8Array(base64urlnopad.decode(passkey.public_key)),
      counter: passkey.counter,
    },
  }).catch(() => null);
  return result?.verified ? result.authenticationInfo.newCounter : null;
}

export async function signInOptions(db: D1Database, rp: RelyingParty) {
  const options = await generateAuthenticationOptions({ rpID: rp.rpID, userVerification: "required" });
  return { challengeId: await storeChallenge(db, options.challenge, "authenticate", null), options };
}

/** Rows removed per table per cron run: bounded work, the next run takes the rest. */
const PURGE_BATCH = 500;

/** The cron's pruning of challenges, sessions and failure counts nobody can use any more. */
export function purgeExpiredCabinetState(db: D1Database, now: number): Promise<number> {
  return purgeExpiredCabinetRows(db, new Date(now).toISOString(), signinWindowStart(now), PURGE_BATCH);
}

/** Thrown while a client or a member has too many recent failures. */
export class SignInThrottled extends DomainError {
  constructor() {
    super("signin_throttled", "Too many failed sign-ins; try again in 15 minutes.");
  }
}

export async function signIn(
  db: D1Database,
  rp: RelyingParty,
  input: { challengeId: string; response: AuthenticationResponseJSON },
  meta: ClientMeta,
): Promise<NewSession> {
  const window = signinWindowStart(Date.now());
  const passkey = await getPasskey(db, String(input.response.id ?? ""));
  // An IPv6 client owns its whole /64: counted per address, it could rotate past the limit.
  const subjects = [
    `ip:${ipRateLimitSubject(meta.ip ?? "unknown")}`,
    ...(passkey ? [`user:${passkey.user_id}`] : []),
  ];
  const counts = await countFailures(db, subjects, window);
  if (
    (counts.get(subjects[0]!) ?? 0) >= SIGNIN_MAX_FAILURES.ip ||
    (passkey && (counts.get(`user:${passkey.user_id}`) ?? 0) >= SIGNIN_MAX_FAILURES.user)
  )
    throw new SignInThrottled();
  const failed = async (detail: string) => {
    await recordFailures(db, subjects, window);
    return fail(detail);
  };
  const expected = await takeChallenge(db, input.challengeId, "authenticate", null, new Date().toISOString());
  if (!expected) throw await failed("The sign-in challenge expired; start again.");
  if (!passkey) throw await failed("This passkey is not registered here.");
  const newCounter = await verifyAssertion(rp, passkey, expected, input.response);
  if (newCounter === null) throw await failed("The passkey could not be verified.");
  const user = await db
    .prepare(
      "SELECT u.id, u.partner_id, u.email, u.status, p.is_active FROM cabinet_users u JOIN partners p ON p.id = u.partner_id WHERE u.id = ?",
    )
    .bind(passkey.user_id)
    .first<Pick<UserRow, "id" | "partner_id" | "email" | "status"> & { is_active: number }>();
  if (user?.status !== "active") throw await failed("This account is deactivated.");
  if (user.is_active !== 1) throw await failed("This partner account is not active.");
  const now = new Date().toISOString();
  await recordPasskeyUse(db, passkey.id, newCounter, now);
  const { stmt, session } = await sessionStatement(db, user.id, meta);
  await stmt.run();
  await audit(db, { partnerId: user.partner_id, label: user.email, ip: meta.ip }, "member.signed_in");
  return session;
}

// ---- more passkeys ----------------------------------------------------------------------------

export async function addPasskeyOptions(db: D1Database, rp: RelyingParty, user: UserRow) {
  const existing = await listPasskeys(db, user.id);
  return registrationOptions(
    db,
    rp,
    user,
    "add_passkey",
    user.id,
    existing.map((p) => p.id),
  );
}

export async function addPasskey(
  db: D1Database,
  rp: RelyingParty,
  user: UserRow,
  input: { challengeId: string; response: RegistrationResponseJSON; name?: string },
  actor: Actor,
): Promise<void> {
  const credential = await verifyNewPasskey(
    db,
    rp,
    "add_passkey",
    user.id,
    input.challengeId,
    input.response,
  );
  const count = (await listPasskeys(db, user.id)).length;
  const name = input.name?.trim().slice(0, 60) || `Passkey ${count + 1}`;
  await insertPasskeyStatement(db, passkeyRow(user.id, credential, name)).run();
  await audit(db, actor, "passkey.added", name);
}
