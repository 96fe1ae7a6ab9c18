// What opens an order without a key: its status API and tracking page (docs/widget.md, "Who can
// open an order without a key"). The UUID alone does not: it is a function of the short_id, which
// partners print on receipts and read to support staff. The key is a random token stored on the
// order, so nothing a third party sees (ids, addresses, txids) leads to it.

import { UUID_RE } from "./order-id";

const TOKEN_BYTES = 16;
const TOKEN_RE = /^[0-9a-f]{32}$/;

/** A new order's token: 128 random bits in hex (survives linkifiers, copying and case changes). */
export function newTrackToken(
  random: (n: number) => Uint8Array = (n) => crypto.getRandomValues(new Uint8Array(n)),
): string {
  let out = "";
  for (const b of random(TOKEN_BYTES)) out += b.toString(16).padStart(2, "0");
  return out;
}

/**
 * The path segment that opens an order keylessly: `<uuid>.<token>`; the bare UUID for an order
 * created before tokens (no `trackToken`), which opens by its UUID as it always did.
 */
export function trackRef(order: TrackedOrder): string {
  return order.trackToken == null ? order.id : `${order.id}.${order.trackToken}`;
}

/** An order's id and token, from its record or its index row (null there: no token). */
export interface TrackedOrder {
  id: string;
  trackToken?: string | null | undefined;
}

/** The order's keyless tracking page and status API, on the service's public origin. */
export interface OrderLinks {
  tracking_url: string;
  status_url: string;
}

export function orderLinks(publicOrigin: string, order: TrackedOrder): OrderLinks {
  const origin = new URL(publicOrigin).origin;
  const ref = trackRef(order);
  return { tracking_url: `${origin}/track/${ref}`, status_url: `${origin}/api/v1/orders/${ref}/status` };
}

/** A keyless reader's path segment: the order's UUID and the token after it (null: a bare UUID). */
export function parseTrackRef(raw: string): { id: string; token: string | null } | null {
  const lower = raw.toLowerCase();
  const dot = lower.indexOf(".");
  const id = dot < 0 ? lower : lower.slice(0, dot);
  const token = dot < 0 ? null : lower.slice(dot + 1);
  if (!UUID_RE.test(id) || (token !== null && !TOKEN_RE.test(token))) return null;
  return { id, token };
}

/**
 * Whether a keyless reader's token opens the order: exactly its own token, or no token for an
 * order from before tokens (whose UUID was all its readers were ever given). Compared in constant
 * time.
 */
export function opensOrder(stored: string | undefined, given: string | null): boolean {
  if (stored === undefined || given === null) return stored === undefined && given === null;
  if (stored.length !== given.length) return false;
  let diff = 0;
  for (let i = 0; i < stored.length; i++) diff |= stored.charCodeAt(i) ^ given.charCodeAt(i);
  return diff === 0;
}
