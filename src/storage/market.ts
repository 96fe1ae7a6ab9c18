/**
 * The market as the service sees it now: the catalog and fresh stored prices, and the pricing
 * inputs of a pair made from them. Below services (DESIGN.md §7) because the order object and the
 * simulated venue price with it too, and data flows one way.
 */
import { createPriceSource, type PriceSource } from "../adapters/prices";
import type { Config } from "../config";
import { DomainError } from "../domain/errors";
import { parseDecimal, toDecimalString } from "../domain/money";
import type { OrderRecord } from "../domain/order";
import { type PairPurpose, type PairRequest, type ResolvedPair, resolvePair } from "../domain/pairs";
import type { PricedSide, PricingInput } from "../domain/pricing";
import { refundAmount } from "../domain/settlement";
import { type CurrencyRow, loadCatalog } from "./catalog";
import { loadPrices, type PriceRow, upsertPrices } from "./prices";

/** How old a simulated price may get before a read refreshes it (dev has no cron). */
const SIMULATED_REFRESH_MS = 60_000;
/** Retry-After for a stale price: the next cron refresh is at most a minute away. */
const STALE_RETRY_AFTER_S = 60;

/** Fetches prices for every catalog coin from the configured source and stores them. */
export async function refreshPrices(
  env: Env,
  config: Config,
  now: number,
  source: PriceSource | null = createPriceSource(config),
): Promise<number> {
  if (!source) return 0;
  const coins = [...new Set((await loadCatalog(env.DB)).map((r) => r.coin))];
  const quotes = await source.fetchPrices(coins, now);
  await upsertPrices(env.DB, quotes, source.name, now);
  return quotes.length;
}

let simulatedRefresh: Promise<number> | null = null;

/**
 * Stored prices. The simulated source is pure and local, so a read that finds it older than a
 * minute refreshes it on the spot: `wrangler dev` never fires the cron by itself.
 */
export async function currentPrices(env: Env, config: Config, now: number): Promise<Map<string, PriceRow>> {
  const prices = await loadPrices(env.DB);
  if (config.PRICE_SOURCE !== "simulated") return prices;
  const oldest = Math.min(
    ...[...prices.values()].map((p) => Date.parse(p.updated_at)),
    prices.size ? now : 0,
  );
  if (now - oldest < SIMULATED_REFRESH_MS) return prices;
  simulatedRefresh ??= refreshPrices(env, config, now).finally(() => {
    simulatedRefresh = null;
  });
  await simulatedRefresh;
  return loadPrices(env.DB);
}

/** A coin's USD price, refusing one older than PRICE_MAX_AGE_SECONDS. */
export function freshUsdPrice(
  prices: ReadonlyMap<string, PriceRow>,
  coin: string,
  now: number,
  config: Config,
): string {
  return freshPriceRow(prices, coin, now, config).usd;
}

function freshPriceRow(
  prices: ReadonlyMap<string, PriceRow>,
  coin: string,
  now: number,
  config: Config,
): PriceRow {
  const row = prices.get(coin);
  const age = row ? now - Date.parse(row.updated_at) : Number.POSITIVE_INFINITY;
  if (!row || !(age <= config.PRICE_MAX_AGE_SECONDS * 1000)) {
    throw new DomainError(
      "prices_stale",
      `No fresh market price for ${coin}; quoting is paused until prices update.`,
      STALE_RETRY_AFTER_S,
    );
  }
  return row;
}

function pricedSide(row: CurrencyRow, usdPrice: string): PricedSide {
  return {
    coin: row.coin,
    network: row.network,
    decimals: row.decimals,
    minAmount: row.min_amount,
    maxAmount: row.max_amount,
    withdrawFee: row.withdraw_fee,
    usdPrice,
  };
}

/**
 * The pair and its pricing inputs at this moment: fresh prices, the given spread and markup. By
 * default for an order that already exists (its networks are known; the operator's switches do not
 * apply to it); quotes and order creation pass "new_order".
 */
export async function pricingNow(
  env: Env,
  config: Config,
  req: PairRequest,
  spreadBps: number,
  markupBps: number,
  now: number,
  purpose: PairPurpose = "existing_order",
): Promise<{ pair: ResolvedPair; input: PricingInput }> {
  const pair = resolvePair(await loadCatalog(env.DB), req, purpose);
  return { pair, input: await pricingOf(env, config, pair, spreadBps, markupBps, now) };
}

interface KeptInput {
  fromPrice: PriceRow;
  toPrice: PriceRow;
  input: PricingInput;
}

/** Past this many spread/markup pairs for one pair of rows, that pair's inputs start over. */
const MAX_KEPT_PER_PAIR = 64;

/**
 * The input last made per catalog row pair (the rows live as long as the isolate's catalog load,
 * src/storage/catalog.ts), then spread and markup, with the price rows it was made from. The same
 * rows, prices, spread and markup give the same object, by which the quote math remembers the
 * pair's model and limits (src/domain/pricing.ts); new price rows (a reload, every few seconds)
 * replace it, so nothing is priced from rows the price cache no longer serves.
 */
const keptInputs = new WeakMap<CurrencyRow, WeakMap<CurrencyRow, Map<string, KeptInput>>>();

/** The pricing inputs of a pair already resolved: fresh prices, the given spread and markup. */
export async function pricingOf(
  env: Env,
  config: Config,
  pair: ResolvedPair,
  spreadBps: number,
  markupBps: number,
  now: number,
): Promise<PricingInput> {
  const prices = await currentPrices(env, config, now);
  const fromPrice = freshPriceRow(prices, pair.from.coin, now, config);
  const toPrice = freshPriceRow(prices, pair.to.coin, now, config);
  let byTo = keptInputs.get(pair.from);
  if (byTo === undefined) {
    byTo = new WeakMap();
    keptInputs.set(pair.from, byTo);
  }
  let kept = byTo.get(pair.to);
  if (kept === undefined) {
    kept = new Map();
    byTo.set(pair.to, kept);
  }
  const terms = `${spreadBps}:${markupBps}`;
  const last = kept.get(terms);
  if (last?.fromPrice === fromPrice && last.toPrice === toPrice) return last.input;
  const input: PricingInput = {
    from: pricedSide(pair.from, fromPrice.usd),
    to: pricedSide(pair.to, toPrice.usd),
    spreadBps,
    markupBps,
  };
  if (kept.size >= MAX_KEPT_PER_PAIR) kept.clear();
  kept.set(terms, { fromPrice, toPrice, input });
  return input;
}

/**
 * What a refund of `amount` (the order's deposit by default) pays now: less the source coin's
 * current withdraw fee (a wrong-network deposit's: its `asset`'s). The partner's view prices its refund action with it; a refund decided
 * without a price shown (an automatic one) is frozen with it when it is first sent.
 */
export async function refundAmountNow(
  db: D1Database,
  r: OrderRecord,
  amount = r.amountFromReceived,
  asset: { coin: string; network: string; decimals: number } = {
    coin: r.coinFrom,
    network: r.networkFrom,
    decimals: r.decimalsFrom,
  },
): Promise<string | null> {
  if (amount === null) return null;
  const row = (await loadCatalog(db)).find((c) => c.coin === asset.coin && c.network === asset.network);
  return toDecimalString(refundAmount(parseDecimal(amount), row?.withdraw_fee ?? "0", asset.decimals));
}
