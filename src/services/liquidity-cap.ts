import type { Config } from "../config";
import { payoutWithin, REGIONS, shardName } from "../domain/liquidity";
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
  region: string,
  livemode: boolean,
  background: (p: Promise<unknown>) => void,
): Promise<Decimal> {
  // Test orders neither reserve nor are refused for liquidity (src/services/liquidity.ts).
  if (!livemode) return priced.quote.max;
  const key: ShardKey = { coin: priced.pair.to.coin, network: priced.pair.to.network, region };
  let free: ShardFree;
  try {
    free = await freeFigures.get(
      shardName(key.coin, key.network, region),
      () => shard(env, key).free(key),
      background,
    );
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
  for (const region of REGIONS) freeFigures.delete(shardName(coin, network, region));
}
