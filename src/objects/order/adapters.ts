import type { MarketView } from "../../adapters/exchange/types";
import type { LegStore, VenueExchangeState } from "../../adapters/exchange/venue-exchange";
import { type OrderAdapters, orderAdapters } from "../../adapters/registry";
import type { Config } from "../../config";
import type { OrderRecord } from "../../domain/order";
import { loadCatalog } from "../../storage/catalog";
import { pricingNow } from "../../storage/market";
import type { SendsLedger } from "./sends-ledger";

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

/** An exchange's venue legs, kept in its row of the order's sends ledger. */
export function ledgerLegStore(ledger: SendsLedger): LegStore {
  return {
    get: (key) => ledger.progress<VenueExchangeState>(key) ?? undefined,
    put: (key, state) => ledger.saveProgress(key, state),
    number: (key) => ledger.number(key) ?? 1,
  };
}

/**
 * An order's adapters, its venue legs kept in the order's ledger (a test order's are simulated
 * whatever the modes; docs/test-mode.md).
 */
export function adaptersOf(env: Env, config: Config, ledger: SendsLedger, r: OrderRecord): OrderAdapters {
  return orderAdapters(env, config, r, ledgerLegStore(ledger), catalogMarket(env, config));
}
