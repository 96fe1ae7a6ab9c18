import {
  afterWatchPage,
  getSweepCursor,
  markAfterWatchChecked,
  type SweepFilter,
  setSweepCursor,
  sweepPage,
} from "../storage/orders";

/** Orders are given this long past a due moment before the sweep assumes the alarm was lost. */
const GRACE_MS = 60_000;
/**
 * A non-terminal order not updated for this long is woken. Waking an order that is simply waiting
 * (slow confirmations, a retry backing off) costs a tick that finds nothing due, nothing more.
 */
const STALE_MS = 10 * 60_000;

export interface SweepLimits {
  batch: number;
  /** Pages per status per run; whatever is left is picked up by the next minute's run. */
  maxBatches: number;
}

const DEFAULT_LIMITS: SweepLimits = { batch: 100, maxBatches: 10 };

/** Every status in which an order still has something due, with what makes it look abandoned. */
export function sweepFilters(now: number, lateWatchHours: number): SweepFilter[] {
  const stale = new Date(now - STALE_MS).toISOString();
  return [
    { status: "waiting_deposit", expiresBefore: new Date(now - GRACE_MS).toISOString() },
    ...["confirming", "exchanging", "sending", "refunding"].map((status) => ({
      status,
      updatedBefore: stale,
    })),
    // The late-deposit watch (an expired order's, and the extra-deposit watch of an order that took
    // its deposit), open until LATE_DEPOSIT_WATCH_HOURS after expires_at: orders still inside it,
    // and a little after, to close it.
    ...["expired", "completed", "refunded", "failed"].map((status) => ({
      status,
      updatedBefore: stale,
      expiresAfter: new Date(now - lateWatchHours * 3_600_000 - STALE_MS).toISOString(),
    })),
  ];
}

/**
 * Cron: wakes non-terminal orders whose alarm may have been lost; returns how many. Each status is
 * walked in id order (ids are random, so neither old nor new orders come first) from where the
 * previous run stopped, wrapping around once at most: an order that its tick cannot move on is
 * woken once per run and never hides the ones after it, however long the backlog.
 */
export async function sweepLostAlarms(
  env: Env,
  now: number,
  limits: SweepLimits = DEFAULT_LIMITS,
  lateWatchHours = 24,
): Promise<number> {
  let woken = 0;
  for (const filter of sweepFilters(now, lateWatchHours)) {
    const start = await getSweepCursor(env.DB, filter.status);
    let after = start;
    let wrapped = start === "";
    for (let batch = 0; batch < limits.maxBatches; batch++) {
      const page = await sweepPage(
        env.DB,
        filter,
        after,
        wrapped && start !== "" ? start : null,
        limits.batch,
      );
      await Promise.all(page.map((id) => env.ORDERS.getByName(id).tick()));
      woken += page.length;
      after = page.at(-1) ?? after;
      if (page.length === limits.batch) continue;
      if (wrapped) {
        after = "";
        break;
      }
      wrapped = true;
      after = "";
    }
    if (after !== start) await setSweepCursor(env.DB, filter.status, after);
  }
  return woken;
}

/** The statuses an order ends its late-deposit watch in (their address may still be paid). */
const AFTER_WATCH_STATUSES = ["completed", "refunded", "failed", "expired"] as const;
/** Orders read per status per run: the cron runs each minute, so a few reach thousands a day. */
const AFTER_WATCH_BATCH = 2;
/** How often one order's address is read again after its watch. */
const AFTER_WATCH_RECHECK_MS = 24 * 3_600_000;

/**
 * Cron, the slow sweep: a deposit after the late-deposit watch ended would be seen by nobody. A few
 * orders per status per run, the one read longest ago first, each once a day until
 * `horizonDays` after its watch; its object reads the address and offers the refund of a new
 * transfer as an extra deposit (docs/lifecycle.md, "After the watch"). Returns how many were read.
 */
export async function sweepAfterWatch(
  env: Env,
  now: number,
  lateWatchHours: number,
  horizonDays: number,
): Promise<number> {
  const iso = (ms: number) => new Date(ms).toISOString();
  const watchEndedBefore = now - lateWatchHours * 3_600_000;
  const bounds = {
    checkedBefore: iso(now - AFTER_WATCH_RECHECK_MS),
    watchEndedBefore: iso(watchEndedBefore),
    horizonStart: iso(watchEndedBefore - horizonDays * 86_400_000),
  };
  let read = 0;
  for (const status of AFTER_WATCH_STATUSES) {
    const page = await afterWatchPage(env.DB, status, bounds, AFTER_WATCH_BATCH);
    for (const id of page) {
      // A failed read (the chain reader is down) waits for the order's next turn, a day later:
      // it must not hold the orders behind it.
      await env.ORDERS.getByName(id)
        .checkAfterWatch()
        .catch((err: unknown) =>
          console.warn(
            JSON.stringify({ level: "warn", order: id, msg: "after-watch read failed", error: String(err) }),
          ),
        );
      await markAfterWatchChecked(env.DB, id, iso(now));
      read++;
    }
  }
  return read;
}
