import { describe, expect, it } from "vitest";
import {
  byArrival,
  type ChainView,
  chainKey,
  checkAfterWatch,
  confirmedOthers,
  confirmStep,
  type FloatLimits,
  freshExtras,
  type LateSeen,
  type ListedTransfer,
  nextPoll,
  type TrackedOrder,
  type TrackerEffect,
  type TrackerParams,
  type TrackerState,
  trackDeposit,
  waitingStep,
} from "../../src/domain/deposit-tracking";
import { parseDecimal } from "../../src/domain/money";
import type { OrderEvent, OrderStatus, StatusReason } from "../../src/domain/order-state";

const t = (txid: string, index: number, amount = "1", blockHeight: number | null = null) => ({
  txid,
  index,
  amount,
  blockHeight,
});

describe("nextPoll", () => {
  it("doubles while nothing changes, up to 8×, and starts over after a change", () => {
    let idle = 0;
    const gaps: number[] = [];
    for (let i = 0; i < 5; i++) {
      const next = nextPoll(1_000, idle, false, 2_000);
      gaps.push(next.at - 1_000);
      idle = next.idle;
    }
    expect(gaps).toEqual([4_000, 8_000, 16_000, 16_000, 16_000]);
    expect(nextPoll(1_000, idle, true, 2_000)).toEqual({ idle: 0, at: 3_000 });
  });

  it("never sooner than the late watch's minimum", () => {
    expect(nextPoll(0, 0, true, 2_000, 60_000).at).toBe(60_000);
    expect(nextPoll(0, 3, false, 15_000, 60_000).at).toBe(120_000);
  });
});

describe("byArrival", () => {
  it("mined first by height, then the mempool; ties by txid and index", () => {
    const sorted = byArrival([t("c", 0), t("b", 1, "1", 7), t("a", 0, "1", 9), t("b", 0, "1", 7)]);
    expect(sorted.map((x) => `${x.txid}:${x.index}`)).toEqual(["b:0", "b:1", "a:0", "c:0"]);
  });
});

describe("waitingStep", () => {
  const expiresAt = 100_000;
  const grace = 600_000;
  it("nothing listed: expire only once the deadline has passed", () => {
    expect(waitingStep([], expiresAt - 1, expiresAt, grace)).toEqual({ kind: "nothing", expire: false });
    expect(waitingStep([], expiresAt, expiresAt, grace)).toEqual({ kind: "nothing", expire: true });
  });

  it("the first transfer drives the order, even just after the deadline", () => {
    const first = t("a", 0);
    expect(waitingStep([first, t("b", 0)], expiresAt + grace, expiresAt, grace)).toEqual({
      kind: "seen",
      deposit: first,
    });
  });

  it("first seen longer than the grace after the deadline: late", () => {
    expect(waitingStep([t("a", 0)], expiresAt + grace + 1, expiresAt, grace).kind).toBe("late");
  });
});

describe("confirmStep", () => {
  it("confirming until the required count, saying whether the count moved", () => {
    expect(confirmStep(1, 2, 0)).toEqual({ kind: "confirming", confirmations: 1, changed: true });
    expect(confirmStep(1, 2, 1)).toEqual({ kind: "confirming", confirmations: 1, changed: false });
    expect(confirmStep(2, 2, 1)).toEqual({ kind: "confirmed", confirmations: 2 });
    expect(confirmStep(5, 2, null)).toEqual({ kind: "confirmed", confirmations: 5 });
  });
});

describe("freshExtras", () => {
  it("every transfer but the order's own and those logged already", () => {
    const listing = [t("a", 0), t("a", 1), t("b", 0), t("c", 0)];
    expect(freshExtras(listing, { txid: "a", index: 0 }, new Set(["b:0"]))).toEqual([t("a", 1), t("c", 0)]);
    expect(freshExtras(listing, null, new Set())).toEqual(listing);
  });
});

