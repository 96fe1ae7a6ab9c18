import { TtlCache } from "./ttl-cache";

/** A catalog row as stored in D1 (booleans as 0/1, amounts as decimal strings). */
export interface CurrencyRow {
  id: string;
  coin: string;
  network: string;
  name: string;
  is_active: number;
  is_deposit_enabled: number;
  is_withdraw_enabled: number;
  min_amount: string;
  max_amount: string;
  min_confirmations: number;
  decimals: number;
  is_memo: number;
  withdraw_fee: string;
  contract_address: string | null;
  explorer_tx_url: string | null;
  explorer_address_url: string | null;
  sort_order: number;
}

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
