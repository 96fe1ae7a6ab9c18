import type { OrderRecord, SendKind } from "./order";

/**
 * The order's ledger keys, all of them (docs/lifecycle.md, "Payouts and refunds happen at most
 * once"): each send of money, and the exchange, under a key no other request ever used. The key is
 * the idempotency key towards the gateway; nothing reads a number back out of it (the ledger row
 * stores its own).
 */

/** The `n`th send of this kind of the order: `<id>:<kind>`, then `<id>:<kind>:2`, … */
export function ledgerKey(orderId: string, kind: SendKind, n = 1): string {
  return n > 1 ? `${orderId}:${kind}:${n}` : `${orderId}:${kind}`;
}

/** The ledger key of the order's current send of this kind (a decision may have started a new one). */
export function sendKey(r: Pick<OrderRecord, "id" | "sendKeys">, kind: SendKind): string {
  return r.sendKeys?.[kind] ?? ledgerKey(r.id, kind);
}

/** The `n`th refund of one extra deposit ("txid:index"): `<id>:extra:<txid>:<index>`, then `…:2`. */
export function extraRefundKey(orderId: string, deposit: string, n: number): string {
  return `${orderId}:extra:${deposit}${n > 1 ? `:${n}` : ""}`;
}
