import { inRequestOrder, normalizeCoins, type PriceQuote } from "../../domain/prices";
import type { PriceSource } from "./types";

/**
 * Prices the STABLECOINS_PINNED coins at exactly "1" USD without asking `source`, and asks `source`
 * only for the rest (not at all when nothing is left). The wrapped source's errors pass through.
 */
export function withPinnedStablecoins(source: PriceSource, pinned: readonly string[]): PriceSource {
  const pinnedSet = new Set(normalizeCoins(pinned));
  if (pinnedSet.size === 0) return source;
  return {
    name: source.name,
    async fetchPrices(coins: readonly string[], now: number): Promise<PriceQuote[]> {
      const wanted = normalizeCoins(coins);
      const rest = wanted.filter((coin) => !pinnedSet.has(coin));
      const found = new Map<string, string>();
      for (const coin of wanted) if (pinnedSet.has(coin)) found.set(coin, "1");
      if (rest.length > 0) {
        for (const q of await source.fetchPrices(rest, now)) {
          if (!pinnedSet.has(q.coin)) found.set(q.coin, q.usd);
        }
      }
      return inRequestOrder(wanted, found);
    },
  };
}
