/**
 * When an order's steps happened, and how long each took (docs/orders.md, "How long it takes"):
 * the deposit first seen, its confirmation, the payout sent. The ETA's history is the time from
 * the first to the last; the order shows each step's own time once it is over.
 */
import type { OrderStatus } from "./order-state";

/** The moments the record keeps (ISO 8601), each written by the status change that is the step. */
export interface StepTimes {
  /** The deposit first seen: `waiting_deposit` → `confirming`. */
  depositSeenAt?: string;
  /** The deposit confirmed and accepted: `confirming` → `exchanging`. */
  depositConfirmedAt?: string;
}

/** What a status change writes of the step times (the payout's is `completedAt`). */
export function stepTimes(from: OrderStatus, to: OrderStatus, at: string): StepTimes {
  if (from === "waiting_deposit" && to === "confirming") return { depositSeenAt: at };
  if (from === "confirming" && to === "exchanging") return { depositConfirmedAt: at };
  return {};
}

const seconds = (from: string | undefined, to: string | undefined): number | null =>
  from === undefined || to === undefined
    ? null
    : Math.max(0, Math.round((Date.parse(to) - Date.parse(from)) / 1000));

/**
 * Each step's time once it is over: the deposit's confirmation (seen → confirmed) and the payout
 * (confirmed → sent, the exchange included). Null until the step ends.
 */
export function stepDurations(r: StepTimes & { completedAt?: string }): {
  deposit_confirmation_seconds: number | null;
  payout_seconds: number | null;
} {
  return {
    deposit_confirmation_seconds: seconds(r.depositSeenAt, r.depositConfirmedAt),
    payout_seconds: seconds(r.depositConfirmedAt, r.completedAt),
  };
}
