import { describe, expect, it } from "vitest";
import {
  type Decision,
  decide,
  ORDER_STATUSES,
  type OrderEvent,
  type OrderPatch,
  type OrderStateView,
  type OrderStatus,
  STATUS_REASONS,
  type StatusReason,
} from "../../src/domain/order-state";

// Fixed clock: times are arbitrary but far apart so every boundary is distinct.
const EXPIRES_AT = 1_700_000_000_000;
const WATCH_ENDS_AT = EXPIRES_AT + 24 * 3600 * 1000;

// Every instant where a guard can flip, so a "rejected" cell is rejected at all of them.
const TIMES = {
  beforeExpiry: EXPIRES_AT - 1,
  atExpiry: EXPIRES_AT,
  inWatch: EXPIRES_AT + 1,
  watchLastMs: WATCH_ENDS_AT - 1,
  watchEnd: WATCH_ENDS_AT,
  afterWatch: WATCH_ENDS_AT + 1,
} as const;
const ALL_TIMES = Object.values(TIMES);

type EventType = OrderEvent["type"];

// One valid instance of every event type, in the union's order; the matrix below is keyed by these.
const EVENTS = {
  expire: { type: "expire" },
  cancel: { type: "cancel" },
  deposit_seen: { type: "deposit_seen", txid: "dep-tx", amount: "0.5", confirmations: 0 },
  deposit_dropped: { type: "deposit_dropped" },
  confirmations: { type: "confirmations", confirmations: 2 },
  deposit_confirmed: { type: "deposit_confirmed", acceptable: true },
  exchange_done: { type: "exchange_done", amountToActual: "12.34" },
  exchange_failed: { type: "exchange_failed" },
  payout_sent: { type: "payout_sent", txid: "pay-tx" },
  payout_failed: { type: "payout_failed" },
  refund_sent: { type: "refund_sent", txid: "ref-tx" },
  refund_failed: { type: "refund_failed" },
  late_deposit: { type: "late_deposit", txid: "late-tx", amount: "0.7", seenAt: EXPIRES_AT + 1 },
  watch_ended: { type: "watch_ended" },
  refund_chosen: { type: "refund_chosen" },
  continue_chosen: { type: "continue_chosen" },
  payout_chosen: { type: "payout_chosen" },
  payout_resolved: { type: "payout_resolved", txid: "hand-pay-tx" },
  refund_resolved: { type: "refund_resolved", txid: "hand-ref-tx" },
  hold_refund: { type: "hold_refund", to: "bc1qrefund" },
} as const satisfies { [K in EventType]: Extract<OrderEvent, { type: K }> };
const EVENT_TYPES = Object.keys(EVENTS) as EventType[];
const REJECTED_DEPOSIT: OrderEvent = {
  type: "deposit_confirmed",
  acceptable: false,
  reason: "amount_below_min",
};

// The expected allowed-matrix, written out by hand from DESIGN.md §4 (deliberately not from ALLOWED).
// X = the event is accepted in that status at some time; . = rejected at every time.
// Columns follow EVENT_TYPES order (abbreviated in the header).
const MATRIX = `
                exp can dep drp cnf dcf exd exf pys pyf rfs rff lat wat rfc cnc poc pyr rfr hrf
waiting_deposit  X   X   X   .   .   .   .   .   .   .   .   .   .   .   .   .   .   .   .   .
confirming       .   .   .   X   X   X   .   .   .   .   .   .   .   .   .   .   .   .   .   X
exchanging       .   .   .   .   .   .   X   X   .   .   .   .   .   .   .   .   .   X   X   .
sending          .   .   .   .   .   .   .   .   X   X   .   .   .   .   .   .   .   .   .   .
completed        .   .   .   .   .   .   .   .   .   .   .   .   .   .   .   .   .   .   .   .
expired          .   .   .   .   .   .   .   .   .   .   .   .   X   X   .   .   .   .   .   .
refunding        .   .   .   .   .   .   .   .   .   .   X   X   .   .   .   .   .   .   .   .
refunded         .   .   .   .   .   .   .   .   .   .   .   .   .   .   .   .   .   .   .   .
failed           .   .   .   .   .   .   .   .   .   .   .   .   .   .   X   X   X   X   X   .
`;

