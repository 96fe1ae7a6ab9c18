/**
 * The order state machine (DESIGN.md §4), as pure functions.
 *
 * The OrderObject Durable Object calls `decide()` with the order's current state, an event and the
 * current time, and on `ok: true` persists the patch together with an event-log row in one storage
 * transaction. Keeping the machine pure means every rule below is unit-testable without workerd
 * storage, and the object can never half-apply a transition: it either gets a complete patch or a
 * rejection it can log and drop (alarm re-runs and duplicate chain notifications produce the
 * latter routinely, so a rejection is normal, not an exception).
 *
 * Decisions that DESIGN.md leaves open, fixed here:
 * - A dropped deposit after expires_at moves the order to `expired` with status_reason
 *   `deposit_dropped`, so a partner can tell "never paid" (reason null) from "paid, then the payment
 *   vanished". The deposit fields are cleared either way: the contract says deposit_txid is null
 *   until a deposit is detected, and a dropped tx no longer counts as detected. The event log keeps
 *   the old txid.
 * - `deposit_seen` in waiting_deposit is accepted even at or after expires_at: the table expires an
 *   order only when "no deposit seen", and a tx broadcast in time may be detected a poll late. The
 *   object's alarm is what turns waiting_deposit into expired; whichever event it applies first wins.
 * - `watch_ended` is accepted only when now >= lateWatchEndsAt, and it is the one event an expired
 *   order still accepts after that point (as a no-op) so a re-run alarm does not look like an error
 *   and the object can log "watch over" and stop scheduling alarms.
 * - Time guards (`expire`, `late_deposit`, `watch_ended`) fail closed: a non-finite `now` rejects.
 * - Event payloads are checked (non-empty txid, non-negative integer confirmations, positive decimal
 *   amount strings) because a malformed value persisted here would reach the partner API verbatim.
 * - `deposit_confirmed` with `acceptable: false` must carry an amount reason (see
 *   DEPOSIT_REJECT_REASONS); any other reason would tell the partner something untrue.
 * - An order that holds funds it cannot move by itself stays `failed` and leaves it only through a
 *   decision (src/domain/order-actions.ts): `refund_chosen` → refunding (the reason stays, so
 *   `refunded` still says why), `continue_chosen` → exchanging and `payout_chosen` → sending (the
 *   reason is cleared: the order goes on as if nothing had gone wrong). Each is accepted only after a
 *   failure it can act on: refund and continue while the deposit is still in coin_from, payout only
 *   after payout_failed.
 * - A transfer the operator made by hand is recorded with `payout_resolved` / `refund_resolved`,
 *   accepted only while the order waits for a decision or is stuck `exchanging` (held by the
 *   operator): failed → completed (reason cleared) or refunded (reason kept; `exchange_failed` from
 *   exchanging). Both are terminal, so no second transfer of that kind can start.
 * - Status reasons are set on moves into refunding/failed and on a dropped-deposit expiry, cleared on
 *   a return to waiting_deposit and on a plain expiry, and otherwise left alone, so `refunded` keeps
 *   the reason the refund started for.
 */

import { awaitsDecision, settlableByHand } from "./order-actions";

