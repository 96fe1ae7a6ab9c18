import type { ExchangeRequest, ExchangeResult, ExchangeVenue } from "../../adapters/exchange/types";
import type { Config } from "../../config";
import { exchangeCover, LIQUIDITY_WAIT_FIRST_MS, liquidityWait } from "../../domain/liquidity";
import { Dec, type Decimal, toDecimalString } from "../../domain/money";
import type { OrderRecord } from "../../domain/order";
import { quoteForward } from "../../domain/pricing";
import { pricingNow } from "../../storage/market";
import { keyOf, type Reservation, shard } from "../liquidity-shard";
import { RESERVED } from "./liquidity";

/**
 * The exchange-time liquidity check (docs/liquidity.md, "At exchange time"): before a float order's
 * venue is called, its payout at the current price is compared with what its shard holds for it.
 * Beyond the reservation the shard is asked to extend it; when it cannot, the venue is not called
 * and the exchange answers `pending` (the order stays `exchanging`, no attempt is counted) until a
 * later retry finds the liquidity. Orders that reserved nothing (test orders, coins not limited at
 * creation) and fixed-rate orders get the venue itself: no pricing, no shard call. A widget order
 * (its reservation taken at the deposit, which the shard may have refused) is always checked, fixed
 * ones against their quoted payout.
 */
export interface LiquidityWaitDeps {
  env: Env;
  config: Config;
  order: OrderRecord;
  /** The order object's storage: the wait's state and the reservation as last extended. */
  kv: SyncKvStorage;
  /** The order object's operator alert. */
  alert(msg: string, data: Record<string, unknown>): void;
}

interface WaitState {
  since: number;
  waits: number;
}

const waitKey = (exchangeKey: string) => `liquidity_wait:${exchangeKey}`;

/**
 * A fixed order's payout is the amount it reserved (the service carries any difference on the
 * venue), so it can never need more than its reservation: it is not wrapped unless that
 * reservation waited for the deposit.
 */
export function withLiquidityWait(venue: ExchangeVenue, deps: LiquidityWaitDeps): ExchangeVenue {
  const { order } = deps;
  const checked =
    order.liquidityAtDeposit === true ||
    (order.rateType !== "fixed" && order.liquidityReserved !== undefined);
  if (!order.liquidityRegion || !checked) return venue;
  return {
    async execute(req, key) {
      const waiting = await checkLiquidity(deps, order.liquidityRegion as string, req, key);
      return waiting ?? venue.execute(req, key);
    },
  };
}

/**
 * The payout the exchange would produce now: the simulated venue's fill, the quote's pricing; a
 * fixed order's is its quoted amount.
 */
async function payoutNow(deps: LiquidityWaitDeps, req: ExchangeRequest, now: number): Promise<Decimal> {
  if (deps.order.rateType === "fixed") return new Dec(deps.order.amountToExpected);
  const pair = {
    coinFrom: req.coinFrom,
    networkFrom: req.networkFrom,
    coinTo: req.coinTo,
    networkTo: req.networkTo,
  };
  const { input } = await pricingNow(deps.env, deps.config, pair, req.spreadBps, req.markupBps, now);
  return quoteForward(input, new Dec(req.amountFrom)).amountTo;
}

/** null: go on to the venue; else the `pending` answer of an order that waits. */
async function checkLiquidity(
  deps: LiquidityWaitDeps,
  region: string,
  req: ExchangeRequest,
  key: string,
): Promise<ExchangeResult | null> {
  const { env, order, kv } = deps;
  const now = Date.now();
  let payout: Decimal;
  try {
    payout = await payoutNow(deps, req, now);
  } catch {
    // No price to judge by: the venue meets the same error (or fills at its own market) and
    // answers for itself.
    return null;
  }
  const reserved = new Dec(kv.get<string>(RESERVED) ?? order.liquidityReserved ?? 0);
  const cover = exchangeCover(payout, reserved);
  if (cover.kind === "proceed") return null;
  const shardKey = keyOf(order, region);
  let answer: Reservation;
  try {
    answer = await shard(env, shardKey).extend(shardKey, order.id, toDecimalString(cover.to));
  } catch (err) {
    return {
      status: "pending",
      retryAt: now + LIQUIDITY_WAIT_FIRST_MS,
      reason: `liquidity check failed: ${String(err)}`,
    };
  }
  if (answer.ok) {
    kv.put(RESERVED, answer.reserved ?? toDecimalString(cover.to));
    kv.delete(waitKey(key));
    return null;
  }
  const state = kv.get<WaitState>(waitKey(key)) ?? { since: now, waits: 0 };
  const wait = liquidityWait(state.waits);
  const retryAt = now + wait.retryInMs;
  kv.put(waitKey(key), { since: state.since, waits: state.waits + 1 } satisfies WaitState);
  const data = {
    coin: order.coinTo,
    network: order.networkTo,
    payout: toDecimalString(payout),
    reserved: toDecimalString(reserved),
    shortfall: toDecimalString(cover.by),
    free: answer.free,
    retry_at: new Date(retryAt).toISOString(),
  };
  if (wait.alert)
    deps.alert("order waits for liquidity: its payout exceeds what the coin can pay; raise the balance", {
      ...data,
      since: new Date(state.since).toISOString(),
    });
  return {
    status: "pending",
    retryAt,
    reason: "awaiting_liquidity",
    event: { reason: "awaiting_liquidity", data: { ...data, waits: state.waits + 1 } },
  };
}