const MATRIX_ROWS = new Map(
  MATRIX.trim()
    .split("\n")
    .slice(1)
    .map((line) => {
      const [status, ...cells] = line.trim().split(/\s+/);
      return [status, cells] as const;
    }),
);

function expectedAllowed(status: OrderStatus, type: EventType): boolean {
  const cells = MATRIX_ROWS.get(status);
  if (!cells) throw new Error(`matrix has no row for ${status}`);
  expect(cells).toHaveLength(EVENT_TYPES.length);
  return cells[EVENT_TYPES.indexOf(type)] === "X";
}

/**
 * A failed order holds its money in coin_from (exchange_failed) on one refund branch and in coin_to
 * (payout_failed) on the other, so the scenarios reach every decision out of failed.
 */
function view(status: OrderStatus, hasRefundAddress = true): OrderStateView {
  const statusReason = status === "failed" ? (hasRefundAddress ? "exchange_failed" : "payout_failed") : null;
  return { status, expiresAt: EXPIRES_AT, hasRefundAddress, lateWatchEndsAt: WATCH_ENDS_AT, statusReason };
}

function expectOk(d: Decision): { patch: OrderPatch; logReason: string } {
  if (!d.ok) throw new Error(`expected ok, got error: ${d.error}`);
  expect(d.logReason.length).toBeGreaterThan(0);
  return d;
}

function expectRejected(d: Decision): string {
  if (d.ok) throw new Error(`expected rejection, got ${JSON.stringify(d.patch)}`);
  return d.error;
}

// Every scenario the machine can see: all statuses × all events (plus the unacceptable-deposit
// variant) × all boundary times × both refund-address branches.
const ALL_EVENTS: OrderEvent[] = [...Object.values(EVENTS), REJECTED_DEPOSIT];
function* allScenarios(): Generator<{ from: OrderStatus; event: OrderEvent; now: number; refund: boolean }> {
  for (const from of ORDER_STATUSES)
    for (const event of ALL_EVENTS)
      for (const now of ALL_TIMES) for (const refund of [true, false]) yield { from, event, now, refund };
}

describe("transition matrix: every status × every event type", () => {
  it("the hand-written matrix covers every status and every event type", () => {
    expect([...MATRIX_ROWS.keys()]).toStrictEqual([...ORDER_STATUSES]);
    // 21 union members; deposit_confirmed's two variants share one column.
    expect(EVENT_TYPES).toHaveLength(20);
  });

  for (const from of ORDER_STATUSES) {
    for (const type of EVENT_TYPES) {
      const allowed = expectedAllowed(from, type);
      it(`${from} + ${type} → ${allowed ? "allowed" : "rejected"}`, () => {
        const variants: OrderEvent[] =
          type === "deposit_confirmed" ? [EVENTS[type], REJECTED_DEPOSIT] : [EVENTS[type]];
        const outcomes = variants.flatMap((event) =>
          ALL_TIMES.flatMap((now) => [true, false].map((refund) => decide(view(from, refund), event, now))),
        );
        if (allowed) {
          expect(outcomes.some((d) => d.ok)).toBe(true);
        } else {
          for (const d of outcomes) expect(expectRejected(d)).toBe(`${type} not allowed in ${from}`);
        }
      });
    }
  }
});

// Exact result of every allowed move. `refund` undefined means the branch does not matter, and the
// case is checked with both values.
interface Case {
  name: string;
  from: OrderStatus;
  event: OrderEvent;
  now: number;
  refund?: boolean;
  patch: OrderPatch;
}

