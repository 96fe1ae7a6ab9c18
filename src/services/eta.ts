import { refreshPairEtas } from "../storage/eta";

/** How often the cron sums the pairs' completion times again (they move over days, not minutes). */
export const ETA_REFRESH_MINUTES = 10;

/**
 * The cron's step for the ETAs (docs/orders.md, "How long it takes"): every ETA_REFRESH_MINUTES-th
 * minute, the completed live orders of the window are summed again per network pair. A failure
 * leaves the last figures in place until the next refresh.
 */
export async function refreshEtas(env: Env, scheduledTime: number): Promise<void> {
  if (Math.floor(scheduledTime / 60_000) % ETA_REFRESH_MINUTES !== 0) return;
  await refreshPairEtas(env.DB, scheduledTime);
}