describe("confirmedOthers", () => {
  it("the other transfers with enough confirmations", () => {
    const listing = [t("a", 0, "1", 1), t("b", 0, "1", 5), t("c", 0)];
    const confs = (x: { blockHeight: number | null }) => (x.blockHeight === null ? 0 : 6 - x.blockHeight);
    expect(confirmedOthers(listing, { txid: "a", index: 0 }, confs, 1)).toEqual([t("b", 0, "1", 5)]);
    expect(confirmedOthers(listing, { txid: "b", index: 0 }, confs, 2)).toEqual([t("a", 0, "1", 1)]);
  });
});

// ── trackDeposit: the whole run, plain data in, effects out ────────────────────────────────────

const T = Date.parse("2026-01-01T00:00:00.000Z");
const EXPIRES = T + 30 * 60_000;
const WATCH_END = EXPIRES + 24 * 3_600_000;
const BASE = 10_000;
const params: TrackerParams = { pollBaseMs: BASE, fixedToleranceBps: 100, fixedRateConfirmMs: 30 * 60_000 };
const iso = (ms: number) => new Date(ms).toISOString();

/** A transfer in block `height` (hash `h<height>`), or in the mempool. */
const tx = (txid: string, index: number, amount: string, height: number | null): ListedTransfer => ({
  txid,
  index,
  amount,
  blockHeight: height,
  blockHash: height === null ? null : `h${height}`,
});

const waiting: TrackedOrder = {
  status: "waiting_deposit",
  statusReason: null,
  expiresAt: iso(EXPIRES),
  lateWatchEndsAt: iso(WATCH_END),
  refundAddress: "refund-address",
  refundAddressTag: null,
  rateType: "float",
  amountFromExpected: "1",
  depositTxid: null,
  depositIndex: null,
  amountFromReceived: null,
  depositConfirmations: null,
  depositConfirmationsRequired: 2,
};
/** Its deposit a:0 of 1 seen, with no confirmation yet. */
const confirming: TrackedOrder = {
  ...waiting,
  status: "confirming",
  depositTxid: "a",
  depositIndex: 0,
  amountFromReceived: "1",
  depositConfirmations: 0,
};
const expired: TrackedOrder = { ...waiting, status: "expired" };

const initial = (order: TrackedOrder): TrackerState => ({
  order,
  pollIdle: 0,
  pollAt: null,
  lateWatchEndAt: order.status === "expired" ? WATCH_END : null,
  watchEnded: false,
  lateSeen: null,
  depositBlock: null,
  extras: [],
});

/** What the chain says: its listing and tip, the blocks reorged out, the pair's limits now. */
interface World {
  listing: ListedTransfer[];
  tip?: number;
  orphaned?: string[];
  limits?: FloatLimits;
}

/** Drives trackDeposit as the object does: answers each question from `world` until it is done. */
function drive(state: TrackerState, world: World, now: number, carried = false) {
  let chain: ChainView = carried ? { listing: world.listing, tip: world.tip ?? 100, carried } : {};
  const asked: string[] = [];
  for (;;) {
    const result = trackDeposit(state, chain, now, params);
    if (result.kind === "done") return { ...result, asked };
    const q = result.question;
    asked.push(q.ask === "in_best_chain" ? `in_best_chain ${chainKey(q.transfer)}` : q.ask);
    if (asked.length > 10) throw new Error(`asks without end: ${asked.join(", ")}`);
    if (q.ask === "listing") chain = { ...chain, listing: world.listing };
    if (q.ask === "tip") chain = { ...chain, tip: world.tip ?? 100 };
    if (q.ask === "limits")
      chain = { ...chain, limits: world.limits ?? { min: parseDecimal("0.5"), max: parseDecimal("10") } };
    if (q.ask === "in_best_chain") {
      const inBest = !(world.orphaned ?? []).includes(q.transfer.blockHash ?? "");
      chain = { ...chain, inBestChain: new Map(chain.inBestChain).set(chainKey(q.transfer), inBest) };
    }
  }
}