export const ORDER_STATUSES = [
  "waiting_deposit",
  "confirming",
  "exchanging",
  "sending",
  "completed",
  "expired",
  "refunding",
  "refunded",
  "failed",
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/**
 * Machine-readable `status_reason` values, so partners can branch without parsing sentences.
 * - amount_below_min / amount_above_max: a float order's deposit fell outside the pair limits.
 * - fixed_amount_mismatch: a fixed order's deposit was outside FIXED_AMOUNT_TOLERANCE_BPS.
 * - fixed_rate_expired: a fixed order's deposit, seen in time, confirmed more than
 *   FIXED_RATE_CONFIRM_MINUTES after expires_at.
 * - late_deposit: funds arrived after the order expired, within the late-deposit watch.
 * - exchange_failed / payout_failed / refund_failed: that step failed permanently after retries.
 * - below_min_out: a float order's payout would have fallen below its amount_to_min: nothing was
 *   exchanged, the deposit is held for a decision (refund, or continue at the rate now).
 * - deposit_dropped: the deposit was dropped, replaced or reorged out and the order then expired.
 * - cancelled: the partner cancelled the order while it waited for its deposit.
 * - source_screened: the deposit came from a screened source; its hold ended in a refund.
 */
export const STATUS_REASONS = [
  "amount_below_min",
  "amount_above_max",
  "fixed_amount_mismatch",
  "fixed_rate_expired",
  "late_deposit",
  "exchange_failed",
  "payout_failed",
  "refund_failed",
  "deposit_dropped",
  "cancelled",
  "below_min_out",
  "source_screened",
] as const;
export type StatusReason = (typeof STATUS_REASONS)[number];

/** The reasons that can make a confirmed deposit unacceptable (DESIGN.md §4, "Acceptable amount"). */
export const DEPOSIT_REJECT_REASONS: readonly StatusReason[] = Object.freeze([
  "amount_below_min",
  "amount_above_max",
  "fixed_amount_mismatch",
  "fixed_rate_expired",
]);

export type OrderEvent =
  | { type: "expire" }
  /** The partner abandons an order nobody has paid (POST …/orders/{id}/cancel). */
  | { type: "cancel" }
  | { type: "deposit_seen"; txid: string; amount: string; confirmations: number }
  | { type: "deposit_dropped" }
  | { type: "confirmations"; confirmations: number }
  | { type: "deposit_confirmed"; acceptable: true }
  | { type: "deposit_confirmed"; acceptable: false; reason: StatusReason }
  | { type: "exchange_done"; amountToActual: string }
  /** `belowMinOut`: nothing was exchanged because the price is past the order's amount_to_min. */
  | { type: "exchange_failed"; belowMinOut?: boolean }
  | { type: "payout_sent"; txid: string }
  | { type: "payout_failed" }
  | { type: "refund_sent"; txid: string }
  | { type: "refund_failed" }
  /** A confirmed deposit to an expired order; `seenAt` is when it was first detected (epoch ms). */
  | { type: "late_deposit"; txid: string; amount: string; seenAt: number }
  | { type: "watch_ended" }
  /** Decisions on a failed order that holds funds (order actions); who and with what is logged. */
  | { type: "refund_chosen" }
  | { type: "continue_chosen" }
  | { type: "payout_chosen" }
  /** The operator records a transfer made by hand, outside the service (docs/lifecycle.md). */
  | { type: "payout_resolved"; txid: string }
  | { type: "refund_resolved"; txid: string }
  /** A held deposit, confirmed, goes back at its hold's end (src/domain/holds.ts). */
  | { type: "hold_refund"; to: string };

export type OrderEventType = OrderEvent["type"];

/** The fields the machine reads; times are epoch milliseconds. */
export interface OrderStateView {
  status: OrderStatus;
  expiresAt: number;
  hasRefundAddress: boolean;
  lateWatchEndsAt: number;
  /** Read only by the decisions on a failed order. */
  statusReason?: StatusReason | null;
}

/** What the machine reads of an order record. */
export function stateViewOf(o: {
  status: OrderStatus;
  expiresAt: string;
  refundAddress: string | null;
  lateWatchEndsAt: string;
  statusReason: StatusReason | null;
}): OrderStateView {
  return {
    status: o.status,
    expiresAt: Date.parse(o.expiresAt),
    hasRefundAddress: o.refundAddress !== null,
    lateWatchEndsAt: Date.parse(o.lateWatchEndsAt),
    statusReason: o.statusReason,
  };
}

/** An event log row's data: flat JSON values only, so it crosses RPC and serialises as is. */
export type EventData = Record<string, string | number | boolean | null>;

/** The fields a transition sets; absent fields keep their stored value, null clears. */
export interface OrderPatch {
  status: OrderStatus;
  statusReason?: StatusReason | null;
  depositTxid?: string | null;
  depositConfirmations?: number | null;
  amountFromReceived?: string | null;
  amountToActual?: string;
  payoutTxid?: string;
  refundTxid?: string;
}

export type Decision = { ok: true; patch: OrderPatch; logReason: string } | { ok: false; error: string };

export function decide(order: OrderStateView, event: OrderEvent, now: number): Decision {
  const { status } = order;
  switch (event.type) {
    case "expire": {
      if (status !== "waiting_deposit") return notAllowed(event.type, status);
      if (!atOrAfter(now, order.expiresAt)) return notAllowed(event.type, status, "before expires_at");
      return ok(
        { status: "expired", statusReason: null },
        "No deposit arrived before expires_at; order expired.",
      );
    }

    case "cancel": {
      if (status !== "waiting_deposit") return notAllowed(event.type, status);
      return ok(
        { status: "expired", statusReason: "cancelled" },
        "Cancelled before any deposit was seen; order expired.",
      );
    }

    case "deposit_seen": {
      if (status !== "waiting_deposit") return notAllowed(event.type, status);
      const bad =
        checkTxid(event.txid) ?? checkAmount(event.amount) ?? checkConfirmations(event.confirmations);
      if (bad) return invalid(event.type, bad);
      return ok(
        {
          status: "confirming",
          depositTxid: event.txid,
          depositConfirmations: event.confirmations,
          amountFromReceived: event.amount,
        },
        `Deposit ${event.txid} of ${event.amount} seen with ${event.confirmations} confirmation(s).`,
      );
    }

    case "deposit_dropped": {
      if (status !== "confirming") return notAllowed(event.type, status);
      const cleared = { depositTxid: null, depositConfirmations: null, amountFromReceived: null };
      if (atOrAfter(now, order.expiresAt)) {
        return ok(
          { status: "expired", statusReason: "deposit_dropped", ...cleared },
          "Deposit dropped, replaced or reorged out after expires_at; order expired.",
        );
      }
      return ok(
        { status: "waiting_deposit", statusReason: null, ...cleared },
        "Deposit dropped, replaced or reorged out; waiting for a deposit again.",
      );
    }

    case "confirmations": {
      if (status !== "confirming") return notAllowed(event.type, status);
      const bad = checkConfirmations(event.confirmations);
      if (bad) return invalid(event.type, bad);
      return ok(
        { status: "confirming", depositConfirmations: event.confirmations },
        `Deposit has ${event.confirmations} confirmation(s).`,
      );
    }

    case "deposit_confirmed": {
      if (status !== "confirming") return notAllowed(event.type, status);
      if (event.acceptable) {
        return ok({ status: "exchanging" }, "Deposit confirmed and amount acceptable; exchanging.");
      }
      if (!DEPOSIT_REJECT_REASONS.includes(event.reason)) {
        return invalid(event.type, `reason ${event.reason} does not describe an unacceptable deposit`);
      }
      return refundOrFail(order, event.reason, `Deposit confirmed but not acceptable (${event.reason})`);
    }

    case "exchange_done": {
      if (status !== "exchanging") return notAllowed(event.type, status);
      const bad = checkAmount(event.amountToActual);
      if (bad) return invalid(event.type, bad);
      return ok(
        { status: "sending", amountToActual: event.amountToActual },
        `Exchange done for ${event.amountToActual}; sending payout.`,
      );
    }

    case "exchange_failed": {
      if (status !== "exchanging") return notAllowed(event.type, status);
      // Not a failure of the venue: the user decides (refund, or continue at the rate now), even
      // with a refund address on file.
      if (event.belowMinOut)
        return ok(
          { status: "failed", statusReason: "below_min_out" },
          "The payout would fall below amount_to_min; nothing exchanged, the deposit is held.",
        );
      return refundOrFail(order, "exchange_failed", "Exchange failed permanently");
    }

    case "payout_sent": {
      if (status !== "sending") return notAllowed(event.type, status);
      const bad = checkTxid(event.txid);
      if (bad) return invalid(event.type, bad);
      return ok(
        { status: "completed", payoutTxid: event.txid },
        `Payout ${event.txid} broadcast; order completed.`,
      );
    }

    case "payout_failed": {
      // No refund here: the deposit has already been exchanged, so support has to resolve it.
      if (status !== "sending") return notAllowed(event.type, status);
      return ok(
        { status: "failed", statusReason: "payout_failed" },
        "Payout failed permanently; order failed.",
      );
    }

    case "refund_sent": {
      if (status !== "refunding") return notAllowed(event.type, status);
      const bad = checkTxid(event.txid);
      if (bad) return invalid(event.type, bad);
      return ok(
        { status: "refunded", refundTxid: event.txid },
        `Refund ${event.txid} broadcast; order refunded.`,
      );
    }

    case "refund_failed": {
      if (status !== "refunding") return notAllowed(event.type, status);
      return ok(
        { status: "failed", statusReason: "refund_failed" },
        "Refund failed permanently; order failed.",
      );
    }

    case "late_deposit": {
      if (status !== "expired") return notAllowed(event.type, status);
      // It counts if it was first seen inside the watch, even when its confirmations end after it.
      if (!before(event.seenAt, order.lateWatchEndsAt) || !atOrAfter(now, event.seenAt)) {
        return notAllowed(event.type, status, "late-deposit watch has ended");
      }
      const bad = checkTxid(event.txid) ?? checkAmount(event.amount);
      if (bad) return invalid(event.type, bad);
      return refundOrFail(
        order,
        "late_deposit",
        `Late deposit ${event.txid} of ${event.amount} to an expired order`,
        { depositTxid: event.txid, amountFromReceived: event.amount },
      );
    }

    case "watch_ended": {
      if (status !== "expired") return notAllowed(event.type, status);
      if (!atOrAfter(now, order.lateWatchEndsAt)) {
        return notAllowed(event.type, status, "late-deposit watch still running");
      }
      return ok({ status: "expired" }, "Late-deposit watch ended; order is final.");
    }

    case "refund_chosen":
    case "continue_chosen":
    case "payout_chosen": {
      if (status !== "failed") return notAllowed(event.type, status);
      const reason = order.statusReason ?? null;
      const onTo = reason === "payout_failed";
      const fits =
        event.type === "payout_chosen" ? onTo : !onTo && awaitsDecision({ status, statusReason: reason });
      if (!fits) return notAllowed(event.type, status, `nothing to decide after ${reason ?? "no reason"}`);
      if (event.type === "refund_chosen")
        return ok({ status: "refunding" }, "Refund chosen for the held deposit; refunding.");
      if (event.type === "continue_chosen")
        return ok(
          { status: "exchanging", statusReason: null },
          "Continue chosen for the held deposit; exchanging.",
        );
      return ok({ status: "sending", statusReason: null }, "Payout to another recipient chosen; sending.");
    }

    case "payout_resolved":
    case "refund_resolved": {
      const exchanging = status === "exchanging";
      if (status !== "failed" && !exchanging) return notAllowed(event.type, status);
      if (!settlableByHand({ status, statusReason: order.statusReason ?? null }))
        return notAllowed(event.type, status, "the order holds no money waiting for a decision");
      const bad = checkTxid(event.txid);
      if (bad) return invalid(event.type, bad);
      if (event.type === "payout_resolved")
        return ok(
          { status: "completed", statusReason: null, payoutTxid: event.txid },
          `Payout ${event.txid} made by hand, recorded by an operator; order completed.`,
        );
      return ok(
        // An exchange the service did not finish is refunded for that reason.
        {
          status: "refunded",
          refundTxid: event.txid,
          ...(exchanging && { statusReason: "exchange_failed" }),
        },
        `Refund ${event.txid} made by hand, recorded by an operator; order refunded.`,
      );
    }

    case "hold_refund": {
      if (status !== "confirming") return notAllowed(event.type, status);
      if (event.to.trim() === "") return invalid(event.type, "the refund has no destination");
      return ok(
        { status: "refunding", statusReason: "source_screened" },
        "The deposit's source was screened and its hold ended in a refund; refunding.",
      );
    }

    default:
      return assertNever(event);
  }
}

type ExtraFields = Omit<OrderPatch, "status" | "statusReason">;

/** DESIGN.md §4 "refunding if refund_address, else failed", shared by every failure before payout. */
function refundOrFail(
  order: OrderStateView,
  reason: StatusReason,
  what: string,
  extra: ExtraFields = {},
): Decision {
  if (order.hasRefundAddress) {
    return ok({ ...extra, status: "refunding", statusReason: reason }, `${what}; refunding.`);
  }
  return ok(
    { ...extra, status: "failed", statusReason: reason },
    `${what}; no refund address, order failed.`,
  );
}

function ok(patch: OrderPatch, logReason: string): Decision {
  return { ok: true, patch, logReason };
}

function notAllowed(event: OrderEventType, status: OrderStatus, why?: string): Decision {
  const base = `${event} not allowed in ${status}`;
  return { ok: false, error: why ? `${base}: ${why}` : base };
}

function invalid(event: OrderEventType, why: string): Decision {
  return { ok: false, error: `invalid ${event}: ${why}` };
}

// Written as positive comparisons so NaN/Infinity inputs fail the guard instead of passing it.
function atOrAfter(now: number, at: number): boolean {
  return Number.isFinite(now) && Number.isFinite(at) && now >= at;
}

function before(now: number, at: number): boolean {
  return Number.isFinite(now) && Number.isFinite(at) && now < at;
}

function checkTxid(txid: string): string | undefined {
  return txid.trim() === "" ? "txid is empty" : undefined;
}

function checkConfirmations(n: number): string | undefined {
  return Number.isSafeInteger(n) && n >= 0 ? undefined : `confirmations ${n} is not a non-negative integer`;
}

// Amounts are stored as plain decimal strings (DESIGN.md §2); no sign, exponent or bare dot.
const DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

function checkAmount(amount: string): string | undefined {
  if (!DECIMAL.test(amount)) return `amount ${JSON.stringify(amount)} is not a decimal string`;
  if (!/[1-9]/.test(amount)) return "amount must be positive";
  return undefined;
}

function assertNever(x: never): never {
  throw new Error(`unhandled order event ${JSON.stringify(x)}`);
}
