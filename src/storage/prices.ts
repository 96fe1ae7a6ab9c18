import type { PriceQuote } from "../domain/prices";
import { TtlCache } from "../lib/ttl-cache";

export interface PriceRow {
  coin: string;
  usd: string;
  source: string;
  updated_at: string;
}

const PRICES_TTL_MS = 5_000;
const cache = new TtlCache<Map<string, PriceRow>>(PRICES_TTL_MS, 4);

/** Newest stored price per coin; cached in isolate memory for a few seconds. */
export function loadPrices(db: D1Database): Promise<Map<string, PriceRow>> {
  return cache.get("all", async () => {
    const { results } = await db.prepare("SELECT coin, usd, source, updated_at FROM prices").all<PriceRow>();
    return new Map(results.map((r) => [r.coin, r]));
  });
}

export async function upsertPrices(
  db: D1Database,
  quotes: readonly PriceQuote[],
  source: string,
  now: number,
): Promise<void> {
  if (quotes.length === 0) return;
  const at = new Date(now).toISOString();
  const stmt = db.prepare(
    `INSERT INTO prices (coin, usd, source, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (coin) DO UPDATE SET usd = excluded.usd, source = excluded.source, updated_at = excluded.updated_at`,
  );
  await db.batch(quotes.map((q) => stmt.bind(q.coin, q.usd, source, at)));
  cache.clear();
}

/**
 * A coin's newest stored USD price, however old (the cron refreshes it every minute); null when
 * none is stored. What an order's earnings are valued at when it completes (docs/earnings.md).
 */
export async function storedUsdPrice(db: D1Database, coin: string): Promise<string | null> {
  return (await loadPrices(db)).get(coin)?.usd ?? null;
}
