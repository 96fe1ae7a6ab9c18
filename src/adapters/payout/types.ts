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
  /**
   * XRP / XLM payouts only, present only when true: the recipient account does not exist, so the
   * payout creates it (XLM `create_account`; XRP a Payment of at least the base reserve).
   */
  activate?: true;
  /** TON payouts only, present only when false: the wallet is uninitialised, send non-bounceable. */
  bounce?: false;
}

/**
 * What a send attempt came to. Only the gateway's own, authenticated word ends an order's send:
 * `refused` is its signed "never, and nothing was sent". Everything else leaves the outcome open
 * (`unknown`), and the next attempt asks (`lookup`) before it sends again. `config` is an unknown
 * outcome that also says the operator has to act (the gateway refused our credentials or the URL
 * is wrong): it is retried and alerted on, never counted against the order.
 */
export type PayoutResult =
  | { status: "sent"; txid: string }
  | { status: "refused"; error: string }
  | { status: "unknown"; error: string; config?: boolean };

/**
 * The answer to "was this key paid?" (asked with the request sent under the key). `error`: the
 * gateway did not say (unreachable, unsigned, stale, for another key); `config` when it refused our
 * credentials or the URL is wrong, for the operator to fix.
 */
export type PayoutLookup =
  | { status: "sent"; txid: string }
  /**
   * The gateway's signed word that it never received the key. From then on it refuses the key
   * (contract v2: a tombstone), so a POST for it still in flight can never pay.
   */
  | { status: "unknown_key" }
  /** The gateway's signed word that it received the key and refused it; nothing was sent. */
  | { status: "refused"; error: string }
  | { status: "error"; error: string; config?: boolean };

export interface PayoutGateway {
  send(req: PayoutRequest): Promise<PayoutResult>;
  /** Whether `req` (its `idempotencyKey`) was paid; may throw, which reads as `error`. */
  lookup(req: PayoutRequest): Promise<PayoutLookup>;
}

/** One coin the gateway holds: what it can still pay out, in coin units (decimal string). */
export interface GatewayBalance {
  coin: string;
  network: string;
  available: string;
}

/**
 * The gateway's balances (`GET /balances`), a liquidity balance source (docs/liquidity.md). Only
 * a signed answer is returned; anything else throws, so an unverified figure is never used.
 */
export interface BalanceSource {
  balances(): Promise<GatewayBalance[]>;
}
