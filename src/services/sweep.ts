import { type OverdueCursor, overdueWaitingOrders } from "../storage/orders";

/** Orders are given this long past their deadline before the sweep assumes the alarm was lost. */
const GRACE_MS = 60_000;

export interface SweepLimits {
  batch: number;
  /** Bounds one cron run; whatever is left is picked up by the next minute's run. */
  maxBatches: number;
}

const DEFAULT_LIMITS: SweepLimits = { batch: 100, maxBatches: 10 };

/**
 * Cron: wakes orders whose expiry alarm should have fired but did not. Returns how many. Pages
 * forward through the overdue orders, so an order its tick could not move on (a chain read failing
 * at the deadline keeps it waiting) is woken once per run and never hides the ones after it.
 */
export async function sweepLostAlarms(
  env: Env,
  now: number,
  limits: SweepLimits = DEFAULT_LIMITS,
): Promise<number> {
  const before = new Date(now - GRACE_MS).toISOString();
  let woken = 0;
  let after: OverdueCursor | undefined;
  for (let batch = 0; batch < limits.maxBatches; batch++) {
    const page = await overdueWaitingOrders(env.DB, before, limits.batch, after);
    await Promise.all(page.map(({ id }) => env.ORDERS.getByName(id).tick()));
    woken += page.length;
    after = page.at(-1);
    if (page.length < limits.batch) break;
  }
  return woken;
}
