import { overdueWaitingOrders } from "../storage/orders";

/** Orders are given this long past their deadline before the sweep assumes the alarm was lost. */
const GRACE_MS = 60_000;
const BATCH = 100;
/** Bounds one cron run; whatever is left is picked up by the next minute's run. */
const MAX_BATCHES = 10;

/** Cron: wakes orders whose expiry alarm should have fired but did not. Returns how many. */
export async function sweepLostAlarms(env: Env, now: number): Promise<number> {
  const before = new Date(now - GRACE_MS).toISOString();
  let woken = 0;
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    const ids = await overdueWaitingOrders(env.DB, before, BATCH);
    await Promise.all(ids.map((id) => env.ORDERS.getByName(id).tick()));
    woken += ids.length;
    if (ids.length < BATCH) break;
  }
  return woken;
}
