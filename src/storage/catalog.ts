import type { CurrencyRow } from "../domain/currency";
import { TtlCache } from "./ttl-cache";

export type { CurrencyRow };

const CATALOG_TTL_MS = 5_000;
const cache = new TtlCache<CurrencyRow[]>(CATALOG_TTL_MS, 4);

/** Every catalog row, active or not, in display order; cached in isolate memory for a few seconds. */
export function loadCatalog(db: D1Database): Promise<CurrencyRow[]> {
  return cache.get("all", async () => {
    const { results } = await db
      .prepare(
        `SELECT id, coin, network, name, is_active, is_deposit_enabled, is_withdraw_enabled, min_amount, max_amount,
                min_confirmations, decimals, is_memo, withdraw_fee, contract_address, explorer_tx_url,
                explorer_address_url, sort_order
           FROM currencies ORDER BY sort_order, coin, network`,
      )
      .all<CurrencyRow>();
    return results;
  });
}

/** Called after an operator edit so this isolate serves the change at once. */
export function invalidateCatalog(): void {
  cache.clear();
}
