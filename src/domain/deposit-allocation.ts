import { sha256 } from "@noble/hashes/sha2.js";
import { shortIdValue } from "./order-id";

/**
 * Where a new order's deposit goes, computed from its id alone (docs/operators.md, "Deposit
 * addresses"): nothing global is counted or locked on the creation path.
 */

const INDEX_BITS = 25n;

/**
 * The BIP32 path below the account's receive chain for an order's deposit address: the short id's
 * 50 bits as two non-hardened 25-bit indexes (m/…/account'/0/hi/lo). One short id is one order
 * (its object), and distinct short ids give distinct paths, so no two orders share a derived
 * address by construction; the depth (6) keeps these apart from the counter-allocated m/…/0/n
 * addresses of earlier orders.
 */
export function depositPath(shortId: string): readonly [number, number] {
  const v = shortIdValue(shortId);
  return [Number(v >> INDEX_BITS), Number(v & ((1n << INDEX_BITS) - 1n))];
}

/**
 * Memo tags of new orders: 10 digits from 1,000,000,000 to 4,294,967,295 (the XRP destination tag
 * range), above every counter-allocated tag of earlier orders (which started at 100,000 and never
 * came near 10^9). 32 bits cannot hold a 50-bit id, so a tag is a hash of (order id, attempt) and
 * is claimed in its own object; a clash moves to the next attempt.
 */
export const FIRST_DERIVED_MEMO_TAG = 1_000_000_000;
const TAG_SPAN = 4_294_967_296 - FIRST_DERIVED_MEMO_TAG;

export function memoTagCandidate(orderId: string, attempt: number): string {
  const d = sha256(new TextEncoder().encode(`memo-tag/v1:${orderId}:${attempt}`));
  const n = new DataView(d.buffer, d.byteOffset).getUint32(0);
  return String(FIRST_DERIVED_MEMO_TAG + (n % TAG_SPAN));
}

/** The name of the object that holds one tag of one shared deposit address. */
export function memoTagName(network: string, address: string, tag: string): string {
  return `${network}:${address}:${tag}`;
}
