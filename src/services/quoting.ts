import type { Config } from "../config";
import { type DepositScheme, depositScheme, noDepositRefusal, realPayoutRefusal } from "../domain/deposit";
import { DomainError, type Refusal, refused } from "../domain/errors";
import { blockSeconds, type Eta, estimateEta, type PairHistory, pairEta, settleSeconds } from "../domain/eta";
import type { FeeTerms } from "../domain/fees";
import { checkAmountPrecision, limitRefusal } from "../domain/limits";
import { liveModeProblems } from "../domain/live-modes";
import { amountToMin, DEFAULT_MAX_SLIPPAGE_BPS } from "../domain/min-out";
import { type Decimal, parseDecimal, toJsonNumber } from "../domain/money";
import { venueRefusals } from "../domain/networks";
import { type AssetRef, assessPair, type ResolvedPair } from "../domain/pairs";
import { type PricingInput, pairLimits, type Quote, quoteForward, quoteReverse } from "../domain/pricing";
import { regionRefusals, restrictsAny } from "../domain/region-restrictions";
import { networkRefusals } from "../domain/service-status";
import { testDepositScheme } from "../domain/test-mode";
import { TtlCache } from "../lib/ttl-cache";
import { type CurrencyRow, loadCatalog } from "../storage/catalog";
import { loadPairEtas, pairKey } from "../storage/eta";
import { pricingOf } from "../storage/market";
import { freePoolAddresses } from "../storage/orders";
import { loadRegionRestrictions } from "../storage/region-restrictions";
import { loadServiceStatus } from "../storage/service-status";

export type RateType = "float" | "fixed";

