import { sha256 } from "@noble/hashes/sha2.js";
import { normalizeShortId, SHORT_ID_LENGTH } from "./short-id";

/**
 * Order ids that name their Durable Object without an index (docs/orders.md, "Order ids").
 *
 * The short_id is the order's identity: 50 bits, ten Crockford base32 characters. The UUID is a
 * pure function of it: a UUIDv8 whose 122 free bits are the short_id's 50 bits followed by 72
 * check bits (SHA-256 of the short_id). So both forms lead to the same object name (the UUID)
 * with no lookup, and the check bits tell these ids from the random v4 and hash-derived v8 UUIDs
 * of orders created before this layout, which are still found through the D1 index.
 */

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const SHORT_ID_BITS = 50n;
const CHECK_BITS = 72n;
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const mask = (bits: bigint) => (1n << bits) - 1n;
// One encoder per isolate, not one per id: `utf8` was 0.7 % of a creation's CPU profile (2026-11-26).
const encoder = new TextEncoder();
const utf8 = (s: string) => encoder.encode(s);

function bytesToBigInt(bytes: Uint8Array): bigint {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  return n;
}

/** The 50-bit value of a canonical (upper-case) short id. */
export function shortIdValue(shortId: string): bigint {
  let v = 0n;
  for (const ch of shortId) v = (v << 5n) | BigInt(ALPHABET.indexOf(ch));
  return v;
}

/** The short id of a 50-bit value. */
export function shortIdOfValue(value: bigint): string {
  let out = "";
  for (let i = SHORT_ID_LENGTH - 1; i >= 0; i--) out += ALPHABET[Number((value >> BigInt(i * 5)) & 31n)];
  return out;
}

function checkBits(shortId: string): bigint {
  return bytesToBigInt(sha256(utf8(`order-id/v1:${shortId}`)).slice(0, 9));
}

function formatUuid(n: bigint): string {
  const hex = n.toString(16).padStart(32, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The order UUID of a canonical short id. */
export function orderIdOf(shortId: string): string {
  const free = (shortIdValue(shortId) << CHECK_BITS) | checkBits(shortId);
  // Free bits, most significant first: 48 | version 8 | 12 | variant 10 | 62.
  const uuid =
    ((free >> 74n) << 80n) |
    (8n << 76n) |
    (((free >> 62n) & mask(12n)) << 64n) |
    (2n << 62n) |
    (free & mask(62n));
  return formatUuid(uuid);
}

/** The short id a UUID carries, or null for a UUID of the earlier layouts (or not a UUID). */
export function shortIdOfOrderId(id: string): string | null {
  if (!UUID_RE.test(id)) return null;
  const uuid = BigInt(`0x${id.replaceAll("-", "")}`);
  if (((uuid >> 76n) & 15n) !== 8n || ((uuid >> 62n) & 3n) !== 2n) return null;
  const free = ((uuid >> 80n) << 74n) | (((uuid >> 64n) & mask(12n)) << 62n) | (uuid & mask(62n));
  const shortId = shortIdOfValue(free >> CHECK_BITS);
  return (free & mask(CHECK_BITS)) === checkBits(shortId) ? shortId : null;
}

/**
 * The short id of an Idempotency-Key's order: a hash of (partner, key, attempt), so a retry finds
 * the same object with no lookup anywhere. `attempt` moves past the rare short id already taken by
 * another order (50 bits: about one creation in 10^9 at a million orders).
 */
export function idempotentShortId(partnerId: string, key: string, attempt: number): string {
  const digest = sha256(utf8(`${partnerId}\n${key}\n${attempt}`));
  return shortIdOfValue(bytesToBigInt(digest.slice(0, 7)) >> (56n - SHORT_ID_BITS));
}

/** What a path segment names: an order id of either layout, or a short id, or nothing. */
export type OrderRef =
  | { kind: "id"; id: string; shortId: string | null }
  | { kind: "short_id"; id: string; shortId: string }
  | null;

/** Parses an order reference as partners send it (UUID, or short id in any case). */
export function parseOrderRef(raw: string): OrderRef {
  if (UUID_RE.test(raw)) {
    const id = raw.toLowerCase();
    return { kind: "id", id, shortId: shortIdOfOrderId(id) };
  }
  const shortId = normalizeShortId(raw);
  return shortId ? { kind: "short_id", id: orderIdOf(shortId), shortId } : null;
}

/** What tells one creation from another on the same order id. */
export interface CreationKey {
  partnerId: string;
  idempotencyKey: string | null;
  requestHash: string;
}

/**
 * What an order already on an id means for a creation that reaches it: the same partner's same
 * Idempotency-Key replays (or conflicts, with another body); anything else means the short id
 * was drawn twice, and the creation must take another id.
 */
export function creationVerdict(
  existing: CreationKey,
  incoming: CreationKey,
): "replay" | "conflict" | "taken" {
  if (
    incoming.idempotencyKey === null ||
    existing.idempotencyKey !== incoming.idempotencyKey ||
    existing.partnerId !== incoming.partnerId
  ) {
    return "taken";
  }
  return existing.requestHash === incoming.requestHash ? "replay" : "conflict";
}
