import type { Context, MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import { parseApiKey, sameSecret, secretMatches, signatureValid } from "../../domain/credentials";
import {
  type KeyKind,
  type KeyScope,
  keyAllows,
  OPERATION_SCOPES,
  type PartnerOperation,
  parseScopes,
} from "../../domain/key-scopes";
import type { Partner } from "../../domain/partner";
import { findKey, type KeyWithPartner, touchKey } from "../../storage/partners";
import { setAnswerHeaders } from "../answer-headers";
import type { AppEnv } from "../app-env";
import { ApiError } from "../errors";
import { keyAllowsIp } from "./key-allowlist";
import { clientIp, enforceRateLimit, ipBucket, partnerBucket } from "./rate-limit";

const WWW_AUTHENTICATE = { "WWW-Authenticate": 'Bearer realm="partner-api"' };

const unauthorized = (detail: string, code: "invalid_api_key" | "invalid_signature" = "invalid_api_key") =>
  new ApiError(401, code, detail, { headers: WWW_AUTHENTICATE });

/**
 * The key the request carries, from `Authorization: Bearer` or `X-API-Key`; null when neither.
 * Another Authorization scheme (Basic from a proxy, say) is an error where a key is required and
 * is ignored on public routes, where the contract only knows X-API-Key.
 */
function presentedKey(c: Context, mode: "required" | "optional"): string | null {
  const auth = c.req.header("authorization");
  const header = c.req.header("x-api-key");
  let bearer: string | undefined;
  if (auth !== undefined) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (m?.[1]) bearer = m[1];
    else if (mode === "required" || /^Bearer\b/i.test(auth))
      throw unauthorized("Authorization header must be `Bearer <key_id>.<secret>`.");
  }
  if (bearer !== undefined && header !== undefined && bearer !== header.trim()) {
    throw unauthorized("Authorization and X-API-Key carry different keys; send one key.");
  }
  return bearer ?? header?.trim() ?? null;
}

/**
 * The secret that last matched a cached key row, by that row (the key cache holds a row 30 s):
 * a repeat request with the same key is compared with it in constant time instead of being hashed
 * again (SHA-256 per request was 3–4 % of a keyed read's CPU; encoding it for
 * `crypto.subtle.timingSafeEqual`, about as much again). Only ever a secret that matched the
 * stored hash; it lives in this isolate's memory no longer than the row does.
 */
const matchedSecrets = new WeakMap<object, string>();

async function keyMatches(row: object, secret: string, storedHash: string): Promise<boolean> {
  const known = matchedSecrets.get(row);
  if (known !== undefined && sameSecret(known, secret)) return true;
  if (!(await secretMatches(secret, storedHash))) return false;
  matchedSecrets.set(row, secret);
  return true;
}

interface Authenticated {
  partner: Partner;
  keyId: string;
  scopes: readonly KeyScope[];
  kind: KeyKind;
}

async function authenticate(c: Context<AppEnv>, raw: string): Promise<Authenticated> {
  const parsed = parseApiKey(raw);
  if (!parsed.ok) throw unauthorized(`Invalid API key: ${parsed.reason}.`);
  const found = await findKey(c.env.DB, parsed.keyId);
  if (!found || !(await keyMatches(found, parsed.secret, found.key.secret_hash)))
    throw unauthorized("Unknown API key.");
  if (found.key.revoked_at) throw unauthorized("API key has been revoked.");
  if (found.key.expires_at && Date.parse(found.key.expires_at) <= Date.now())
    throw unauthorized("API key has expired: it was rolled; use its replacement.");
  const signature = c.req.header("x-signature");
  if (signature !== undefined) {
    const body = new Uint8Array(await c.req.arrayBuffer());
    if (!(await signatureValid(parsed.secret, body, signature.trim()))) {
      throw unauthorized(
        "Invalid signature: X-Signature must be the hex HMAC-SHA256 of the raw body.",
        "invalid_signature",
      );
    }
  }
  if (found.partner.is_active !== 1)
    throw new ApiError(403, "partner_inactive", "Partner account is not active.");
  if (!keyAllowsIp(found.key.ip_allowlist, clientIp(c)))
    throw new ApiError(403, "ip_not_allowed", "This API key is not allowed from your IP address.");
  return identityOf(found);
}

/**
 * Who a cached key row authenticates, made once per row (the key cache holds it 30 s) rather than
 * per request: its scopes parsed and the partner as the routes see it. Frozen, as requests share it.
 */
const identities = new WeakMap<KeyWithPartner, Authenticated>();