interface Case {
  name: string;
  state: TrackerState;
  world: World;
  now: number;
  carried?: boolean;
  effects: TrackerEffect[];
  /** The fields of the state after the run that the case is about. */
  after?: Partial<Omit<TrackerState, "order">> & { order?: Partial<TrackedOrder> };
  /** The chain questions, in the order asked. */
  asked?: string[];
}

const NOW = T + 60_000;
const confirmedPatch = (t: ListedTransfer, confirmations: number) => ({
  depositConfirmations: confirmations,
  depositTxid: t.txid,
  depositIndex: t.index,
  amountFromReceived: t.amount,
});
const accepted: OrderEvent = { type: "deposit_confirmed", acceptable: true };
const rejected = (reason: StatusReason): OrderEvent => ({
  type: "deposit_confirmed",
  acceptable: false,
  reason,
});
/** Seen while waiting: confirming, then followed in the same run. */
const seenThenFollowed = (t: ListedTransfer, confirmations: number): TrackerEffect[] => [
  {
    kind: "event",
    event: { type: "deposit_seen", txid: t.txid, amount: t.amount, confirmations },
    patch: { depositIndex: t.index },
  },
  { kind: "follow" },
];
/** Confirmed and acceptable: exchanging, the next step at once. */
const exchanges = (t: ListedTransfer, confirmations: number): TrackerEffect[] => [
  { kind: "event", event: accepted, patch: confirmedPatch(t, confirmations) },
  { kind: "step" },
];
/** Confirmed but not acceptable: refunded or held, with the held funds' actions priced. */
const holds = (t: ListedTransfer, confirmations: number, reason: StatusReason): TrackerEffect[] => [
  {
    kind: "event",
    event: rejected(reason),
    patch: confirmedPatch(t, confirmations),
    heldInputs: { amountFromReceived: t.amount },
  },
  { kind: "step" },
];

function check(c: Case) {
  const result = drive(c.state, c.world, c.now, c.carried);
  expect(result.effects).toEqual(c.effects);
  if (c.after) expect(result.state).toMatchObject(c.after);
  if (c.asked) expect(result.asked).toEqual(c.asked);
}

describe("trackDeposit: waiting for the deposit (polling and timing)", () => {
  const a = tx("a", 0, "1", null);
  const cases: Case[] = [
    {
      name: "poll not due before the deadline: the chain is not read",
      state: { ...initial(waiting), pollAt: NOW + 1 },
      world: { listing: [a] },
      now: NOW,
      effects: [],
      after: { pollAt: NOW + 1, pollIdle: 0 },
      asked: [],
    },
    {
      name: "nothing listed: the next poll further apart (backoff)",
      state: { ...initial(waiting), pollIdle: 1, pollAt: NOW },
      world: { listing: [] },
      now: NOW,
      effects: [],
      after: { pollIdle: 2, pollAt: NOW + 4 * BASE },
      asked: ["listing"],
    },
    {
      name: "at the deadline the chain is read whatever the backoff says; nothing there → expire",
      state: { ...initial(waiting), pollAt: EXPIRES + 50_000 },
      world: { listing: [] },
      now: EXPIRES,
      effects: [{ kind: "event", event: { type: "expire" } }],
      after: { order: { status: "expired" }, pollIdle: 1 },
      asked: ["listing"],
    },
    {
      name: "first deposit seen in the mempool → deposit_seen, then its confirmations in the same run",
      state: initial(waiting),
      world: { listing: [a] },
      now: NOW,
      effects: [...seenThenFollowed(tx("a", 0, "1", null), 0)],
      after: { order: { status: "confirming", depositTxid: "a" }, pollIdle: 0, pollAt: NOW + BASE },
      asked: ["listing", "tip"],
    },
    {
      name: "the earliest by block drives the order, with the confirmations it has",
      state: initial(waiting),
      world: { listing: [tx("m", 0, "5", null), tx("b", 1, "1", 99)], tip: 100 },
      now: NOW,
      effects: [...seenThenFollowed(tx("b", 1, "1", null), 2)],
    },
    {
      name: "first seen within the on-time grace after the deadline: on time",
      state: initial(waiting),
      world: { listing: [a] },
      now: EXPIRES + 10 * 60_000,
      effects: [...seenThenFollowed(tx("a", 0, "1", null), 0)],
    },
    {
      name: "first seen beyond the grace: expired, and handled as a late deposit",
      state: initial(waiting),
      world: { listing: [a] },
      now: EXPIRES + 10 * 60_000 + 1,
      effects: [
        {
          kind: "note",
          reason: "deposit first seen long after expires_at: handled as a late deposit",
          data: { txid: "a", amount: "1" },
        },
        { kind: "event", event: { type: "expire" } },
      ],
      after: { order: { status: "expired" }, pollIdle: 0, pollAt: EXPIRES + 10 * 60_000 + 1 + BASE },
      asked: ["listing"],
    },
    {
      name: "an extra deposit that is now the first drives the order: its refund is no longer offered",
      state: { ...initial(waiting), extras: ["a:0", "z:9"] },
      world: { listing: [a] },
      now: NOW,
      effects: [
        {
          kind: "note",
          reason: "an extra deposit now drives the order: its refund is no longer offered",
          data: { txid: "a", index: 0 },
        },
        ...seenThenFollowed(tx("a", 0, "1", null), 0),
      ],
      after: { extras: ["z:9"] },
    },
  ];
  it.each(cases)("$name", check);
});