const CASES: Case[] = [
  {
    name: "expire at exactly expires_at",
    from: "waiting_deposit",
    event: EVENTS.expire,
    now: TIMES.atExpiry,
    patch: { status: "expired", statusReason: null },
  },
  {
    name: "expire well after expires_at (late alarm)",
    from: "waiting_deposit",
    event: EVENTS.expire,
    now: TIMES.afterWatch,
    patch: { status: "expired", statusReason: null },
  },
  {
    name: "deposit seen before expiry",
    from: "waiting_deposit",
    event: EVENTS.deposit_seen,
    now: TIMES.beforeExpiry,
    patch: {
      status: "confirming",
      depositTxid: "dep-tx",
      depositConfirmations: 0,
      amountFromReceived: "0.5",
    },
  },
  {
    name: "deposit seen after expires_at but before the expiry alarm ran",
    from: "waiting_deposit",
    event: { type: "deposit_seen", txid: "dep-tx", amount: "1", confirmations: 3 },
    now: TIMES.inWatch,
    patch: { status: "confirming", depositTxid: "dep-tx", depositConfirmations: 3, amountFromReceived: "1" },
  },
  {
    name: "confirmation progress is a self-transition",
    from: "confirming",
    event: EVENTS.confirmations,
    now: TIMES.inWatch,
    patch: { status: "confirming", depositConfirmations: 2 },
  },
  {
    name: "deposit dropped before expiry → waiting again",
    from: "confirming",
    event: EVENTS.deposit_dropped,
    now: TIMES.beforeExpiry,
    patch: {
      status: "waiting_deposit",
      statusReason: null,
      depositTxid: null,
      depositConfirmations: null,
      amountFromReceived: null,
    },
  },
  {
    name: "deposit dropped at expires_at → expired",
    from: "confirming",
    event: EVENTS.deposit_dropped,
    now: TIMES.atExpiry,
    patch: {
      status: "expired",
      statusReason: "deposit_dropped",
      depositTxid: null,
      depositConfirmations: null,
      amountFromReceived: null,
    },
  },
  {
    name: "deposit confirmed, acceptable",
    from: "confirming",
    event: EVENTS.deposit_confirmed,
    now: TIMES.inWatch,
    patch: { status: "exchanging" },
  },
  {
    name: "deposit confirmed, below min, refund address",
    from: "confirming",
    event: REJECTED_DEPOSIT,
    now: TIMES.beforeExpiry,
    refund: true,
    patch: { status: "refunding", statusReason: "amount_below_min" },
  },
  {
    name: "deposit confirmed, below min, no refund address",
    from: "confirming",
    event: REJECTED_DEPOSIT,
    now: TIMES.beforeExpiry,
    refund: false,
    patch: { status: "failed", statusReason: "amount_below_min" },
  },
  {
    name: "deposit confirmed, fixed mismatch, refund address",
    from: "confirming",
    event: { type: "deposit_confirmed", acceptable: false, reason: "fixed_amount_mismatch" },
    now: TIMES.beforeExpiry,
    refund: true,
    patch: { status: "refunding", statusReason: "fixed_amount_mismatch" },
  },
  {
    name: "deposit confirmed, above max, no refund address",
    from: "confirming",
    event: { type: "deposit_confirmed", acceptable: false, reason: "amount_above_max" },
    now: TIMES.beforeExpiry,
    refund: false,
    patch: { status: "failed", statusReason: "amount_above_max" },
  },
  {
    name: "exchange done",
    from: "exchanging",
    event: EVENTS.exchange_done,
    now: TIMES.inWatch,
    patch: { status: "sending", amountToActual: "12.34" },
  },
  {
    name: "exchange failed, refund address",
    from: "exchanging",
    event: EVENTS.exchange_failed,
    now: TIMES.inWatch,
    refund: true,
    patch: { status: "refunding", statusReason: "exchange_failed" },
  },
  {
    name: "exchange failed, no refund address",
    from: "exchanging",
    event: EVENTS.exchange_failed,
    now: TIMES.inWatch,
    refund: false,
    patch: { status: "failed", statusReason: "exchange_failed" },
  },
  {
    name: "payout sent",
    from: "sending",
    event: EVENTS.payout_sent,
    now: TIMES.inWatch,
    patch: { status: "completed", payoutTxid: "pay-tx" },
  },
  {
    name: "payout failed (no refund even with a refund address)",
    from: "sending",
    event: EVENTS.payout_failed,
    now: TIMES.inWatch,
    patch: { status: "failed", statusReason: "payout_failed" },
  },
  {
    name: "cancelled while waiting: expired, reason cancelled",
    from: "waiting_deposit",
    event: EVENTS.cancel,
    now: TIMES.beforeExpiry,
    patch: { status: "expired", statusReason: "cancelled" },
  },
  {
    name: "refund sent",
    from: "refunding",
    event: EVENTS.refund_sent,
    now: TIMES.inWatch,
    patch: { status: "refunded", refundTxid: "ref-tx" },
  },
  {
    name: "refund failed",
    from: "refunding",
    event: EVENTS.refund_failed,
    now: TIMES.inWatch,
    patch: { status: "failed", statusReason: "refund_failed" },
  },
  {
    name: "late deposit inside the watch, refund address",
    from: "expired",
    event: EVENTS.late_deposit,
    now: TIMES.inWatch,
    refund: true,
    patch: {
      status: "refunding",
      statusReason: "late_deposit",
      depositTxid: "late-tx",
      amountFromReceived: "0.7",
    },
  },
  {
    name: "late deposit in the last ms of the watch, no refund address",
    from: "expired",
    event: EVENTS.late_deposit,
    now: TIMES.watchLastMs,
    refund: false,
    patch: {
      status: "failed",
      statusReason: "late_deposit",
      depositTxid: "late-tx",
      amountFromReceived: "0.7",
    },
  },
  {
    name: "watch ended at exactly lateWatchEndsAt",
    from: "expired",
    event: EVENTS.watch_ended,
    now: TIMES.watchEnd,
    patch: { status: "expired" },
  },
  {
    name: "watch ended re-run after the watch",
    from: "expired",
    event: EVENTS.watch_ended,
    now: TIMES.afterWatch,
    patch: { status: "expired" },
  },
  // view("failed", true) holds coin_from (exchange_failed); view("failed", false) holds coin_to.
  {
    name: "refund chosen: refunding, the reason kept for refunded",
    from: "failed",
    event: EVENTS.refund_chosen,
    now: TIMES.inWatch,
    refund: true,
    patch: { status: "refunding" },
  },
  {
    name: "continue chosen: exchanging, the reason cleared",
    from: "failed",
    event: EVENTS.continue_chosen,
    now: TIMES.inWatch,
    refund: true,
    patch: { status: "exchanging", statusReason: null },
  },
  {
    name: "payout to another recipient chosen: sending, the reason cleared",
    from: "failed",
    event: EVENTS.payout_chosen,
    now: TIMES.inWatch,
    refund: false,
    patch: { status: "sending", statusReason: null },
  },
  {
    name: "a payout made by hand, recorded: completed with its txid, the reason cleared",
    from: "failed",
    event: EVENTS.payout_resolved,
    now: TIMES.inWatch,
    refund: false,
    patch: { status: "completed", statusReason: null, payoutTxid: "hand-pay-tx" },
  },
  {
    name: "a refund made by hand, recorded: refunded with its txid, the reason kept",
    from: "failed",
    event: EVENTS.refund_resolved,
    now: TIMES.inWatch,
    refund: true,
    patch: { status: "refunded", refundTxid: "hand-ref-tx" },
  },
  {
    name: "an exchange stuck on the venue, paid by hand: completed with its txid",
    from: "exchanging",
    event: EVENTS.payout_resolved,
    now: TIMES.inWatch,
    patch: { status: "completed", statusReason: null, payoutTxid: "hand-pay-tx" },
  },
  {
    name: "an exchange stuck on the venue, refunded by hand: refunded with its txid, as exchange_failed",
    from: "exchanging",
    event: EVENTS.refund_resolved,
    now: TIMES.inWatch,
    patch: { status: "refunded", refundTxid: "hand-ref-tx", statusReason: "exchange_failed" },
  },
  {
    name: "a held deposit's hold ends in a refund: refunding, as source_screened",
    from: "confirming",
    event: EVENTS.hold_refund,
    now: TIMES.inWatch,
    patch: { status: "refunding", statusReason: "source_screened" },
  },
];