function identityOf(found: KeyWithPartner): Authenticated {
  let identity = identities.get(found);
  if (identity === undefined) {
    const p = found.partner;
    identity = Object.freeze({
      keyId: found.key.key_id,
      scopes: Object.freeze(parseScopes(found.key.scopes)),
      kind: found.key.kind,
      partner: Object.freeze({
        id: p.id,
        name: p.name,
        markupBps: p.markup_bps,
        rateLimitPerMinute: p.rate_limit_per_minute,
        livemode: found.key.mode !== "test",
      }),
    });
    identities.set(found, identity);
  }
  return identity;
}

/**
 * 403 `insufficient_scope` for a key that may not use `operation`: an app key is told what app keys
 * may do; another key, the scope it lacks.
 */
function insufficientScope(operation: PartnerOperation, key: Authenticated): ApiError {
  if (key.kind === "app")
    return new ApiError(
      403,
      "insufficient_scope",
      `An app key may only quote, create orders and read the orders it created, not ${operation}; use a server key from your backend.`,
    );
  const { scopes } = key;
  const scope = OPERATION_SCOPES[operation];
  return new ApiError(
    403,
    "insufficient_scope",
    `This API key lacks the \`${scope}\` scope that ${operation} needs; create a key with it (its scopes: ${scopes.join(", ") || "none"}).`,
  );
}

/** Puts the rate-limit headers on the answer onError makes of `err`, and throws it. */
function refuse(c: Context<AppEnv>, limits: Record<string, string>, err: unknown): never {
  for (const [k, v] of Object.entries(limits)) c.header(k, v);
  throw err;
}

/**
 * Partner authentication, rate limiting and the key's scope for `operation`, in one middleware:
 * the scope is the key's, and its refusal must be counted and carry the limit's headers like any.
 * Authenticated requests count against the partner's own limit; anonymous and failed ones against
 * the client IP (so key guessing is throttled too); an app key's, being public, against both. A
 * key that may not use the operation is refused 403 after it is counted. `optional`: a request
 * without any key passes anonymously (public pricing).
 */
export function partnerAuth(
  mode: "required" | "optional",
  operation: PartnerOperation,
): MiddlewareHandler<AppEnv> {
  return createMiddleware<AppEnv>(async (c, next) => {
    const config = c.get("config");
    let result: Authenticated | null = null;
    try {
      const raw = presentedKey(c, mode);
      if (raw === null && mode === "required")
        throw unauthorized("Missing API key: send `Authorization: Bearer <key>`.");
      if (raw !== null) result = await authenticate(c, raw);
    } catch (err) {
      // The refusal carries the headers too: onError's answer takes the ones set here.
      refuse(c, await enforceRateLimit(c, ipBucket(c), config.PUBLIC_RATE_LIMIT_PER_MINUTE), err);
    }
    let limits: Record<string, string>;
    if (!result) {
      limits = await enforceRateLimit(c, ipBucket(c), config.PUBLIC_RATE_LIMIT_PER_MINUTE);
    } else {
      // Known before the limit is checked, so a 429 shows in the partner's request log too.
      c.set("partner", result.partner);
      c.set("apiKeyId", result.keyId);
      c.set("keyScopes", result.scopes);
      c.set("keyKind", result.kind);
      // An app key is in every user's hands: one address gets no more than a public route allows.
      if (result.kind === "app") await enforceRateLimit(c, ipBucket(c), config.PUBLIC_RATE_LIMIT_PER_MINUTE);
      limits = await enforceRateLimit(c, partnerBucket(result.partner.id), result.partner.rateLimitPerMinute);
      const touched = touchKey(c.env.DB, result.keyId);
      if (touched) c.executionCtx.waitUntil(touched);
      if (!keyAllows(result.kind, result.scopes, operation))
        refuse(c, limits, insufficientScope(operation, result));
    }
    await next();
    setAnswerHeaders(c, limits);
  });
}

/** The operator API: per-IP, before the token is checked, in a bucket of its own. */
export const adminRateLimit = createMiddleware<AppEnv>(async (c, next) => {
  const limits = await enforceRateLimit(
    c,
    `admin-${ipBucket(c)}`,
    c.get("config").ADMIN_RATE_LIMIT_PER_MINUTE,
  );
  await next();
  setAnswerHeaders(c, limits);
});

/** Public routes: per-IP limit only. */
export const publicRateLimit = createMiddleware<AppEnv>(async (c, next) => {
  const limits = await enforceRateLimit(c, ipBucket(c), c.get("config").PUBLIC_RATE_LIMIT_PER_MINUTE);
  await next();
  setAnswerHeaders(c, limits);
});