describe("trackDeposit: confirming (acceptable deposits, drops, re-mined, windowed listings)", () => {
  const mined = tx("a", 0, "1", 99);
  const cases: Case[] = [
    {
      name: "one more confirmation → confirmations; the deposit's block is kept",
      state: initial(confirming),
      world: { listing: [tx("a", 0, "1", 100)], tip: 100 },
      now: NOW,
      effects: [{ kind: "event", event: { type: "confirmations", confirmations: 1 } }],
      after: { pollIdle: 0, pollAt: NOW + BASE, depositBlock: { height: 100, hash: "h100" } },
      asked: ["listing", "tip"],
    },
    {
      name: "no new confirmation: nothing applied, the next poll further apart",
      state: initial({ ...confirming, depositConfirmations: 1 }),
      world: { listing: [tx("a", 0, "1", 100)], tip: 100 },
      now: NOW,
      effects: [],
      after: { pollIdle: 1, pollAt: NOW + 2 * BASE },
    },
    {
      name: "poll not due: the chain is not read",
      state: { ...initial(confirming), pollAt: NOW + 1 },
      world: { listing: [mined] },
      now: NOW,
      effects: [],
      asked: [],
    },
    {
      name: "carried from the deposit just seen: read at once whatever the poll schedule says",
      state: { ...initial(confirming), pollAt: NOW + BASE },
      world: { listing: [mined] },
      now: NOW,
      carried: true,
      effects: exchanges(mined, 2),
    },
    {
      name: "confirmed, float amount within the pair limits → exchanging, next step at once",
      state: initial(confirming),
      world: { listing: [mined] },
      now: NOW,
      effects: exchanges(mined, 2),
      after: { order: { status: "exchanging" }, depositBlock: { height: 99, hash: "h99" } },
      asked: ["listing", "tip", "in_best_chain a:0@h99", "limits"],
    },
    {
      name: "confirmed below the pair minimum → refunding, the held funds' actions priced",
      state: initial({ ...confirming, amountFromReceived: "0.1" }),
      world: { listing: [tx("a", 0, "0.1", 99)] },
      now: NOW,
      effects: [...holds(tx("a", 0, "0.1", 99), 2, "amount_below_min")],
      after: { order: { status: "refunding", statusReason: "amount_below_min" } },
    },
    {
      name: "confirmed above the pair maximum with no refund address → failed (held)",
      state: initial({ ...confirming, refundAddress: null, amountFromReceived: "11" }),
      world: { listing: [tx("a", 0, "11", 99)] },
      now: NOW,
      effects: [...holds(tx("a", 0, "11", 99), 2, "amount_above_max")],
      after: { order: { status: "failed" } },
    },
    {
      name: "a dust first deposit is pushed aside by a later confirmed acceptable one, which drives the order",
      state: initial({ ...confirming, amountFromReceived: "0.001" }),
      world: { listing: [tx("a", 0, "0.001", 98), tx("b", 0, "1", 99)] },
      now: NOW,
      effects: [
        { kind: "extra", txid: "b", index: 0, amount: "1" },
        {
          kind: "note",
          reason: "an extra deposit now drives the order: its refund is no longer offered",
          data: { txid: "b", index: 0 },
        },
        {
          kind: "note",
          reason: "first deposit not acceptable; a later confirmed deposit drives the order",
          data: { txid: "b", index: 0, amount: "1", instead_of: "a" },
        },
        { kind: "extra", txid: "a", index: 0, amount: "0.001" },
        ...exchanges(tx("b", 0, "1", 99), 2),
      ],
      after: { extras: ["a:0"], depositBlock: { height: 99, hash: "h99" }, order: { depositTxid: "b" } },
      asked: ["listing", "tip", "in_best_chain a:0@h98", "limits", "in_best_chain b:0@h99"],
    },
    {
      name: "the acceptable one's block is reorged out: the first drives, with its verdict",
      state: initial({ ...confirming, amountFromReceived: "0.001" }),
      world: { listing: [tx("a", 0, "0.001", 98), tx("b", 0, "1", 99)], orphaned: ["h99"] },
      now: NOW,
      effects: [
        { kind: "extra", txid: "b", index: 0, amount: "1" },
        ...holds(tx("a", 0, "0.001", 98), 3, "amount_below_min"),
      ],
      after: { extras: ["b:0"] },
    },
    {
      name: "a split payment, neither part acceptable alone: the first drives, with its verdict",
      state: initial({ ...confirming, amountFromReceived: "0.3" }),
      world: { listing: [tx("a", 0, "0.3", 98), tx("b", 0, "0.3", 99)] },
      now: NOW,
      effects: [
        { kind: "extra", txid: "b", index: 0, amount: "0.3" },
        ...holds(tx("a", 0, "0.3", 98), 3, "amount_below_min"),
      ],
    },
    {
      name: "a later acceptable deposit short of its confirmations cannot push the first aside",
      state: initial({ ...confirming, amountFromReceived: "0.001" }),
      world: { listing: [tx("a", 0, "0.001", 98), tx("b", 0, "1", 100)] },
      now: NOW,
      effects: [
        { kind: "extra", txid: "b", index: 0, amount: "1" },
        ...holds(tx("a", 0, "0.001", 98), 3, "amount_below_min"),
      ],
    },
    {
      name: "a fixed order confirmed at the end of the rate's confirmation window: acceptable, no limits read",
      state: initial({ ...confirming, rateType: "fixed" }),
      world: { listing: [mined] },
      now: EXPIRES + 30 * 60_000,
      effects: exchanges(mined, 2),
      asked: ["listing", "tip", "in_best_chain a:0@h99"],
    },
    {
      name: "a fixed order confirmed after the window → fixed_rate_expired",
      state: initial({ ...confirming, rateType: "fixed" }),
      world: { listing: [mined] },
      now: EXPIRES + 30 * 60_000 + 1,
      effects: [...holds(mined, 2, "fixed_rate_expired")],
    },
    {
      name: "a fixed order's amount outside the tolerance → fixed_amount_mismatch",
      state: initial({ ...confirming, rateType: "fixed", amountFromReceived: "1.02" }),
      world: { listing: [tx("a", 0, "1.02", 99)] },
      now: NOW,
      effects: [...holds(tx("a", 0, "1.02", 99), 2, "fixed_amount_mismatch")],
    },
    {
      name: "the pair was switched off since: the amount is left to the exchange",
      state: initial({ ...confirming, amountFromReceived: "0.1" }),
      world: { listing: [tx("a", 0, "0.1", 99)], limits: { unavailable: "pair off" } },
      now: NOW,
      effects: [
        {
          kind: "note",
          reason: "pair unavailable at confirmation: left to the exchange",
          data: { error: "pair off" },
        },
        ...exchanges(tx("a", 0, "0.1", 99), 2),
      ],
    },
    {
      name: "confirmed in the listing but reorged out on chain: wait for the listing to catch up",
      state: initial(confirming),
      world: { listing: [mined], orphaned: ["h99"] },
      now: NOW,
      effects: [],
      after: { pollIdle: 0, pollAt: NOW + BASE, order: { status: "confirming" } },
    },
    {
      name: "dropped from the mempool → back to waiting_deposit, its index cleared",
      state: initial(confirming),
      world: { listing: [] },
      now: NOW,
      effects: [{ kind: "event", event: { type: "deposit_dropped" }, patch: { depositIndex: null } }],
      after: { order: { status: "waiting_deposit", depositTxid: null }, depositBlock: null, pollIdle: 0 },
      asked: ["listing"],
    },
    {
      name: "dropped after the deadline → expired with deposit_dropped",
      state: initial(confirming),
      world: { listing: [] },
      now: EXPIRES + 1,
      effects: [{ kind: "event", event: { type: "deposit_dropped" }, patch: { depositIndex: null } }],
      after: { order: { status: "expired", statusReason: "deposit_dropped" } },
    },
    {
      name: "scrolled out of a windowed listing: followed through its block, and confirmed",
      state: { ...initial(confirming), depositBlock: { height: 99, hash: "h99" } },
      world: { listing: [] },
      now: NOW,
      effects: exchanges(mined, 2),
      asked: ["listing", "in_best_chain a:0@h99", "tip", "limits"],
    },
    {
      name: "out of the listing and its block reorged out: dropped",
      state: { ...initial(confirming), depositBlock: { height: 99, hash: "h99" } },
      world: { listing: [], orphaned: ["h99"] },
      now: NOW,
      effects: [{ kind: "event", event: { type: "deposit_dropped" }, patch: { depositIndex: null } }],
      after: { depositBlock: null },
    },
    {
      name: "re-mined under another index: followed there, not dropped",
      state: initial(confirming),
      world: { listing: [tx("a", 3, "1", 99)] },
      now: NOW,
      effects: [
        { kind: "record", patch: { depositIndex: 3 } },
        {
          kind: "note",
          reason: "deposit re-mined under another index",
          data: { txid: "a", from_index: 0, to_index: 3 },
        },
        ...exchanges(tx("a", 3, "1", 99), 2),
      ],
    },
    {
      name: "another transfer while confirming is an extra deposit, logged once",
      state: { ...initial({ ...confirming, depositConfirmations: 1 }), extras: ["z:0"] },
      world: { listing: [tx("a", 0, "1", 100), tx("c", 0, "5", null), tx("z", 0, "2", null)] },
      now: NOW,
      effects: [{ kind: "extra", txid: "c", index: 0, amount: "5" }],
      after: { extras: ["z:0", "c:0"] },
    },
  ];
  it.each(cases)("$name", check);
});

