import type { Config } from "../config";
import { type DepositScheme, depositScheme, realPayoutRefusal } from "../domain/deposit";
import { checkAmountPrecision, checkWithinLimits } from "../domain/limits";
import type { Decimal } from "../domain/money";
import type { PairRequest, ResolvedPair } from "../domain/pairs";
import {
  type PairLimits,
  PairUnavailableError,
  type PricingInput,
  pairLimits,
  type Quote,
  quoteForward,
  quoteReverse,
} from "../domain/pricing";
import { testDepositScheme } from "../domain/test-mode";
import { TtlCache } from "../lib/ttl-cache";
import type { CurrencyRow } from "../storage/catalog";
import { pricingNow } from "../storage/market";
import { freePoolAddresses } from "../storage/orders";

export type RateType = "float" | "fixed";

export interface QuoteParams extends PairRequest {
  /** Amount to send; exactly one of amountFrom / amountTo, or neither (the pair's minimum). */
  amountFrom?: Decimal | undefined;
  /** Amount to receive (reverse quote). */
  amountTo?: Decimal | undefined;
  rateType: RateType;
}

export interface PricedQuote {
  pair: ResolvedPair;
  rateType: RateType;
  input: PricingInput;
  quote: Quote;
}

function requireLimits(limits: PairLimits): Extract<PairLimits, { ok: true }> {
  if (!limits.ok) throw new PairUnavailableError(limits.reason);
  return limits;
}

// Free pool addresses per network, for quotes only. A stale positive count is harmless (order
// creation claims an address atomically and answers pair_unavailable itself when the pool ran
// dry); a zero is never kept, so a pool the operator just loaded is offered at once.
const freePool = new TtlCache<number>(5_000, 64);

/** Where an order's deposit address comes from: the live keys, or the test keys for a test order. */
export function orderDepositScheme(config: Config, from: CurrencyRow, livemode: boolean): DepositScheme {
  const isMemo = from.is_memo === 1;
  return livemode
    ? depositScheme(from.network, isMemo, config.deposit)
    : testDepositScheme(from.network, isMemo, config.testDeposit, config.deposit);
}

/**
 * A pair is offered only if an order on it could be given a deposit address: an xpub or memo
 * address configured for the source network, or a free address in its pool; with real payouts,
 * only if that deposit is real too (realPayoutRefusal).
 */
async function requireDepositAddress(
  env: Env,
  config: Config,
  from: CurrencyRow,
  livemode: boolean,
): Promise<void> {
  const scheme = orderDepositScheme(config, from, livemode);
  if (scheme.kind === "none") throw new PairUnavailableError(scheme.reason);
  // Test orders never touch real money: the real-payout rule and the pools are live matters.
  if (!livemode) return;
  const refusal = realPayoutRefusal(from.network, scheme, config.PAYOUT_MODE, config.CHAIN_MODE);
  if (refusal) throw new PairUnavailableError(refusal);
  if (scheme.kind === "pool") {
    const free = await freePool.get(scheme.network, () => freePoolAddresses(env.DB, scheme.network));
    if (free === 0) {
      freePool.delete(scheme.network);
      throw new PairUnavailableError(`no free deposit address for ${scheme.network}`);
    }
  }
}

/**
 * The quote for a request: pair resolved against the catalog, fresh prices, the service spread of
 * the rate type plus the partner's markup, and the amount checked against the pair's limits.
 * Shared by GET /partner/rates and order creation, so both apply exactly the same rules.
 */
export async function priceQuote(
  env: Env,
  config: Config,
  params: QuoteParams,
  markupBps: number,
  now: number,
  /** False for a test key: the same prices, the test deposit keys (docs/test-mode.md). */
  livemode = true,
): Promise<PricedQuote> {
  const spreadBps = params.rateType === "fixed" ? config.SPREAD_FIXED_BPS : config.SPREAD_FLOAT_BPS;
  const { pair, input } = await pricingNow(env, config, params, spreadBps, markupBps, now, "new_order");
  await requireDepositAddress(env, config, pair.from, livemode);
  let quote: Quote;
  if (params.amountTo !== undefined) {
    checkAmountPrecision(params.amountTo, pair.to.decimals, pair.to.coin, "amount_to");
    quote = quoteReverse(input, params.amountTo);
  } else if (params.amountFrom !== undefined) {
    checkAmountPrecision(params.amountFrom, pair.from.decimals, pair.from.coin, "amount");
    quote = quoteForward(input, params.amountFrom);
  } else {
    quote = quoteForward(input, requireLimits(pairLimits(input)).min);
  }
  checkWithinLimits(quote.amountFrom, quote.min, quote.max, pair.from.coin);
  return { pair, rateType: params.rateType, input, quote };
}
