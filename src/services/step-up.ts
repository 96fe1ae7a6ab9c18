// Step-up (docs/cabinet.md): before the cabinet sends funds to a new address, or changes anything
// that could later send funds, data or users elsewhere (STEP_UP_ACTIONS), the signed-in member
// proves presence again with a fresh passkey assertion, user verification required. A session
// alone (a laptop left open, a stolen cookie) cannot move money elsewhere, nor grant itself what
// would (a key with `orders:act`, another passkey, another member or role).
//
// The flow: the page's script asks `POST /cabinet/step-up/options` (stepUpOptions), runs the
// ceremony, and posts the form with the assertion in its `step_up` field; the route hands that
// field to verifyStepUp before it acts. The challenge is single use, bound to the session, and
// lives CHALLENGE_TTL_MS.
import { type AuthenticationResponseJSON, generateAuthenticationOptions } from "@simplewebauthn/server";
import { z } from "zod";
import { DomainError } from "../domain/errors";
import {
  getPasskey,
  listPasskeys,
  recordPasskeyUse,
  type SessionContext,
  takeChallenge,
} from "../storage/cabinet";
import { type Actor, audit, type RelyingParty, storeChallenge, verifyAssertion } from "./cabinet-auth";

/** The form field that carries the assertion (JSON: `{challengeId, response}`). */
export const STEP_UP_FIELD = "step_up";

/** Step-up challenges share the `authenticate` purpose; the subject keeps them apart from sign-in's. */
const subjectOf = (s: SessionContext) => `step_up:${s.session.id}`;

/** Options for one step-up ceremony: the member's own passkeys, user verification required. */
export async function stepUpOptions(db: D1Database, rp: RelyingParty, s: SessionContext) {
  const passkeys = await listPasskeys(db, s.user.id);
  const options = await generateAuthenticationOptions({
    rpID: rp.rpID,
    userVerification: "required",
    allowCredentials: passkeys.map((p) => ({ id: p.id })),
  });
  return { challengeId: await storeChallenge(db, options.challenge, "authenticate", subjectOf(s)), options };
}

const proofSchema = z.object({
  challengeId: z.string().min(1).max(100),
  response: z.looseObject({ id: z.string().min(1).max(1024) }),
});

const refused = (detail: string) => new DomainError("step_up_required", detail);

/** Every cabinet change that needs a fresh step-up, and how a refusal names it. */
export const STEP_UP_ACTIONS = {
  "order.refund": "Sending funds to a new address",
  "order.payout": "Sending funds to a new address",
  "payout.address_change": "Changing the payout address",
  "key.create": "Creating a key with orders:act",
  "key.roll": "Rolling a key with orders:act",
  "passkey.add": "Adding a passkey",
  "invite.create": "Inviting a member",
  "member.role_change": "Changing a member's role",
  "widget.locked_recipient": "A widget's locked recipient",
  "settings.contact_email": "Changing the support e-mail",
  "webhook.url": "Changing the webhook URL",
} as const;
export type StepUpAction = keyof typeof STEP_UP_ACTIONS;

/**
 * What the step-up is for: recorded in the audit log (`step_up.verified`, the target as its
 * target) with the passkey that confirmed it.
 */
export interface StepUpPurpose {
  action: StepUpAction;
  /** The new address, URL, e-mail, key or member the change is about (null: none, e.g. removed). */
  target: string | null;
}

/** verifyStepUp bound to one request's session and `step_up` field: what a service calls right before a change that needs it. */
export type StepUpGate = (purpose: StepUpPurpose) => Promise<{ passkey: string }>;

/**
 * Verifies the `step_up` field of a request (403 `step_up_required` when it is missing, stale,
 * for another session, by another member's passkey or without user verification) and audits
 * `step_up.verified` with the purpose. Returns the confirming passkey's name.
 */
export async function verifyStepUp(
  db: D1Database,
  rp: RelyingParty,
  s: SessionContext,
  actor: Actor,
  field: string | undefined,
  purpose: StepUpPurpose,
): Promise<{ passkey: string }> {
  if (!field) throw refused(`${STEP_UP_ACTIONS[purpose.action]} needs a fresh passkey confirmation.`);
  let json: unknown;
  try {
    json = JSON.parse(field);
  } catch {
    json = null;
  }
  const proof = proofSchema.safeParse(json);
  if (!proof.success) throw refused("The passkey confirmation is malformed; try again.");
  const now = new Date().toISOString();
  const expected = await takeChallenge(db, proof.data.challengeId, "authenticate", subjectOf(s), now);
  if (!expected) throw refused("The passkey confirmation expired; try again.");
  const passkey = await getPasskey(db, proof.data.response.id);
  if (passkey?.user_id !== s.user.id) throw refused("Confirm with one of your own passkeys.");
  const counter = await verifyAssertion(
    rp,
    passkey,
    expected,
    proof.data.response as unknown as AuthenticationResponseJSON,
  );
  if (counter === null) throw refused("The passkey confirmation failed (user verification is required).");
  await recordPasskeyUse(db, passkey.id, counter, now);
  await audit(db, actor, "step_up.verified", purpose.target, {
    action: purpose.action,
    passkey: passkey.name,
  });
  return { passkey: passkey.name };
}
