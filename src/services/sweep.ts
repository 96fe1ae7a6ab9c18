import {
  AFTER_WATCH_BEHIND_ALERT_MS,
  AFTER_WATCH_COUNT_CAP,
  AFTER_WATCH_RECHECK_MS,
  AFTER_WATCH_TEST_BATCH,
  afterWatchBatch,
  afterWatchBehindMs,
} from "../domain/after-watch-sweep";
import {
  afterWatchBacklog,
  afterWatchPage,
  getSweepCursor,
  markAfterWatchChecked,
  type SweepFilter,
  setSweepCursor,
  sweepPage,
} from "../storage/orders";
import { clearServiceAlert, raiseServiceAlert } from "./service-alerts";

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
/** Reads of one page run this many at a time (each is the order's object reading its chain). */
const AFTER_WATCH_CONCURRENCY = 10;
/** The slow sweep's alert (GET /admin/v1/alerts, under this subject). */
export const AFTER_WATCH_ALERT = { subject: "after-watch-sweep", kind: "after_watch_behind" } as const;

/** Reads a page's orders (a few at a time) and marks each read; returns how many. */
async function readAfterWatch(env: Env, page: readonly string[], at: string): Promise<number> {
  for (let i = 0; i < page.length; i += AFTER_WATCH_CONCURRENCY) {
    await Promise.all(
      page.slice(i, i + AFTER_WATCH_CONCURRENCY).map(async (id) => {
        // A failed read (the chain reader is down) waits for the order's next turn, a day later:
        // it must not hold the orders behind it.
        await env.ORDERS.getByName(id)
          .checkAfterWatch()
          .catch((err: unknown) =>
            console.warn(
              JSON.stringify({
                level: "warn",
                order: id,
                msg: "after-watch read failed",
                error: String(err),
              }),
            ),
          );
        await markAfterWatchChecked(env.DB, id, at);
      }),
    );
  }
  return page.length;
}

/**
 * Cron, the slow sweep: a deposit after the late-deposit watch ended would be seen by nobody. Per
 * status, the orders read longest ago first, each once a day until `horizonDays` after its watch;
 * its object reads the address and offers the refund of a new transfer as an extra deposit
 * (docs/lifecycle.md, "After the watch"). Live and test orders have lanes of their own: the live
 * batch grows with the live backlog (afterWatchBatch), test orders get a small fixed one, so no
 * number of test orders delays a live read. When the most overdue live order is a day late the
 * operator is alerted; the alert clears once the sweep has caught up. Returns how many were read.
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
  const behind: { status: string; ms: number; due: number }[] = [];
  for (const status of AFTER_WATCH_STATUSES) {
    const live = { status, livemode: true };
    const backlog = await afterWatchBacklog(env.DB, live, bounds, AFTER_WATCH_COUNT_CAP);
    behind.push({ status, ms: afterWatchBehindMs(now, backlog, lateWatchHours), due: backlog.due });
    const livePage = await afterWatchPage(env.DB, live, bounds, afterWatchBatch(backlog.due));
    read += await readAfterWatch(env, livePage, iso(now));
    const testPage = await afterWatchPage(
      env.DB,
      { status, livemode: false },
      bounds,
      AFTER_WATCH_TEST_BATCH,
    );
    read += await readAfterWatch(env, testPage, iso(now));
  }
  const worst = behind.reduce((a, b) => (b.ms > a.ms ? b : a));
  if (worst.ms > AFTER_WATCH_BEHIND_ALERT_MS) {
    const hours = Math.floor(worst.ms / 3_600_000);
    await raiseServiceAlert(
      env.DB,
      AFTER_WATCH_ALERT.subject,
      AFTER_WATCH_ALERT.kind,
      `the slow sweep after the watch is ${hours} h behind on live ${worst.status} orders: late deposits may go unseen`,
      { status: worst.status, behind_hours: hours, due: worst.due },
      now,
    );
  } else await clearServiceAlert(env.DB, AFTER_WATCH_ALERT.subject, AFTER_WATCH_ALERT.kind, now);
  return read;
}