describe("trackDeposit: an expired order's late-deposit watch", () => {
  const LATE = EXPIRES + 60 * 60_000;
  const seen: LateSeen = { txid: "a", index: 0, at: LATE - 5 * 60_000, amount: "1", block: null };
  const late = (over: Partial<TrackedOrder> = {}, lateSeen: LateSeen | null = null): TrackerState => ({
    ...initial({ ...expired, ...over }),
    lateSeen,
  });
  const lateEvent = (t: ListedTransfer, at: number, confs: number): TrackerEffect => ({
    kind: "event",
    event: { type: "late_deposit", txid: t.txid, amount: t.amount, seenAt: at },
    patch: { depositIndex: t.index, depositConfirmations: confs },
    heldInputs: { amountFromReceived: t.amount },
  });
  const cases: Case[] = [
    {
      name: "nothing listed: polled at the late watch's slow cadence",
      state: late(),
      world: { listing: [] },
      now: LATE,
      effects: [],
      after: { pollIdle: 1, pollAt: LATE + 60_000 },
      asked: ["listing"],
    },
    {
      name: "a late deposit in the mempool is remembered, never refunded before it confirms",
      state: late(),
      world: { listing: [tx("a", 0, "1", null)] },
      now: LATE,
      effects: [
        {
          kind: "note",
          reason: "late deposit seen: refunded once confirmed",
          data: { txid: "a", amount: "1" },
        },
      ],
      after: { lateSeen: { txid: "a", index: 0, at: LATE, amount: "1", block: null }, pollAt: LATE + 60_000 },
      asked: ["listing", "tip"],
    },
    {
      name: "the late deposit confirmed → late_deposit as first seen, refunded at once",
      state: late({}, seen),
      world: { listing: [tx("a", 0, "1", 99)] },
      now: LATE,
      effects: [lateEvent(tx("a", 0, "1", 99), seen.at, 2), { kind: "step" }],
      after: { lateSeen: null, order: { status: "refunding", statusReason: "late_deposit" } },
    },
    {
      name: "with no refund address it is held (failed): no step",
      state: late({ refundAddress: null }, seen),
      world: { listing: [tx("a", 0, "1", 99)] },
      now: LATE,
      effects: [lateEvent(tx("a", 0, "1", 99), seen.at, 2)],
      after: { order: { status: "failed" } },
    },
    {
      name: "seen inside the watch, confirmed after it: still refunded; the watch-end row cleared",
      state: late({}, { ...seen, at: WATCH_END - 1 }),
      world: { listing: [tx("a", 0, "1", 99)] },
      now: WATCH_END + 3_600_000,
      effects: [lateEvent(tx("a", 0, "1", 99), WATCH_END - 1, 2), { kind: "step" }],
      after: { lateWatchEndAt: null },
    },
    {
      name: "scrolled out of the listing: followed through its block",
      state: late({}, { ...seen, block: { height: 99, hash: "h99" } }),
      world: { listing: [] },
      now: LATE,
      effects: [lateEvent(tx("a", 0, "1", 99), seen.at, 2), { kind: "step" }],
    },
    {
      name: "disappeared before confirming: forgotten, and the watch goes on",
      state: late({}, seen),
      world: { listing: [] },
      now: LATE,
      effects: [{ kind: "note", reason: "late deposit disappeared before confirming", data: { txid: "a" } }],
      after: { lateSeen: null, pollAt: LATE + 60_000 },
    },
    {
      name: "other transfers during the late watch are extra deposits",
      state: late({}, { ...seen, block: { height: 100, hash: "h100" } }),
      world: { listing: [tx("a", 0, "1", 100), tx("b", 0, "3", null)] },
      now: LATE,
      effects: [{ kind: "extra", txid: "b", index: 0, amount: "3" }],
      after: { extras: ["b:0"] },
    },
    {
      name: "the watch over with nothing seen → watch_ended once; nothing due; the chain not read",
      state: late(),
      world: { listing: [tx("a", 0, "1", 99)] },
      now: WATCH_END,
      effects: [{ kind: "event", event: { type: "watch_ended" } }],
      after: { watchEnded: true, pollAt: null, lateWatchEndAt: null },
      asked: [],
    },
    {
      name: "the watch over with extra deposits: their refunds offered, the index row rewritten",
      state: { ...late(), extras: ["b:0"] },
      world: { listing: [] },
      now: WATCH_END,
      effects: [{ kind: "event", event: { type: "watch_ended" } }, { kind: "projection" }],
    },
    {
      name: "the watch ended before: nothing more",
      state: { ...late(), watchEnded: true, pollAt: WATCH_END },
      world: { listing: [] },
      now: WATCH_END + 1,
      effects: [],
      after: { pollAt: null },
      asked: [],
    },
  ];
  it.each(cases)("$name", check);
});