export interface QuoteParams {
  from: AssetRef;
  to: AssetRef;
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
  /** How long the swap takes, deposit seen to payout sent (src/domain/eta.ts). */
  eta: Eta;
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
 * only if that deposit is real too (realPayoutRefusal). Returns why not, if not.
 */
async function depositAddressRefusal(
  env: Env,
  config: Config,
  from: CurrencyRow,
  livemode: boolean,
): Promise<string | null> {
  const scheme = orderDepositScheme(config, from, livemode);
  if (scheme.kind === "none") return scheme.reason;
  // Test orders never touch real money: the real-payout rule and the pools are live matters.
  if (!livemode) return null;
  const refusal = realPayoutRefusal(from.network, scheme, config.PAYOUT_MODE, config.CHAIN_MODE);
  if (refusal) return refusal;
  if (scheme.kind === "pool") {
    const free = await freePool.get(scheme.network, () => freePoolAddresses(env.DB, scheme.network));
    if (free === 0) {
      freePool.delete(scheme.network);
      return `no free deposit address for ${scheme.network}`;
    }
  }
  return null;
}

/**
 * Live money runs only with modes that agree (liveModeProblems): otherwise every live pair is
 * refused, the whole service at once, rather than running half-simulated. Test keys go on.
 */
function refuseMisconfiguredLive(config: Config): void {
  const problems = liveModeProblems(config);
  if (problems.length > 0)
    throw new DomainError(
      "service_misconfigured",
      `Live orders are off until the operator fixes the configuration: ${problems.join("; ")}.`,
    );
}

/** The terms a quote's fees are split by: its destination's payout fee, spread and markup. */
export const feeTermsOf = (input: PricingInput): FeeTerms => ({
  withdrawFee: input.to.withdrawFee,
  spreadBps: input.spreadBps,
  markupBps: input.markupBps,
  decimals: input.to.decimals,
});

/**
 * A quote's amount_to_min when it pays `amountTo` (src/domain/min-out.ts): a float rate's floor from
 * the partner's slippage bound; a fixed rate pays amount_to exactly.
 */
export function quoteFloor(
  priced: Pick<PricedQuote, "rateType" | "input">,
  amountTo: Decimal,
  slippageBps = DEFAULT_MAX_SLIPPAGE_BPS,
): Decimal {
  if (priced.rateType === "fixed") return amountTo;
  const { withdrawFee, decimals } = priced.input.to;
  return amountToMin(amountTo, parseDecimal(withdrawFee), slippageBps, decimals);
}

const pairRefusal = (reason: string): Refusal => ({
  code: "pair_unavailable",
  detail: `Pair unavailable: ${reason}.`,
});

/** An amount outside the limits, with the limits in both assets (what each would pay out). */
function limitsRefusal(input: PricingInput, quote: Quote, coin: string): Refusal | null {
  const outside = limitRefusal(quote.amountFrom, quote.min, quote.max, coin);
  if (!outside) return null;
  const to = (from: Decimal) => toJsonNumber(quoteForward(input, from).amountTo);
  return {
    ...outside,
    min_amount_from: toJsonNumber(quote.min),
    min_amount_to: to(quote.min),
    max_amount_from: toJsonNumber(quote.max),
    max_amount_to: to(quote.max),
  };
}

/**
 * The quote for a request: pair resolved against the catalog, fresh prices, the service spread of
 * the rate type plus the partner's markup, and the amount checked against the pair's limits.
 * Shared by GET /partner/rates and order creation, so both apply exactly the same rules. A request
 * that cannot be served is refused with every reason that applies (region, assets, pair, limits),
 * the most relevant first; the catalog, the region restrictions and the service status (a network
 * down) come from isolate caches.
 */
export async function priceQuote(
  env: Env,
  config: Config,
  params: QuoteParams,
  markupBps: number,
  now: number,
  /** False for a test key: the same prices, the test deposit keys (docs/test-mode.md). */
  livemode = true,
  /**
   * The end user's country (ISO 3166-1 alpha-2), when known; a function is asked only when some
   * region is restricted (reading `request.cf` has the runtime parse it, docs/performance.md).
   */
  endUserCountry: string | null | (() => string | null) = null,
): Promise<PricedQuote> {
  if (livemode) refuseMisconfiguredLive(config);
  const [catalog, restrictions, status, etas] = await Promise.all([
    loadCatalog(env.DB),
    loadRegionRestrictions(env.DB),
    loadServiceStatus(env.DB),
    loadPairEtas(env.DB),
  ]);
  let country = typeof endUserCountry === "function" ? null : endUserCountry;
  if (typeof endUserCountry === "function" && restrictsAny(restrictions)) country = endUserCountry();
  const assessed = assessPair(catalog, params.from, params.to, "new_order");
  if (!assessed.ok) {
    const coins = { from: params.from.coin?.toUpperCase(), to: params.to.coin?.toUpperCase() };
    throw refused([...regionRefusals(restrictions, country, coins), ...assessed.reasons]);
  }
  const { pair } = assessed;
  const reasons = [
    ...regionRefusals(restrictions, country, { from: pair.from.coin, to: pair.to.coin }),
    // Live orders only: a test order runs on its own SimChain, whatever the real chains do.
    ...(livemode ? networkRefusals(status, { from: pair.from.network, to: pair.to.network }, now) : []),
    // Only when the venue is the route's liquidity; a test order's venue is simulated.
    ...(livemode && config.EXCHANGE_MODE === "binance" ? venueRefusals(pair.to.network) : []),
  ];
  const spreadBps = params.rateType === "fixed" ? config.SPREAD_FIXED_BPS : config.SPREAD_FLOAT_BPS;
  const input = await pricingOf(env, config, pair, spreadBps, markupBps, now);
  const noDeposit = await depositAddressRefusal(env, config, pair.from, livemode);
  if (noDeposit) throw refused([...reasons, noDepositRefusal(noDeposit)]);
  const limits = pairLimits(input);
  if (!limits.ok) throw refused([...reasons, pairRefusal(limits.reason)]);
  let quote: Quote;
  if (params.amountTo !== undefined) {
    checkAmountPrecision(params.amountTo, pair.to.decimals, pair.to.coin, "amount_to");
    quote = quoteReverse(input, params.amountTo);
  } else if (params.amountFrom !== undefined) {
    checkAmountPrecision(params.amountFrom, pair.from.decimals, pair.from.coin, "amount");
    quote = quoteForward(input, params.amountFrom);
  } else {
    quote = quoteForward(input, limits.min);
  }
  const outside = limitsRefusal(input, quote, pair.from.coin);
  if (outside) reasons.push(outside);
  if (reasons.length > 0) throw refused(reasons);
  return { pair, rateType: params.rateType, input, quote, eta: etaOf(config, pair, etas) };
}

/** The pair's own completion times once it has enough of them, else the chain's estimate. */
function etaOf(config: Config, pair: ResolvedPair, etas: Map<string, PairHistory>): Eta {
  const estimate = estimateEta({
    confirmations: pair.from.min_confirmations,
    blockSeconds: blockSeconds(pair.from.network),
    settleSeconds: settleSeconds(pair.from.network),
    pollSeconds: config.CHAIN_POLL_SECONDS,
  });
  return pairEta(etas.get(pairKey(pair.from.network, pair.to.network)), estimate);
}
