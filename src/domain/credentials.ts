import { base64urlnopad, hex } from "@scure/base";

// Key format `<key_id>.<secret>`: key_id = "pk_" (live) or "pk_test_" (test mode), with "app_"
// after "pk_" for an app key ("pk_app_", "pk_app_test_"), + 16 base64url chars (12 bytes), secret =
// 43 base64url chars (32 bytes). Both halves are URL-safe and never contain the dot. The prefix
// only labels the key for humans: the mode and kind are the stored key's.
const KEY_ID_BYTES = 12;
const SECRET_BYTES = 32;
const KEY_ID_RE = /^pk_(?:app_)?(?:test_)?[A-Za-z0-9_-]{16}$/;

/** A key's mode: test keys create test orders (docs/test-mode.md). */
export type KeyMode = "live" | "test";
export const KEY_ID_PREFIX: Readonly<Record<KeyMode, string>> = { live: "pk_", test: "pk_test_" };
const SECRET_RE = /^[A-Za-z0-9_-]{43}$/;

export interface NewApiKey {
  keyId: string;
  secret: string;
  /** The full key, shown to the operator once. */
  key: string;
  secretHash: string;
}

export type ParsedKey = { ok: true; keyId: string; secret: string } | { ok: false; reason: string };

const randomBytes = (n: number) => crypto.getRandomValues(new Uint8Array(n));

export async function sha256Hex(data: string | Uint8Array): Promise<string> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  return hex.encode(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
}

/** The key id's prefix for a key of `mode`, an app key's with "app_" after "pk_". */
export const keyIdPrefix = (mode: KeyMode, app = false): string =>
  app ? KEY_ID_PREFIX[mode].replace(/^pk_/, "pk_app_") : KEY_ID_PREFIX[mode];

export async function generateApiKey(mode: KeyMode = "live", app = false): Promise<NewApiKey> {
  const keyId = `${keyIdPrefix(mode, app)}${base64urlnopad.encode(randomBytes(KEY_ID_BYTES))}`;
  const secret = base64urlnopad.encode(randomBytes(SECRET_BYTES));
  return { keyId, secret, key: `${keyId}.${secret}`, secretHash: await sha256Hex(secret) };
}

export function parseApiKey(raw: string): ParsedKey {
  const dot = raw.indexOf(".");
  if (dot < 0)
    return {
      ok: false,
      reason: "API key has no dot: plaintext keys are not accepted, use <key_id>.<secret>",
    };
  const keyId = raw.slice(0, dot);
  const secret = raw.slice(dot + 1);
  if (!KEY_ID_RE.test(keyId) || !SECRET_RE.test(secret)) return { ok: false, reason: "API key is malformed" };
  return { ok: true, keyId, secret };
}

/** Constant-time equality of two strings (via fixed-length digests, so lengths leak nothing). */
export async function constantTimeEqual(a: string, b: string): Promise<boolean> {
  const [da, db] = await Promise.all([digest(a), digest(b)]);
  return crypto.subtle.timingSafeEqual(da, db) && a.length === b.length;
}

/**
 * Equality of two strings in a time that depends on their length only, never on where they differ:
 * for a presented secret against one that already matched its stored hash (no hashing, no encoding).
 */
export function sameSecret(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

async function digest(s: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest("SHA-256", new TextEncoder().encode(s));
}

export async function secretMatches(secret: string, storedHash: string): Promise<boolean> {
  const presented = hex.decode(await sha256Hex(secret));
  const stored = /^[0-9a-f]{64}$/.test(storedHash) ? hex.decode(storedHash) : new Uint8Array(32);
  return crypto.subtle.timingSafeEqual(presented, stored) && storedHash.length === 64;
}

export async function hmacSha256Hex(key: string, body: Uint8Array): Promise<string> {
  const k = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(key),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return hex.encode(new Uint8Array(await crypto.subtle.sign("HMAC", k, body)));
}

/** `X-Signature`: lower-case hex HMAC-SHA256 of the raw body keyed by the key's secret. */
export async function signatureValid(secret: string, body: Uint8Array, signature: string): Promise<boolean> {
  // The contract says only "hex": either case is the same digest.
  if (!/^[0-9a-f]{64}$/i.test(signature)) return false;
  const expected = hex.decode(await hmacSha256Hex(secret, body));
  return crypto.subtle.timingSafeEqual(expected, hex.decode(signature.toLowerCase()));
}