describe("trackDeposit: extra deposits after the deposit was taken", () => {
  const taken = (status: OrderStatus): TrackerState =>
    initial({ ...confirming, status, depositConfirmations: 2 });
  const listing = [tx("a", 0, "1", 90), tx("c", 0, "5", null)];
  const statuses: OrderStatus[] = ["exchanging", "sending", "completed", "refunding", "refunded", "failed"];
  it.each(statuses)("%s: a new transfer is logged once, its refund offered at once", (status) => {
    check({
      name: status,
      state: taken(status),
      world: { listing },
      now: NOW,
      effects: [{ kind: "extra", txid: "c", index: 0, amount: "5" }, { kind: "projection" }],
      after: { extras: ["c:0"], pollIdle: 0, pollAt: NOW + 60_000 },
      asked: ["listing"],
    });
    check({
      name: `${status}, again`,
      state: { ...taken(status), extras: ["c:0"] },
      world: { listing },
      now: NOW,
      effects: [],
      after: { pollIdle: 1, pollAt: NOW + 60_000 },
    });
  });

  it("after the late-deposit watch ends the address is no longer read", () => {
    check({
      name: "watch over",
      state: { ...taken("completed"), pollAt: WATCH_END },
      world: { listing },
      now: WATCH_END,
      effects: [],
      after: { pollAt: null },
      asked: [],
    });
  });

  it("poll not due: not read", () => {
    check({
      name: "not due",
      state: { ...taken("refunded"), pollAt: NOW + 1 },
      world: { listing },
      now: NOW,
      effects: [],
      asked: [],
    });
  });
});

