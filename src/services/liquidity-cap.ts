import type { Config } from "../config";
import { ledgerName, payoutWithin, REGIONS, shardName } from "../domain/liquidity";
import { Dec, type Decimal } from "../domain/money";
import { largestAmountFrom } from "../domain/pricing";
import { SwrCache } from "../lib/swr-cache";
import { type ShardFree, type ShardKey, shard } from "../objects/liquidity-shard";
import type { PricedQuote } from "./quoting";

/**
 * How long a quote trusts its region's free figure before reloading it in the background
 * (docs/liquidity.md, "Quotes"). "Not limited" (null) is cached the same way, so a coin without a
 * balance costs a quote one shard call per isolate and FREE_CACHE_MS.
 */
export const FREE_CACHE_MS = 5_000;

const freeFigures = new SwrCache<ShardFree>(FREE_CACHE_MS, 512);

/**
 * Coins a shard last answered "not limited" (null) for, by when that answer came. "Not limited"
 * is the coin's ledger's answer, the same in every region, so while it is fresh a quote of the
 * coin needs no region and does not read `request.cf` (its parse was 4–11 % of a quote's CPU,
 * docs/performance.md). A limited figure from any region, or a balance set here, ends it.
 */
const unlimitedSince = new Map<string, number>();
/** Counts forgetQuotedFree calls: an answer loaded across one is not remembered as "not limited". */
let forgets = 0;

function unlimitedNow(coin: string, now: number): boolean {
  const since = unlimitedSince.get(coin);
  return since !== undefined && since <= now && now - since < FREE_CACHE_MS;
}

async function loadFree(env: Env, key: ShardKey): Promise<ShardFree> {
  const before = forgets;
  const free = await shard(env, key).free(key);
  const coin = ledgerName(key.coin, key.network);
  if (free !== null) unlimitedSince.delete(coin);
  else if (before === forgets) {
    if (unlimitedSince.size >= 512) unlimitedSince.clear();
    unlimitedSince.set(coin, Date.now());
  }
  return free;
}

/**
 * GET /partner/rates' max_amount: the pair's maximum, capped at the largest amount_from whose
 * payout (plus the float margin) the caller's region can still promise. Never waits on the shard
 * except for the first quote of a coin in this isolate; without any figure (the shard unreachable
 * on that first call) the pair's maximum stands: order creation still refuses what the region
 * cannot cover.
 */
export async function quotedMaximum(
  env: Env,
  config: Config,
  priced: PricedQuote,
  /** The caller's region: asked only for a coin that is limited. */
  regionOfCaller: () => string,
  livemode: boolean,
  background: (p: Promise<unknown>) => void,
): Promise<Decimal> {
  // Test orders neither reserve nor are refused for liquidity (src/services/liquidity.ts).
  if (!livemode) return priced.quote.max;
  const { coin, network } = priced.pair.to;
  if (unlimitedNow(ledgerName(coin, network), Date.now())) return priced.quote.max;
  const region = regionOfCaller();
  const key: ShardKey = { coin, network, region };
  let free: ShardFree;
  try {
    free = await freeFigures.get(shardName(coin, network, region), () => loadFree(env, key), background);
  } catch (err) {
    console.error(
      JSON.stringify({ level: "warn", msg: "liquidity figure unavailable for a quote", error: String(err) }),
    );
    return priced.quote.max;
  }
  if (free === null) return priced.quote.max;
  const payout = payoutWithin(new Dec(free), priced.rateType, config.SPREAD_FLOAT_BPS);
  return Dec.min(priced.quote.max, largestAmountFrom(priced.input, payout));
}

/** A balance changed: this isolate's quotes ask the coin's shards again at once. */
export function forgetQuotedFree(coin: string, network: string): void {
  forgets++;
  unlimitedSince.delete(ledgerName(coin, network));
  for (const region of REGIONS) freeFigures.delete(shardName(coin, network, region));
}
