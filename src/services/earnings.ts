// Earnings as the cabinet shows them (docs/earnings.md): fixed on each order when it completes
// (the order object, with storedUsdPrice), summed per day and coin from the order index.
import { csvLine } from "../domain/csv";
import { type EarningsSummary, summariseEarnings } from "../domain/earnings";
import { CHART_DAYS, dayBefore, type Overview, overview } from "../domain/overview";
import { completedOrders, ordersPerDay } from "../storage/order-search";
import type { D1Reads } from "../storage/session";

/** Earnings of the orders completed in [from, to), per UTC day and coin. */
export async function earningsBetween(
  db: D1Reads,
  partnerId: string,
  livemode: boolean,
  from: string,
  to: string,
): Promise<EarningsSummary> {
  return summariseEarnings(await completedOrders(db, partnerId, livemode, from, to));
}

/** The overview page's figures and chart, as of `now`. */
export async function partnerOverview(
  db: D1Reads,
  partnerId: string,
  livemode: boolean,
  now: number,
): Promise<Overview> {
  const from = dayBefore(now, CHART_DAYS - 1);
  const [counts, completed] = await Promise.all([
    ordersPerDay(db, partnerId, livemode, `${from}T00:00:00.000Z`),
    completedOrders(db, partnerId, livemode, `${from}T00:00:00.000Z`, new Date(now + 1).toISOString()),
  ]);
  return overview(counts, completed, now);
}

/** The earnings report as CSV: one line per UTC day and coin. */
export function earningsCsv(summary: EarningsSummary): string {
  const header = ["day", "coin", "orders", "markup", "markup_usd", "unpriced_orders"];
  return [header, ...summary.lines.map((l) => [l.day, l.coin, l.orders, l.markup, l.markup_usd, l.unpriced])]
    .map((fields) => csvLine(fields))
    .join("");
}