describe("decisions on a failed order", () => {
  const failed = (statusReason: StatusReason | null): OrderStateView => ({ ...view("failed"), statusReason });

  it("refund and continue only while the deposit is in coin_from; payout only after payout_failed", () => {
    const inFrom: StatusReason[] = [
      "amount_below_min",
      "amount_above_max",
      "fixed_amount_mismatch",
      "fixed_rate_expired",
      "late_deposit",
      "exchange_failed",
      "refund_failed",
    ];
    for (const reason of inFrom) {
      expect(decide(failed(reason), EVENTS.refund_chosen, 0).ok).toBe(true);
      expect(decide(failed(reason), EVENTS.continue_chosen, 0).ok).toBe(true);
      expect(expectRejected(decide(failed(reason), EVENTS.payout_chosen, 0))).toBe(
        `payout_chosen not allowed in failed: nothing to decide after ${reason}`,
      );
    }
    expect(decide(failed("payout_failed"), EVENTS.payout_chosen, 0).ok).toBe(true);
    for (const e of [EVENTS.refund_chosen, EVENTS.continue_chosen])
      expect(decide(failed("payout_failed"), e, 0).ok).toBe(false);
    for (const e of [EVENTS.refund_chosen, EVENTS.continue_chosen, EVENTS.payout_chosen]) {
      expect(decide(failed(null), e, 0).ok).toBe(false);
      expect(decide(failed("deposit_dropped"), e, 0).ok).toBe(false);
    }
  });

  it("a transfer made by hand ends the order: payout → completed with its txid, refund → refunded keeping the reason", () => {
    const paid = expectOk(decide(failed("payout_failed"), EVENTS.payout_resolved, 0));
    expect(paid.patch).toEqual({ status: "completed", statusReason: null, payoutTxid: "hand-pay-tx" });
    const refunded = expectOk(decide(failed("amount_below_min"), EVENTS.refund_resolved, 0));
    expect(refunded.patch).toEqual({ status: "refunded", refundTxid: "hand-ref-tx" });
    for (const e of [EVENTS.payout_resolved, EVENTS.refund_resolved]) {
      expect(expectRejected(decide(failed(null), e, 0))).toMatch(/holds no money waiting/);
      expect(decide(view("sending"), e, 0).ok).toBe(false);
      expect(decide(view("refunding"), e, 0).ok).toBe(false);
    }
    expect(expectRejected(decide(failed("exchange_failed"), { type: "refund_resolved", txid: " " }, 0))).toBe(
      "invalid refund_resolved: txid is empty",
    );
  });
});

