import type { CurrencyRow } from "../domain/currency";
import { TtlCache } from "../lib/ttl-cache";
import type { D1Reads } from "./session";

export type { CurrencyRow };

const CATALOG_TTL_MS = 5_000;
const cache = new TtlCache<CurrencyRow[]>(CATALOG_TTL_MS, 4);

/** Every catalog row, active or not, in display order; cached in isolate memory for a few seconds. */
export function loadCatalog(db: D1Reads): Promise<CurrencyRow[]> {
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

const COLUMNS = [
  "id",
  "coin",
  "network",
  "name",
  "is_active",
  "is_deposit_enabled",
  "is_withdraw_enabled",
  "min_amount",
  "max_amount",
  "min_confirmations",
  "decimals",
  "is_memo",
  "withdraw_fee",
  "contract_address",
  "explorer_tx_url",
  "explorer_address_url",
  "sort_order",
] as const satisfies readonly (keyof CurrencyRow)[];

/** One row, read from D1 (never the cache: an edit must start from what is stored). */
export function getCurrency(db: D1Database, id: string): Promise<CurrencyRow | null> {
  return db
    .prepare(`SELECT ${COLUMNS.join(", ")} FROM currencies WHERE id = ?`)
    .bind(id)
    .first<CurrencyRow>();
}

/** Whether any order names this row on either side (its decimals are then frozen). */
export async function currencyInUse(
  db: D1Database,
  row: Pick<CurrencyRow, "coin" | "network">,
): Promise<boolean> {
  const hit = await db
    .prepare(
      `SELECT 1 FROM orders WHERE (coin_from = ?1 AND network_from = ?2) OR (coin_to = ?1 AND network_to = ?2) LIMIT 1`,
    )
    .bind(row.coin, row.network)
    .first();
  return hit !== null;
}

/** INSERT of a new row, for a batch with its audit entry. */
export function insertCurrencyStatement(db: D1Database, row: CurrencyRow, at: string): D1PreparedStatement {
  const names = [...COLUMNS, "created_at", "updated_at"];
  return db
    .prepare(`INSERT INTO currencies (${names.join(", ")}) VALUES (${names.map(() => "?").join(", ")})`)
    .bind(...COLUMNS.map((c) => row[c]), at, at);
}

/** UPDATE of every settable column, for a batch with its audit entry. */
export function updateCurrencyStatement(db: D1Database, row: CurrencyRow, at: string): D1PreparedStatement {
  const settable = COLUMNS.filter((c) => c !== "id" && c !== "coin" && c !== "network");
  return db
    .prepare(
      `UPDATE currencies SET ${settable.map((c) => `${c} = ?`).join(", ")}, updated_at = ? WHERE id = ?`,
    )
    .bind(...settable.map((c) => row[c]), at, row.id);
}
