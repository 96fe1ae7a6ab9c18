import type { MarketView } from "../adapters/exchange/types";
import { kvLegStore } from "../adapters/exchange/venue-exchange";
import { type OrderAdapters, orderAdapters } from "../adapters/registry";
import type { Config } from "../config";
import type { OrderRecord } from "../domain/order";
import { loadCatalog } from "../storage/catalog";
import { pricingNow } from "../storage/market";

/** The market as the order's venue sees it: the catalog's withdraw fees and the stored prices. */
export function catalogMarket(env: Env, config: Config): MarketView {
  return {
    withdrawFee: async (coin, network) => {
      const row = (await loadCatalog(env.DB)).find((c) => c.coin === coin && c.network === network);
      if (!row) throw new Error(`${coin} on ${network} is not in the catalog`);
      return row.withdraw_fee;
    },
    pricing: async (pair, spreadBps, markupBps, now) =>
      (await pricingNow(env, config, pair, spreadBps, markupBps, now)).input,
  };
}

/**
 * An order's adapters, its venue legs kept in the order's storage (a test order's are simulated
 * whatever the modes; docs/test-mode.md).
 */
export function adaptersOf(env: Env, config: Config, kv: SyncKvStorage, r: OrderRecord): OrderAdapters {
  return orderAdapters(env, config, r, kvLegStore(kv), catalogMarket(env, config));
}