describe("allowed moves: resulting status and exact patch", () => {
  for (const c of CASES) {
    const branches = c.refund === undefined ? [true, false] : [c.refund];
    for (const refund of branches) {
      it(`${c.from}: ${c.name}${c.refund === undefined ? ` (refund address: ${refund})` : ""}`, () => {
        const { patch } = expectOk(decide(view(c.from, refund), c.event, c.now));
        expect(patch).toStrictEqual(c.patch);
      });
    }
  }

  it("every allowed matrix cell has at least one exact-patch case", () => {
    for (const from of ORDER_STATUSES)
      for (const type of EVENT_TYPES)
        if (expectedAllowed(from, type)) {
          expect(CASES.some((c) => c.from === from && c.event.type === type)).toBe(true);
        }
  });
});

describe("time guards", () => {
  it("expire one ms before expires_at is rejected, at expires_at accepted", () => {
    expect(expectRejected(decide(view("waiting_deposit"), EVENTS.expire, EXPIRES_AT - 1))).toBe(
      "expire not allowed in waiting_deposit: before expires_at",
    );
    expect(expectOk(decide(view("waiting_deposit"), EVENTS.expire, EXPIRES_AT)).patch.status).toBe("expired");
  });

  it("dropped deposit: expires_at - 1 goes back to waiting, expires_at expires", () => {
    expect(expectOk(decide(view("confirming"), EVENTS.deposit_dropped, EXPIRES_AT - 1)).patch.status).toBe(
      "waiting_deposit",
    );
    expect(expectOk(decide(view("confirming"), EVENTS.deposit_dropped, EXPIRES_AT)).patch.status).toBe(
      "expired",
    );
  });

  it("a late deposit first seen inside the watch is accepted, even once confirmed after it; one seen at or after its end is rejected", () => {
    const seen = (seenAt: number) => ({ ...EVENTS.late_deposit, seenAt });
    for (const refund of [true, false]) {
      expect(decide(view("expired", refund), seen(TIMES.inWatch), TIMES.inWatch).ok).toBe(true);
      expect(decide(view("expired", refund), seen(WATCH_ENDS_AT - 1), WATCH_ENDS_AT - 1).ok).toBe(true);
      // Seen in the last millisecond, its confirmations arrive an hour after the watch.
      expect(decide(view("expired", refund), seen(WATCH_ENDS_AT - 1), WATCH_ENDS_AT + 3_600_000).ok).toBe(
        true,
      );
      for (const at of [WATCH_ENDS_AT, WATCH_ENDS_AT + 1]) {
        expect(expectRejected(decide(view("expired", refund), seen(at), at))).toBe(
          "late_deposit not allowed in expired: late-deposit watch has ended",
        );
      }
      // Never "seen" in the future.
      expect(decide(view("expired", refund), seen(TIMES.inWatch + 10), TIMES.inWatch).ok).toBe(false);
    }
  });

  it("watch_ended before the watch is over is rejected", () => {
    expect(expectRejected(decide(view("expired"), EVENTS.watch_ended, WATCH_ENDS_AT - 1))).toBe(
      "watch_ended not allowed in expired: late-deposit watch still running",
    );
  });

  it("non-finite now fails every time guard closed", () => {
    for (const now of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(decide(view("waiting_deposit"), EVENTS.expire, now).ok).toBe(false);
      expect(decide(view("expired"), EVENTS.late_deposit, now).ok).toBe(false);
      expect(decide(view("expired"), EVENTS.watch_ended, now).ok).toBe(false);
    }
  });

  it("events without a time guard decide the same at every time", () => {
    const guarded = new Set<EventType>(["expire", "deposit_dropped", "late_deposit", "watch_ended"]);
    for (const from of ORDER_STATUSES)
      for (const event of ALL_EVENTS) {
        if (guarded.has(event.type)) continue;
        const first = decide(view(from), event, ALL_TIMES[0]!);
        for (const now of ALL_TIMES) expect(decide(view(from), event, now)).toStrictEqual(first);
      }
  });
});

