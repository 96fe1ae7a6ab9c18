/**
 * Allowance arithmetic for liquidity (docs/liquidity.md): the per-coin ledger hands allowance to
 * regional shards, shards reserve it for orders. Pure functions over decimals; the objects that
 * hold the figures live in src/objects/liquidity-*.ts.
 */
import { refused } from "./errors";
import { Dec, type Decimal, toDecimalString, toJsonNumber } from "./money";
import type { RateType } from "./order";
import type { OrderStatus } from "./order-state";

const ZERO = new Dec(0);
const BPS = 10_000;

/** A ledger grants at least this share of what it still has free, so a shard refills rarely. */
export const GRANT_SHARE = new Dec("0.5");

/** What a coin can still hand out: never negative (a balance lowered below the grants gives 0). */
export function available(balance: Decimal, granted: Decimal, paid: Decimal): Decimal {
  const free = balance.minus(paid).minus(granted);
  return free.isNegative() ? ZERO : free;
}

/**
 * How much a ledger grants a shard that asks for `requested`: at least the request (when it can),
 * else at least GRANT_SHARE of what is free, never more than is free.
 */
export function grantSize(free: Decimal, requested: Decimal): Decimal {
  const want = Dec.max(requested, free.times(GRANT_SHARE));
  return Dec.min(free, want);
}

/**
 * Each region's shard aims to hold TARGET_SHARE of the coin's balance as free allowance: below a
 * quarter of that (low water) it asks its ledger for more in the background; above twice that
 * (high water) it gives the surplus back, so a quiet region does not sit on what another needs.
 */
export const TARGET_SHARE = new Dec("0.25");

export interface Watermarks {
  target: Decimal;
  low: Decimal;
  high: Decimal;
}

export function watermarks(balance: Decimal): Watermarks {
  const target = balance.times(TARGET_SHARE);
  return { target, low: target.div(4), high: target.times(2) };
}

/** What a shard with `free` allowance should do in the background: refill or return, to the target. */
export type Rebalance = { kind: "refill" | "return"; amount: Decimal } | null;

export function rebalanceStep(free: Decimal, marks: Watermarks): Rebalance {
  if (free.lt(marks.low)) return { kind: "refill", amount: marks.target.minus(free) };
  if (free.gt(marks.high)) return { kind: "return", amount: free.minus(marks.target) };
  return null;
}

/** What a shard can still promise: its allowance less its reservations, never negative. */
export function shardFree(allowance: Decimal, reserved: Decimal): Decimal {
  const free = allowance.minus(reserved);
  return free.isNegative() ? ZERO : free;
}

/**
 * What an order reserves of its destination coin: the expected payout, for a float order plus the
 * float spread as a margin for the price moving until the exchange (a fixed order's payout is fixed).
 */
export function reservationFor(amountTo: Decimal, rateType: RateType, floatSpreadBps: number): Decimal {
  return rateType === "fixed" ? amountTo : amountTo.times(new Dec(BPS + floatSpreadBps)).div(BPS);
}

/** The largest payout (amount_to) whose reservation fits in `free`: the inverse of reservationFor. */
export function payoutWithin(free: Decimal, rateType: RateType, floatSpreadBps: number): Decimal {
  return rateType === "fixed" ? free : free.times(BPS).div(BPS + floatSpreadBps);
}

/** The largest amount_from whose reservation fits in `free` at `rate` (amount_to per amount_from). */
export function maxAmountFrom(
  free: Decimal,
  rate: Decimal,
  rateType: RateType,
  floatSpreadBps: number,
): Decimal {
  if (!rate.gt(0)) return ZERO;
  return payoutWithin(free, rateType, floatSpreadBps).div(rate);
}

/**
 * What a status change means for the order's reservation: take it (a widget order's deposit was
 * seen), give it back, or turn it into a payout.
 */
export type LiquidityStep = "reserve" | "release" | "settle";

/** The step a transition leaves to send, if any; a promise ends (release or settle) only once. */
export function liquidityStepOf(
  previous: OrderStatus,
  next: { status: OrderStatus; liquidityAtDeposit?: true },
): LiquidityStep | null {
  if (next.liquidityAtDeposit && previous === "waiting_deposit" && next.status === "confirming")
    return "reserve";
  return liquidityStep(previous) === null ? liquidityStep(next.status) : null;
}

export function liquidityStep(status: OrderStatus): LiquidityStep | null {
  switch (status) {
    case "completed":
      return "settle";
    case "expired":
    case "refunding":
    case "refunded":
    case "failed":
      return "release";
    default:
      return null;
  }
}

/** The 422 an order gets when its region cannot promise its payout; its item carries the maximum in both coins. */
export function insufficientLiquidity(coin: string, maxTo: Decimal, maxFrom: Decimal, coinFrom: string) {
  const detail = `Not enough ${coin} liquidity for this order: at most ${toDecimalString(maxTo)} ${coin} can be promised now (amount_from up to ${toDecimalString(maxFrom)} ${coinFrom}).`;
  return refused([
    {
      code: "insufficient_liquidity",
      detail,
      max_amount_from: toJsonNumber(maxFrom),
      max_amount_to: toJsonNumber(maxTo),
    },
  ]);
}

/**
 * The region a request belongs to: its Cloudflare continent, else one default region. Each region
 * has its own shard, placed near it with a location hint.
 */
export const DEFAULT_REGION = "default";
const HINTS: Record<string, DurableObjectLocationHint> = {
  EU: "weur",
  NA: "enam",
  SA: "sam",
  AS: "apac",
  OC: "oc",
  AF: "afr",
};

/** Every region a shard can serve. */
export const REGIONS: readonly string[] = [...Object.keys(HINTS), DEFAULT_REGION];

export function regionOf(continent: unknown): string {
  return typeof continent === "string" && continent in HINTS ? continent : DEFAULT_REGION;
}

export function locationHintOf(region: string): DurableObjectLocationHint | undefined {
  return HINTS[region];
}

/** Ledger and shard object names: one ledger per coin on a network, one shard per region of it. */
export const ledgerName = (coin: string, network: string) => `${coin}:${network}`;
export const shardName = (coin: string, network: string, region: string) => `${coin}:${network}:${region}`;

/**
 * A float order at exchange time (docs/liquidity.md, "At exchange time"): the payout the exchange
 * would produce now against what the order holds in its shard. Within the reservation it proceeds;
 * beyond it, the shard must first raise the reservation to the payout (`to`), else the order waits.
 */
export type ExchangeCover = { kind: "proceed" } | { kind: "extend"; to: Decimal; by: Decimal };

export function exchangeCover(payout: Decimal, reserved: Decimal): ExchangeCover {
  return payout.lte(reserved)
    ? { kind: "proceed" }
    : { kind: "extend", to: payout, by: payout.minus(reserved) };
}

/** The first retry of an order waiting for liquidity, doubling up to LIQUIDITY_WAIT_MAX_MS. */
export const LIQUIDITY_WAIT_FIRST_MS = 60_000;
export const LIQUIDITY_WAIT_MAX_MS = 15 * 60_000;

/**
 * What an order does when the shard could not extend its reservation: retry after a back-off
 * (1, 2, 4, 8, then every 15 minutes), and alert the operator only when the wait begins.
 */
export function liquidityWait(waitsSoFar: number): { retryInMs: number; alert: boolean } {
  const retryInMs = Math.min(LIQUIDITY_WAIT_FIRST_MS * 2 ** Math.min(waitsSoFar, 10), LIQUIDITY_WAIT_MAX_MS);
  return { retryInMs, alert: waitsSoFar === 0 };
}
