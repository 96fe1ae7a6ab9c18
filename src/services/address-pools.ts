/**
 * The deposit-address pools (networks without public derivation, SOL; docs/networks.md, "Address
 * pools") as the operator sees them: every pool network of the catalog with its stock, whether it
 * is below the low-water mark, and the cron's alert before one runs out.
 */
import type { Config } from "../config";
import { type PoolStock, poolIsLow } from "../domain/address-pool";
import { type CurrencyRow, loadCatalog } from "../storage/catalog";
import { type PoolCounts, poolCounts } from "../storage/orders";
import { orderDepositScheme } from "./quoting";
import { clearServiceAlert, raiseServiceAlert } from "./service-alerts";

export interface PoolLevel extends PoolCounts {
  /** Unassigned addresses, held by a shard or not: what new orders can still be given. */
  free: number;
  /** Below ADDRESS_POOL_LOW_WATER: the operator is alerted. */
  low: boolean;
}

/** The networks whose live deposits draw from a pool: active rows taking deposits. */
export function poolNetworks(config: Config, catalog: readonly CurrencyRow[]): string[] {
  const rows = catalog.filter((r) => r.is_active === 1 && r.is_deposit_enabled === 1);
  return [
    ...new Set(rows.filter((r) => orderDepositScheme(config, r, true).kind === "pool").map((r) => r.network)),
  ];
}

export const stockOf = (c: Pick<PoolCounts, "available" | "reserved">): PoolStock => ({
  free: c.available + c.reserved,
  unreserved: c.available,
});

/** Every pool network of the catalog (an empty pool included) and any other network with a pool. */
export async function addressPoolLevels(env: Env, config: Config): Promise<PoolLevel[]> {
  const [catalog, counts] = await Promise.all([loadCatalog(env.DB), poolCounts(env.DB)]);
  const byNetwork = new Map(counts.map((c) => [c.network, c]));
  for (const network of poolNetworks(config, catalog))
    if (!byNetwork.has(network))
      byNetwork.set(network, { network, available: 0, reserved: 0, assigned: 0, shards: [] });
  return [...byNetwork.values()]
    .sort((a, b) => a.network.localeCompare(b.network))
    .map((c) => {
      const stock = stockOf(c);
      return { ...c, free: stock.free, low: poolIsLow(stock, config.ADDRESS_POOL_LOW_WATER) };
    });
}

/** The alert of a pool network (GET /admin/v1/alerts, under this subject). */
export const poolAlertSubject = (network: string) => `address-pool:${network}`;
export const POOL_ALERT_KIND = "address_pool_low";

/**
 * Cron: a pool network of the catalog below the low-water mark raises its alert (reminded while it
 * stays low), one back above it clears it. Networks no longer drawing from a pool are not watched.
 */
export async function watchAddressPools(env: Env, config: Config, now: number): Promise<void> {
  const catalog = await loadCatalog(env.DB);
  const watched = new Set(poolNetworks(config, catalog));
  for (const p of await addressPoolLevels(env, config)) {
    if (!watched.has(p.network)) continue;
    const subject = poolAlertSubject(p.network);
    if (!p.low) {
      await clearServiceAlert(env.DB, subject, POOL_ALERT_KIND, now);
      continue;
    }
    const left = p.free === 0 ? "empty: every new order is refused" : `low: ${p.free} unassigned left`;
    await raiseServiceAlert(
      env.DB,
      subject,
      POOL_ALERT_KIND,
      `${p.network} deposit-address pool ${left} (low water ${config.ADDRESS_POOL_LOW_WATER}); load more with \`npm run cli -- pool add ${p.network} …\``,
      { network: p.network, free: p.free, unreserved: p.available, low_water: config.ADDRESS_POOL_LOW_WATER },
      now,
    );
  }
}