describe("checkAfterWatch (the slow sweep after the late-deposit watch)", () => {
  const HORIZON = 90 * 86_400_000;
  const completed: TrackedOrder = { ...confirming, status: "completed", depositConfirmations: 2 };
  const listing = [t("a", 0, "1", 50), t("b", 0, "0.3", 60)];
  /** The run on `state` at `now`: the listing it asked for (if any), its effects and extras. */
  function check(state: TrackerState, now: number) {
    const first = checkAfterWatch(state, {}, now, params, HORIZON);
    if (first.kind === "done") return { read: false, effects: first.effects, extras: first.state.extras };
    expect(first.question).toEqual({ ask: "listing" });
    const done = checkAfterWatch(state, { listing }, now, params, HORIZON);
    if (done.kind !== "done") throw new Error("asked twice");
    return { read: true, effects: done.effects, extras: done.state.extras };
  }

  it("after the watch: every new transfer is an extra deposit, its refund offered at once", () => {
    expect(check(initial(completed), WATCH_END + 1)).toEqual({
      read: true,
      effects: [{ kind: "extra", txid: "b", index: 0, amount: "0.3" }, { kind: "projection" }],
      extras: ["b:0"],
    });
    expect(check({ ...initial(completed), extras: ["b:0"] }, WATCH_END + 1)).toEqual({
      read: true,
      effects: [],
      extras: ["b:0"],
    });
  });

  it("not read during the watch, past the horizon, or in an expired order whose watch is still open", () => {
    const none = { read: false, effects: [], extras: [] };
    expect(check(initial(completed), WATCH_END - 1)).toEqual(none);
    expect(check(initial(completed), WATCH_END + HORIZON)).toEqual(none);
    expect(check(initial(expired), WATCH_END + 1)).toEqual(none);
    expect(check(initial(confirming), WATCH_END + 1)).toEqual(none);
    // Once its watch closed, an expired order's every transfer is extra (it runs on none).
    expect(check({ ...initial(expired), watchEnded: true }, WATCH_END + 1).extras).toEqual(["a:0", "b:0"]);
  });
});
