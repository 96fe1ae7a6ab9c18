/**
 * The slow sweep after the late-deposit watch (docs/lifecycle.md, "After the watch"): how many
 * orders a run reads, and how far behind it is. Pure: src/services/sweep.ts reads D1 and the orders.
 */

/** How often one order's address is read again after its watch. */
export const AFTER_WATCH_RECHECK_MS = 24 * 3_600_000;
/** Live orders read per status per run with no backlog: the cron runs each minute. */
export const AFTER_WATCH_MIN_BATCH = 2;
/** … and at most, however long the backlog (each read is a chain read by the order's object). */
export const AFTER_WATCH_MAX_BATCH = 50;
/** A backlog is worked off over this many runs (an hour of the cron) when the batch allows it. */
export const AFTER_WATCH_CATCH_UP_RUNS = 60;
/** Test orders read per status per run: a lane of their own that never takes from the live one. */
export const AFTER_WATCH_TEST_BATCH = 1;
/** The operator is alerted when the live order read longest past its due time is this late. */
export const AFTER_WATCH_BEHIND_ALERT_MS = 24 * 3_600_000;

/** Live orders to read of one status this run, given how many are due (counted up to the cap). */
export function afterWatchBatch(due: number): number {
  return Math.min(
    AFTER_WATCH_MAX_BATCH,
    Math.max(AFTER_WATCH_MIN_BATCH, Math.ceil(due / AFTER_WATCH_CATCH_UP_RUNS)),
  );
}

/** Due orders worth counting: beyond this the batch is at its maximum anyway. */
export const AFTER_WATCH_COUNT_CAP = AFTER_WATCH_MAX_BATCH * AFTER_WATCH_CATCH_UP_RUNS;

/** The oldest due orders of one status: never read (by when they expired), and read before. */
export interface AfterWatchHeads {
  /** expires_at of the never-read order that expired first; it is due since its watch ended. */
  oldestUnreadExpiresAt: string | null;
  /** after_watch_checked_at of the order read longest ago; it is due a day after. */
  oldestCheckedAt: string | null;
}

/** How long the most overdue of these orders has waited past the moment its read was due (0: none). */
export function afterWatchBehindMs(now: number, heads: AfterWatchHeads, lateWatchHours: number): number {
  const dues = [
    heads.oldestUnreadExpiresAt && Date.parse(heads.oldestUnreadExpiresAt) + lateWatchHours * 3_600_000,
    heads.oldestCheckedAt && Date.parse(heads.oldestCheckedAt) + AFTER_WATCH_RECHECK_MS,
  ].filter((d): d is number => typeof d === "number");
  return dues.length === 0 ? 0 : Math.max(0, now - Math.min(...dues));
}
