// Earnings as the cabinet shows them (docs/earnings.md): fixed on each order when it completes
// (the order object, with storedUsdPrice), summed per day and coin from the order index.
import { type EarningsSummary, summariseEarnings } from "../domain/earnings";
import { completedOrders } from "../storage/order-search";

/** Earnings of the orders completed in [from, to), per UTC day and coin. */
export async function earningsBetween(
  db: D1Database,
  partnerId: string,
  from: string,
  to: string,
): Promise<EarningsSummary> {
  return summariseEarnings(await completedOrders(db, partnerId, from, to));
}