describe("terminal statuses", () => {
  const terminal: OrderStatus[] = ["completed", "refunded"];

  it("completed and refunded reject every event at every time", () => {
    for (const from of terminal)
      for (const event of ALL_EVENTS)
        for (const now of ALL_TIMES)
          for (const refund of [true, false]) {
            expect(expectRejected(decide(view(from, refund), event, now))).toBe(
              `${event.type} not allowed in ${from}`,
            );
          }
  });

  it("an expired order past its watch accepts only the watch_ended no-op and a late deposit seen during the watch", () => {
    for (const event of ALL_EVENTS) {
      const d = decide(view("expired"), event, TIMES.afterWatch);
      if (event.type === "watch_ended") expect(expectOk(d).patch).toStrictEqual({ status: "expired" });
      else if (event.type === "late_deposit") expect(d.ok).toBe(event.seenAt < WATCH_ENDS_AT);
      else expect(d.ok).toBe(false);
    }
    const seenAfter = { ...EVENTS.late_deposit, seenAt: TIMES.afterWatch };
    expect(decide(view("expired"), seenAfter, TIMES.afterWatch).ok).toBe(false);
  });

  it("failed rejects every lifecycle event: only a decision on held funds leaves it", () => {
    const decisions = [
      "refund_chosen",
      "continue_chosen",
      "payout_chosen",
      "payout_resolved",
      "refund_resolved",
    ];
    for (const event of ALL_EVENTS.filter((e) => !decisions.includes(e.type)))
      for (const refund of [true, false])
        expect(expectRejected(decide(view("failed", refund), event, TIMES.inWatch))).toBe(
          `${event.type} not allowed in failed`,
        );
  });
});

// The transition graph of docs/lifecycle.md's diagram, written out by hand: decide() must make
// every edge and no other. Self-edges are there because decide() produces them (confirmation
// progress, the late-deposit watch ending) and the object still logs them.
const GRAPH: Record<OrderStatus, OrderStatus[]> = {
  waiting_deposit: ["confirming", "expired"],
  confirming: ["confirming", "waiting_deposit", "expired", "exchanging", "refunding", "failed"],
  exchanging: ["sending", "refunding", "failed", "completed", "refunded"],
  sending: ["completed", "failed"],
  completed: [],
  expired: ["expired", "refunding", "failed"],
  refunding: ["refunded", "failed"],
  refunded: [],
  failed: ["refunding", "exchanging", "sending", "completed", "refunded"],
};

describe("the transition graph", () => {
  it("every move decide() makes is an edge of the graph, and every edge is made by some event", () => {
    const reached = new Set<string>();
    for (const { from, event, now, refund } of allScenarios()) {
      const d = decide(view(from, refund), event, now);
      if (!d.ok) continue;
      expect(GRAPH[from], `${from} + ${event.type}`).toContain(d.patch.status);
      reached.add(`${from}->${d.patch.status}`);
    }
    for (const from of ORDER_STATUSES)
      for (const to of GRAPH[from]) expect(reached).toContain(`${from}->${to}`);
  });
});

