/**
 * Order retention (docs/operators.md, "Retention"): a terminal order's object keeps everything for
 * ORDER_RETENTION_DAYS, and at least until the slow sweep stops reading its address
 * (AFTER_WATCH_HORIZON_DAYS after its late-deposit watch); then it compacts to what every read of
 * it needs (the record and the event log), unless money is still owed. Pure: the order object
 * (src/objects/order/retention.ts) gathers the facts and compacts.
 */
import type { OrderStatus } from "./order-state";

const DAY_MS = 86_400_000;

/** The statuses an order never leaves by itself. */
const ENDED: ReadonlySet<OrderStatus> = new Set(["completed", "refunded", "failed", "expired"]);

/** When the order may compact; null while it is not terminal. */
export function compactionDueAt(
  r: { status: OrderStatus; updatedAt: string; lateWatchEndsAt: string },
  c: { ORDER_RETENTION_DAYS: number; AFTER_WATCH_HORIZON_DAYS: number },
): number | null {
  if (!ENDED.has(r.status)) return null;
  return Math.max(
    Date.parse(r.updatedAt) + c.ORDER_RETENTION_DAYS * DAY_MS,
    Date.parse(r.lateWatchEndsAt) + c.AFTER_WATCH_HORIZON_DAYS * DAY_MS,
  );
}

/** What an order still owes or still has to send, each of which keeps all its storage. */
export interface RetentionFacts {
  /** Its `actions` is not null (a held deposit, an extra or wrong-network deposit's refund offered) or it is in review. */
  inReview: boolean;
  /** Sends (payout, refund, extra refunds) without a final outcome. */
  unfinishedSends: number;
  openAlerts: number;
  operatorHold: boolean;
  /** The D1 index row, a webhook or the liquidity step not sent yet. */
  unsent: boolean;
}

/** Why the order may not compact now; null when it may. */
export function compactionBlocker(f: RetentionFacts): string | null {
  if (f.inReview) return "funds or a deposit wait for a decision";
  if (f.unfinishedSends > 0) return "a send has no final outcome";
  if (f.openAlerts > 0) return "an alert is open";
  if (f.operatorHold) return "the operator holds the order";
  if (f.unsent) return "the index row, a webhook or the liquidity step is not sent yet";
  return null;
}
