import type { PairRequest } from "../../domain/pairs";
import type { PricingInput } from "../../domain/pricing";
import type { LegParams, Market } from "../../domain/venue-route";

/** Exchange venues: turn the received deposit into the destination coin (DESIGN.md §1). */
export interface ExchangeRequest {
  orderId: string;
  coinFrom: string;
  networkFrom: string;
  coinTo: string;
  networkTo: string;
  /** The received deposit, in coin_from units (decimal string). */
  amountFrom: string;
  rateType: "float" | "fixed";
  rateQuoted: string;
  amountFromExpected: string;
  amountToExpected: string;
  decimalsTo: number;
  spreadBps: number;
  markupBps: number;
  /**
   * A float order's floor (docs/orders.md, "The least you receive"): the venue legs never fill
   * below it. Absent on fixed orders (they pay amount_to whatever the fills), on a continued
   * exchange (it runs at the rate of its moment) and on orders from before the floor.
   */
  amountToMin?: string;
}

export type ExchangeResult =
  /** `record`: what the venue did (legs, fills, the service's difference), for the order's log. */
  | { status: "done"; amountTo: string; record?: Record<string, string | number | null> }
  /** `belowMinOut`: nothing was exchanged because the price is past the floor (`below_min_out`). */
  | { status: "failed"; retryable: boolean; error: string; belowMinOut?: true }
  | ExchangePending;

/** Not done and not failed (a leg may be on the venue): ask again at `retryAt`; not an attempt. */
export interface ExchangePending {
  status: "pending";
  retryAt: number;
  reason: string;
  /**
   * The order's log entry for this step, when it has one: a venue wait is logged when it starts
   * and when its reason changes, not at every step (its alert is what reminds).
   */
  event?: { reason: string; data: Record<string, string | number> };
  /** An operator alert the order raises for this wait (its message is the alert's kind). */
  alert?: VenueAlert;
  /** The wait needs an operator's eye: the order is listed in the review queue until the exchange ends. */
  review?: boolean;
  /** A signed venue call of this step got past our credentials: a venue configuration alert is over. */
  credentialsAccepted?: boolean;
}

/**
 * The alert (its message is its kind) of a venue the service cannot use as configured: the adapter
 * cannot be built (EXCHANGE_URL, EXCHANGE_API_KEY or EXCHANGE_API_SECRET missing) or the venue
 * refuses our key, IP or signature. One alert for both: either way only the operator can fix it.
 */
export const VENUE_CONFIG_ALERT = "venue configuration error: needs an operator";

export interface VenueAlert {
  msg: string;
  data: Record<string, unknown>;
}

/**
 * What a venue needs of the service's own market, handed in by the order object so that adapters
 * never read the service's storage (imports point one way: objects → storage → adapters).
 */
export interface MarketView {
  /** The destination's network fee a float payout bears (the catalog's withdraw_fee). */
  withdrawFee(coin: string, network: string): Promise<string>;
  /** A pair's pricing inputs now, with the order's spread and markup (the simulated venue fills at it). */
  pricing(pair: PairRequest, spreadBps: number, markupBps: number, now: number): Promise<PricingInput>;
}

export interface ExchangeVenue {
  /** `key`: the exchange's ledger key; state kept between calls (venue legs) is filed under it. */
  execute(req: ExchangeRequest, key: string): Promise<ExchangeResult>;
}

/**
 * A spot venue traded leg by leg with intent-then-lookup (src/domain/venue-policy.ts decides when
 * each call is made). Every outcome is classified; nothing here retries a placement on its own
 * except after a -1021 clock-skew refusal, which the venue issues before the order reaches its
 * matching engine.
 */
export interface VenueFill {
  price: string;
  qty: string;
  commission: string;
  commissionAsset: string;
}

export interface LegExecution {
  symbol: string;
  side: "BUY" | "SELL";
  /** The venue's own id of the order, for its trades (absent in answers that omit it). */
  orderId?: number;
  /** Base asset bought or sold, and quote asset received or spent (before commission). */
  executedQty: string;
  quoteQty: string;
  /** Per-trade fills from the placement answer; a lookup (GET /api/v3/order) carries none. */
  fills: VenueFill[];
}

export type VenueOutcome =
  | { kind: "filled"; execution: LegExecution }
  | { kind: "pending" }
  | { kind: "not_found" }
  /** `expired`: a fill-or-kill limit order the book could not fill at its price: nothing traded. */
  | {
      kind: "rejected";
      reason: "filter" | "insufficient_balance" | "expired" | "other";
      code: number;
      message: string;
    }
  | { kind: "rate_limited"; retryAfterSeconds: number }
  | { kind: "clock_skew" }
  /** Our credentials or signature refused before the venue read the request: the operator's to fix. */
  | { kind: "config"; error: string }
  | { kind: "unknown"; error: string };

export interface VenueOrder {
  symbol: string;
  side: "BUY" | "SELL";
  params: LegParams;
}

export interface SpotVenue {
  /** Tradable markets with their filters (exchangeInfo), cached briefly. */
  markets(): Promise<ReadonlyMap<string, Market>>;
  /** Last price of a market, quote per base. */
  price(symbol: string): Promise<string>;
  place(order: VenueOrder, clientOrderId: string): Promise<VenueOutcome>;
  lookup(symbol: string, clientOrderId: string): Promise<VenueOutcome>;
  /** The per-trade fills (price, qty, commission) of an order; throws when the venue cannot say. */
  trades(symbol: string, orderId: number): Promise<VenueFill[]>;
}
