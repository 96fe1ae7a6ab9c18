/**
 * Payout gateways: how the order lifecycle sends payouts and refunds. The idempotency key (the
 * order id, plus the kind) makes a send safe to repeat: a gateway that has seen the key returns the
 * first transaction instead of paying again (DESIGN.md §4).
 */

export interface PayoutRequest {
  idempotencyKey: string;
  orderId: string;
  kind: "payout" | "refund";
  network: string;
  coin: string;
  /** Token contract / mint; null for the network's native coin. */
  contract: string | null;
  to: string;
  /** Memo / destination tag on memo networks; null elsewhere. */
  tag: string | null;
  /** Amount in coin units, decimal string (never a float). */
  amount: string;
}

export type PayoutResult =
  | { status: "sent"; txid: string }
  /** retryable: false means retrying the same request cannot succeed (e.g. it was rejected as invalid). */
  | { status: "failed"; retryable: boolean; error: string };

export interface PayoutGateway {
  send(req: PayoutRequest): Promise<PayoutResult>;
  /** ask whether a payout with this key was already made (after a timeout with unknown outcome) */
  lookup(idempotencyKey: string, network: string): Promise<{ txid: string } | null>;
}