describe("event payload validation", () => {
  const bad: [string, OrderStatus, OrderEvent, number][] = [
    ["empty deposit txid", "waiting_deposit", { ...EVENTS.deposit_seen, txid: "  " }, TIMES.beforeExpiry],
    [
      "negative confirmations",
      "waiting_deposit",
      { ...EVENTS.deposit_seen, confirmations: -1 },
      TIMES.beforeExpiry,
    ],
    [
      "fractional confirmations",
      "confirming",
      { type: "confirmations", confirmations: 1.5 },
      TIMES.beforeExpiry,
    ],
    [
      "NaN confirmations",
      "confirming",
      { type: "confirmations", confirmations: Number.NaN },
      TIMES.beforeExpiry,
    ],
    ["zero amount", "waiting_deposit", { ...EVENTS.deposit_seen, amount: "0.000" }, TIMES.beforeExpiry],
    ["negative amount", "waiting_deposit", { ...EVENTS.deposit_seen, amount: "-1" }, TIMES.beforeExpiry],
    ["exponent amount", "waiting_deposit", { ...EVENTS.deposit_seen, amount: "1e5" }, TIMES.beforeExpiry],
    ["bare-dot amount", "waiting_deposit", { ...EVENTS.deposit_seen, amount: ".5" }, TIMES.beforeExpiry],
    ["leading-zero amount", "waiting_deposit", { ...EVENTS.deposit_seen, amount: "01" }, TIMES.beforeExpiry],
    ["empty amountToActual", "exchanging", { type: "exchange_done", amountToActual: "" }, TIMES.inWatch],
    ["empty payout txid", "sending", { type: "payout_sent", txid: "" }, TIMES.inWatch],
    ["empty refund txid", "refunding", { type: "refund_sent", txid: "" }, TIMES.inWatch],
    ["late deposit bad amount", "expired", { ...EVENTS.late_deposit, amount: "abc" }, TIMES.inWatch],
    ["late deposit empty txid", "expired", { ...EVENTS.late_deposit, txid: "" }, TIMES.inWatch],
  ];
  for (const [name, from, event, now] of bad) {
    it(`rejects ${name}`, () => {
      expect(expectRejected(decide(view(from), event, now))).toMatch(new RegExp(`^invalid ${event.type}: `));
    });
  }

  it("rejects a reason that is not about the deposit on an unacceptable deposit", () => {
    for (const reason of STATUS_REASONS) {
      const d = decide(
        view("confirming"),
        { type: "deposit_confirmed", acceptable: false, reason },
        TIMES.inWatch,
      );
      const depositReason = [
        "amount_below_min",
        "amount_above_max",
        "fixed_amount_mismatch",
        "fixed_rate_expired",
      ].includes(reason);
      expect(d.ok, reason).toBe(depositReason);
    }
  });

  it("the graph check comes first: a malformed event in the wrong status says not allowed", () => {
    expect(expectRejected(decide(view("sending"), { type: "refund_sent", txid: "" }, TIMES.inWatch))).toBe(
      "refund_sent not allowed in sending",
    );
  });

  it("accepts plain decimal amounts", () => {
    for (const amount of ["1", "0.00000001", "123456789.123456789012", "10.0"]) {
      expect(decide(view("waiting_deposit"), { ...EVENTS.deposit_seen, amount }, TIMES.beforeExpiry).ok).toBe(
        true,
      );
    }
  });
});

describe("purity", () => {
  it("does not mutate its inputs and returns a fresh patch each call", () => {
    const order = Object.freeze(view("confirming"));
    const event = Object.freeze({ ...EVENTS.deposit_dropped });
    const a = decide(order, event, TIMES.beforeExpiry);
    const b = decide(order, event, TIMES.beforeExpiry);
    expect(a).toStrictEqual(b);
    expect(expectOk(a).patch).not.toBe(expectOk(b).patch);
    expect(order).toStrictEqual(view("confirming"));
  });

  it("every accepted decision carries a log sentence", () => {
    for (const { from, event, now, refund } of allScenarios()) {
      const d = decide(view(from, refund), event, now);
      if (d.ok) expect(d.logReason).toMatch(/^[A-Z].*\.$/);
    }
  });
});
