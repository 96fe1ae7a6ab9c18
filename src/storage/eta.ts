/**
 * The pairs' completion times (migration 0042; docs/orders.md, "How long it takes"): summed by the
 * cron from the D1 order index, read by quotes from isolate memory.
 */

import { ETA_WINDOW_DAYS, ETA_WINDOW_ORDERS, type PairHistory } from "../domain/eta";
import { TtlCache } from "../lib/ttl-cache";
import type { D1Reads } from "./session";

/** The figures move only when the cron sums them again: a minute in isolate memory is plenty. */
const ETA_TTL_MS = 60_000;
const cache = new TtlCache<Map<string, PairHistory>>(ETA_TTL_MS, 1);

export const pairKey = (networkFrom: string, networkTo: string): string => `${networkFrom}>${networkTo}`;

/** Every pair's figures as the cron last summed them, keyed by pairKey; empty before its first run. */
export function loadPairEtas(db: D1Reads): Promise<Map<string, PairHistory>> {
  return cache.get("pairs", async () => {
    const { results } = await db
      .prepare("SELECT network_from, network_to, orders, p50_seconds, p90_seconds FROM pair_eta")
      .all<{
        network_from: string;
        network_to: string;
        orders: number;
        p50_seconds: number;
        p90_seconds: number;
      }>();
    return new Map(
      results.map((r) => [
        pairKey(r.network_from, r.network_to),
        { orders: r.orders, p50: r.p50_seconds, p90: r.p90_seconds },
      ]),
    );
  });
}

/**
 * Sums each network pair's completed live orders of the last ETA_WINDOW_DAYS (at most its newest
 * ETA_WINDOW_ORDERS): deposit seen → payout sent, p50 and p90 by nearest rank, in one statement
 * over the partial index orders_live_completed. Pairs with no such order are dropped.
 */
export async function refreshPairEtas(db: D1Database, now: number): Promise<void> {
  const since = new Date(now - ETA_WINDOW_DAYS * 86_400_000).toISOString();
  await db.batch([
    db.prepare("DELETE FROM pair_eta"),
    db
      .prepare(
        `INSERT INTO pair_eta (network_from, network_to, orders, p50_seconds, p90_seconds, updated_at)
         WITH timed AS (
           SELECT network_from, network_to,
             -- To the millisecond the times carry: julianday's float would make 1,000 s 1,000.00001.
             ROUND((julianday(completed_at) - julianday(deposit_seen_at)) * 86400.0, 3) AS s,
             ROW_NUMBER() OVER (PARTITION BY network_from, network_to ORDER BY completed_at DESC) AS newest
           FROM orders INDEXED BY orders_live_completed
           WHERE livemode = 1 AND status = 'completed' AND completed_at >= ?1 AND deposit_seen_at IS NOT NULL
         ), ranked AS (
           SELECT network_from, network_to, s,
             ROW_NUMBER() OVER (PARTITION BY network_from, network_to ORDER BY s) AS k,
             COUNT(*) OVER (PARTITION BY network_from, network_to) AS n
           FROM timed WHERE newest <= ?2
         ), summed AS (
           SELECT network_from, network_to, n,
             MIN(CASE WHEN k >= (n * 50 + 99) / 100 THEN s END) AS p50,
             MIN(CASE WHEN k >= (n * 90 + 99) / 100 THEN s END) AS p90
           FROM ranked GROUP BY network_from, network_to
         )
         -- Whole seconds, rounded up (no ceil(): SQLite's math functions are a build option).
         SELECT network_from, network_to, n,
           CAST(p50 AS INTEGER) + (p50 > CAST(p50 AS INTEGER)),
           CAST(p90 AS INTEGER) + (p90 > CAST(p90 AS INTEGER)),
           ?3
         FROM summed`,
      )
      .bind(since, ETA_WINDOW_ORDERS, new Date(now).toISOString()),
  ]);
  cache.clear();
}
