/**
 * Watching an order's deposit address, as one pure function (docs/lifecycle.md, "Polling and
 * timing", "Acceptable deposits", "Extra deposits"): `trackDeposit` takes what the tracker stores,
 * what the chain says and the time, and returns what to do — events for the state machine, log
 * rows, extra deposits, the next poll — and what to store. The order object's deposit tracker
 * (src/objects/order/deposit-tracker.ts) loads the state, answers the chain questions and applies the
 * effects. The small helpers below are its steps.
 */

import { chooseDeposit, findDeposit } from "./deposit";
import { holdDue, holdRefundTo, type OrderHold } from "./holds";
import type { Decimal } from "./money";
import { parseDecimal } from "./money";
import type { OrderRecord } from "./order";
import { decide, type EventData, type OrderEvent, type OrderStatus, stateViewOf } from "./order-state";
import { depositAcceptability } from "./settlement";

/** What a listing needs of a transfer here. */
export interface ListedTransfer {
  txid: string;
  index: number;
  amount: string;
  blockHeight: number | null;
  /** Hash of the including block, or null while unconfirmed (absent where only the height matters). */
  blockHash?: string | null;
  /** The single sender, where the chain names one (the reader's `from`). */
  from?: string;
  /** The addresses the inputs spend from, on UTXO chains (the reader's `sources`). */
  sources?: readonly string[];
}

/** Confirmations of a transfer at a tip: 0 in the mempool, 1 in the tip block. */
export function confirmations(transfer: Pick<ListedTransfer, "blockHeight">, tip: number): number {
  return transfer.blockHeight === null ? 0 : Math.max(0, tip - transfer.blockHeight + 1);
}

export const transferId = (t: Pick<ListedTransfer, "txid" | "index">) => `${t.txid}:${t.index}`;

/** Polls in a row that changed nothing double the interval, up to 2^MAX_POLL_BACKOFF (8×). */
export const MAX_POLL_BACKOFF = 3;

/**
 * The next chain read: at the base interval after a change, further apart while nothing happens,
 * never sooner than `minMs` (the late watches read at most once a minute).
 */
export function nextPoll(
  now: number,
  idleBefore: number,
  changed: boolean,
  baseMs: number,
  minMs = 0,
): { idle: number; at: number } {
  const idle = changed ? 0 : idleBefore + 1;
  return { idle, at: now + Math.max(minMs, baseMs * 2 ** Math.min(idle, MAX_POLL_BACKOFF)) };
}

/** Earliest first: confirmed by height, then the mempool; the first deposit drives the order. */
export function byArrival<T extends ListedTransfer>(transfers: readonly T[]): T[] {
  return [...transfers].sort(
    (a, b) =>
      (a.blockHeight ?? Number.MAX_SAFE_INTEGER) - (b.blockHeight ?? Number.MAX_SAFE_INTEGER) ||
      a.txid.localeCompare(b.txid) ||
      a.index - b.index,
  );
}

export type WaitingStep<T> =
  | { kind: "nothing"; expire: boolean }
  /** First seen so long after the deadline that nobody can tell when it was sent: handled as late. */
  | { kind: "late"; deposit: T }
  | { kind: "seen"; deposit: T };

/**
 * An order waiting for its deposit, given the listing (earliest first): the first transfer drives
 * it; with none, it expires once the deadline has passed.
 */
export function waitingStep<T extends ListedTransfer>(
  transfers: readonly T[],
  now: number,
  expiresAt: number,
  onTimeGraceMs: number,
): WaitingStep<T> {
  const [first] = transfers;
  if (!first) return { kind: "nothing", expire: now >= expiresAt };
  return now > expiresAt + onTimeGraceMs
    ? { kind: "late", deposit: first }
    : { kind: "seen", deposit: first };
}

export type ConfirmStep =
  | { kind: "confirming"; confirmations: number; changed: boolean }
  | { kind: "confirmed"; confirmations: number };

/** How far the order's deposit has got, with `confirmations` as the chain counts them now. */
export function confirmStep(confirmations: number, required: number, recorded: number | null): ConfirmStep {
  return confirmations < required
    ? { kind: "confirming", confirmations, changed: confirmations !== recorded }
    : { kind: "confirmed", confirmations };
}

/**
 * The transfers in a listing that are neither the order's deposit (`driving`) nor logged already:
 * new extra deposits, to log once each.
 */
export function freshExtras<T extends ListedTransfer>(
  transfers: readonly T[],
  driving: Pick<ListedTransfer, "txid" | "index"> | null,
  logged: ReadonlySet<string>,
): T[] {
  return transfers.filter(
    (t) => !(driving && t.txid === driving.txid && t.index === driving.index) && !logged.has(transferId(t)),
  );
}

/** The listed transfers other than `ours` with the confirmations an order needs: candidates to drive it. */
export function confirmedOthers<T extends ListedTransfer>(
  transfers: readonly T[],
  ours: Pick<ListedTransfer, "txid" | "index">,
  confirmationsOf: (t: T) => number,
  required: number,
): T[] {
  return transfers.filter(
    (t) => !(t.txid === ours.txid && t.index === ours.index) && confirmationsOf(t) >= required,
  );
}

// ── the tracker ───────────────────────────────────────────────────────────────────────────────

/**
 * A deposit first seen this long after expires_at is treated as late (refunded), not as on time: the
 * deadline poll normally sees an in-time deposit within seconds, so only a chain-read outage gets
 * here, and then nobody knows when it was sent. A fixed rate must not be honoured hours late.
 */
export const ON_TIME_GRACE_MS = 10 * 60_000;
/** The late watches (an expired order's, and for extra deposits) poll at least this far apart. */
export const LATE_WATCH_MIN_POLL_MS = 60_000;
/** The statuses in which the order has taken its deposit and its address is watched for extra ones. */
const WATCHED_AFTER_DEPOSIT: ReadonlySet<OrderStatus> = new Set([
  "exchanging",
  "sending",
  "completed",
  "refunding",
  "refunded",
  "failed",
]);

/** Whether the order's step is the tracker's own (it waits for, or follows, its deposit). */
export const tracksOwnDeposit = (status: OrderStatus) =>
  status === "waiting_deposit" || status === "confirming" || status === "expired";

export interface DepositBlock {
  height: number;
  hash: string;
}

/** A late deposit seen but not yet confirmed. */
export interface LateSeen {
  txid: string;
  index: number;
  /** When the deposit was first seen (epoch ms): it counts even if it confirms after the watch. */
  at: number;
  amount: string;
  /** The block it was last seen in, to follow it out of a windowed listing. */
  block: DepositBlock | null;
}

/** What the tracker reads of the order record. */
export type TrackedOrder = Pick<
  OrderRecord,
  | "status"
  | "statusReason"
  | "expiresAt"
  | "lateWatchEndsAt"
  | "refundAddress"
  | "refundAddressTag"
  | "depositSender"
  | "hold"
  | "rateType"
  | "amountFromExpected"
  | "depositTxid"
  | "depositIndex"
  | "amountFromReceived"
  | "depositConfirmations"
  | "depositConfirmationsRequired"
>;

/** What the tracker stores between runs, with the order it watches for. */
export interface TrackerState {
  order: TrackedOrder;
  /** Polls in a row that changed nothing; the poll interval doubles with it, up to 8×. */
  pollIdle: number;
  /** The next chain read (the schedule's poll row); null: none. */
  pollAt: number | null;
  /** The schedule's end-of-late-watch row; null: none. */
  lateWatchEndAt: number | null;
  /** An expired order's late-deposit watch is over: nothing is due any more. */
  watchEnded: boolean;
  lateSeen: LateSeen | null;
  /** The block the driving deposit was last seen in, for when it falls out of a windowed listing. */
  depositBlock: DepositBlock | null;
  /** The extra deposits, as "txid:index", in the order they were logged. */
  extras: readonly string[];
}

/** A float order's pair limits now: null when the pair is not offered; `unavailable` when it is switched off. */
export type FloatLimits = { min: Decimal; max: Decimal } | null | { unavailable: string };

/** What the chain (and the pair's pricing) said this run; an absent answer is asked for. */
export interface ChainView {
  /** The incoming transfers to the deposit address (any order). */
  listing?: readonly ListedTransfer[];
  tip?: number;
  /** Whether a transfer's block is in the best chain, by `chainKey`. */
  inBestChain?: ReadonlyMap<string, boolean>;
  limits?: FloatLimits;
  /** The listing and tip were read by this run's step before (a deposit just seen): go on whatever the poll schedule says. */
  carried?: boolean;
}

/** What the tracker needs to know next. */
export type ChainQuestion =
  | { ask: "listing" }
  | { ask: "tip" }
  | { ask: "in_best_chain"; transfer: ListedTransfer }
  | { ask: "limits" };

/** The key of an `inBestChain` answer: the transfer in its block. */
export const chainKey = (t: ListedTransfer) => `${transferId(t)}@${t.blockHash ?? ""}`;

export interface TrackerParams {
  /** CHAIN_POLL_SECONDS in ms: the poll interval after a change. */
  pollBaseMs: number;
  fixedToleranceBps: number;
  /** FIXED_RATE_CONFIRM_MINUTES in ms. */
  fixedRateConfirmMs: number;
}

/** What to do, in order; a run has at most one event, after every record change. */
export type TrackerEffect =
  /**
   * One event through the state machine with `patch` on the record; `heldInputs`: price the
   * actions of held funds, on the record with these fields.
   */
  | { kind: "event"; event: OrderEvent; patch?: Partial<OrderRecord>; heldInputs?: Partial<OrderRecord> }
  /** The record changes with no transition (the deposit's index). */
  | { kind: "record"; patch: Partial<OrderRecord> }
  /** A log row without a status change. */
  | { kind: "note"; reason: string; data: EventData }
  /** An extra deposit's log row (the record of its amount; its refund is offered in actions). */
  | { kind: "extra"; txid: string; index: number; amount: string }
  /** The index row must be written again (an extra deposit's refund is now offered). */
  | { kind: "projection" }
  /** Run the tracker again now on the changed record, with this run's listing and tip (a deposit that arrives confirmed). */
  | { kind: "follow" }
  /** Run the order's next step now (a confirmed deposit to exchange, a late deposit to refund). */
  | { kind: "step" };

export type TrackerResult =
  | { kind: "ask"; question: ChainQuestion }
  | { kind: "done"; effects: TrackerEffect[]; state: TrackerState };

/** An answer the chain view lacks: asked for, and the run starts over once it is there. */
class Unanswered {
  constructor(readonly question: ChainQuestion) {}
}

/**
 * One run of the deposit address's watch: the first deposit while the order waits (the deadline,
 * the on-time grace), its confirmations (a drop, a re-mined index, a deposit followed out of a
 * windowed listing through its block, a dust or split first deposit pushed aside by an acceptable
 * one, the fixed rate's confirmation window), an expired order's late deposit and the end of its
 * watch, and every other transfer as an extra deposit until the late-deposit watch ends. Returns
 * the effects and the state to store, or the question to answer first (then call it again with the
 * answer added to `chain`).
 */
export function trackDeposit(
  state: TrackerState,
  chain: ChainView,
  now: number,
  params: TrackerParams,
): TrackerResult {
  return runTracker(new TrackerRun(state, chain, now, params), (run) => run.run());
}

/** The statuses whose address the slow sweep reads after the late-deposit watch. */
const READ_AFTER_WATCH: ReadonlySet<OrderStatus> = new Set(["completed", "refunded", "failed", "expired"]);

/**
 * The slow sweep's read of an address after its late-deposit watch ended, until `horizonMs` after
 * that (docs/lifecycle.md, "After the watch"): every new transfer is an extra deposit, its refund
 * offered as during the watch. An expired order whose watch the tracker has not closed yet is left
 * to it: a deposit seen then is the order's late deposit, not an extra one.
 */
export function checkAfterWatch(
  state: TrackerState,
  chain: ChainView,
  now: number,
  params: TrackerParams,
  horizonMs: number,
): TrackerResult {
  return runTracker(new TrackerRun(state, chain, now, params), (run) => run.afterWatch(horizonMs));
}

function runTracker(run: TrackerRun, decide: (run: TrackerRun) => void): TrackerResult {
  try {
    decide(run);
  } catch (err) {
    if (err instanceof Unanswered) return { kind: "ask", question: err.question };
    throw err;
  }
  return { kind: "done", effects: run.effects, state: run.state };
}

class TrackerRun {
  readonly effects: TrackerEffect[] = [];
  state: TrackerState;

  constructor(
    state: TrackerState,
    private readonly chain: ChainView,
    private readonly now: number,
    private readonly params: TrackerParams,
  ) {
    this.state = { ...state };
  }

  get #order(): TrackedOrder {
    return this.state.order;
  }

  run(): void {
    const { status } = this.#order;
    if (status === "waiting_deposit") this.#watchForDeposit();
    else if (status === "confirming") this.#followConfirmations();
    else if (status === "expired") this.#watchLateDeposit();
    else this.#watchForExtras();
  }

  afterWatch(horizonMs: number): void {
    const o = this.#order;
    const endsAt = Date.parse(o.lateWatchEndsAt);
    if (!READ_AFTER_WATCH.has(o.status) || this.now < endsAt || this.now >= endsAt + horizonMs) return;
    if (o.status === "expired" && !this.state.watchEnded) return;
    // Its refund is offered at once: the review queue must list the order.
    if (this.#logExtraDeposits(this.#listing()) > 0) this.effects.push({ kind: "projection" });
  }

  // ── the chain's answers ──

  #listing(): ListedTransfer[] {
    if (!this.chain.listing) throw new Unanswered({ ask: "listing" });
    return byArrival(this.chain.listing);
  }

  #tip(): number {
    if (this.chain.tip === undefined) throw new Unanswered({ ask: "tip" });
    return this.chain.tip;
  }

  #inBestChain(t: ListedTransfer): boolean {
    const answer = this.chain.inBestChain?.get(chainKey(t));
    if (answer === undefined) throw new Unanswered({ ask: "in_best_chain", transfer: t });
    return answer;
  }

  /** The pair's limits for the amount check; a pair switched off since leaves it to the exchange. */
  #floatLimits(): { min: Decimal; max: Decimal } | null | "unchecked" {
    const { limits } = this.chain;
    if (limits === undefined) throw new Unanswered({ ask: "limits" });
    if (limits === null || !("unavailable" in limits)) return limits;
    this.#note("pair unavailable at confirmation: left to the exchange", { error: limits.unavailable });
    return "unchecked";
  }

  // ── effects ──

  /**
   * An event through the state machine; returns the status it moves to, or null when the machine
   * rejects it (decided as the object will).
   */
  #event(
    event: OrderEvent,
    patch?: Partial<OrderRecord>,
    heldInputs?: Partial<OrderRecord>,
  ): OrderStatus | null {
    this.effects.push({ kind: "event", event, ...(patch && { patch }), ...(heldInputs && { heldInputs }) });
    const o = this.#order;
    const decision = decide(stateViewOf(o), event, this.now);
    if (!decision.ok) return null;
    this.state.order = { ...o, ...decision.patch, ...patch };
    return decision.patch.status;
  }

  #note(reason: string, data: EventData): void {
    this.effects.push({ kind: "note", reason, data });
  }

  #pollDue(): boolean {
    return this.chain.carried === true || this.now >= (this.state.pollAt ?? 0);
  }

  /** Next poll: soon after a change, further apart while nothing happens. */
  #schedulePoll(changed: boolean, minMs = 0): void {
    const next = nextPoll(this.now, this.state.pollIdle, changed, this.params.pollBaseMs, minMs);
    this.state.pollIdle = next.idle;
    this.state.pollAt = next.at;
  }

  /** Only the driving deposit counts; any other is logged once, its refund offered in actions. Returns how many were new. */
  #logExtraDeposits(
    transfers: readonly ListedTransfer[],
    driving: Pick<ListedTransfer, "txid" | "index"> = {
      txid: this.#order.depositTxid ?? "",
      index: this.#order.depositIndex ?? -1,
    },
  ): number {
    const fresh = freshExtras(transfers, driving, new Set(this.state.extras));
    if (fresh.length === 0) return 0;
    this.state.extras = [...this.state.extras, ...fresh.map(transferId)];
    for (const t of fresh)
      this.effects.push({ kind: "extra", txid: t.txid, index: t.index, amount: t.amount });
    return fresh.length;
  }

  /**
   * An extra deposit that now drives the order (the one before it was dropped or replaced) is the
   * order's business from here: its refund is no longer offered (it is offered only once the order
   * can no longer adopt it, so none is both refunded and exchanged).
   */
  #adoptExtra(t: Pick<ListedTransfer, "txid" | "index">): void {
    const id = transferId(t);
    if (!this.state.extras.includes(id)) return;
    this.state.extras = this.state.extras.filter((e) => e !== id);
    this.#note("an extra deposit now drives the order: its refund is no longer offered", {
      txid: t.txid,
      index: t.index,
    });
  }

  /**
   * The deposit as it was last seen in a block, if that block is still in the best chain. Listings
   * can be windowed (the EVM reader scans only recent blocks for native coins; token logs have a
   * lookback): a deposit that scrolled out of the window while confirming has not been dropped.
   * One that was never mined and disappears has been.
   */
  #stillMined(
    deposit: Pick<ListedTransfer, "txid" | "index" | "amount">,
    block: DepositBlock | null,
  ): ListedTransfer | undefined {
    if (!block) return undefined;
    const t: ListedTransfer = { ...deposit, blockHeight: block.height, blockHash: block.hash };
    return this.#inBestChain(t) ? t : undefined;
  }

  // ── the steps ──

  #watchForDeposit(): void {
    const expiresAt = Date.parse(this.#order.expiresAt);
    const pastDeadline = this.now >= expiresAt;
    // At the deadline, look once more whatever the backoff says: a deposit made after the last idle
    // poll must not be expired and then refunded as late. If that read fails, the order stays
    // waiting_deposit until a read succeeds.
    if (pastDeadline || this.#pollDue()) {
      const all = this.#listing();
      const step = waitingStep(all, this.now, expiresAt, ON_TIME_GRACE_MS);
      if (step.kind === "late") {
        // Expire now; the late-deposit watch takes this deposit from here.
        this.#note("deposit first seen long after expires_at: handled as a late deposit", {
          txid: step.deposit.txid,
          amount: step.deposit.amount,
        });
        this.#event({ type: "expire" });
        this.#schedulePoll(true);
        return;
      }
      if (step.kind === "seen") {
        const first = step.deposit;
        this.#adoptExtra(first);
        const seen = this.#event(
          {
            type: "deposit_seen",
            txid: first.txid,
            amount: first.amount,
            confirmations: confirmations(first, this.#tip()),
          },
          { depositIndex: first.index },
        );
        this.#schedulePoll(true);
        // A deposit that arrives already confirmed moves on in the same run.
        if (seen) this.effects.push({ kind: "follow" });
        return;
      }
      this.#schedulePoll(false);
    }
    if (pastDeadline) this.#event({ type: "expire" });
  }

  #followConfirmations(): void {
    if (!this.#pollDue()) return;
    const transfers = this.#listing();
    const o = this.#order;
    const deposit =
      o.depositTxid !== null && o.depositIndex !== null && o.amountFromReceived !== null
        ? { txid: o.depositTxid, index: o.depositIndex, amount: o.amountFromReceived }
        : null;
    const listed = deposit && findDeposit(transfers, deposit, new Set(this.state.extras));
    if (listed && listed.index !== o.depositIndex) {
      // Re-mined in another block under another index: follow it there.
      this.effects.push({ kind: "record", patch: { depositIndex: listed.index } });
      this.#note("deposit re-mined under another index", {
        txid: listed.txid,
        from_index: o.depositIndex,
        to_index: listed.index,
      });
      this.state.order = { ...o, depositIndex: listed.index };
    }
    this.#logExtraDeposits(transfers);
    const ours = listed ?? (deposit ? this.#stillMined(deposit, this.state.depositBlock) : undefined);
    if (!ours) {
      // The held money is gone: so is its hold.
      this.#event({ type: "deposit_dropped" }, { depositIndex: null, ...(o.hold && { hold: null }) });
      this.state.depositBlock = null;
      this.#schedulePoll(true);
      return;
    }
    this.state.depositBlock = blockOf(ours) ?? this.state.depositBlock;
    const tip = this.#tip();
    const r = this.#order;
    const step = confirmStep(
      confirmations(ours, tip),
      r.depositConfirmationsRequired,
      r.depositConfirmations,
    );
    if (step.kind === "confirming") {
      if (step.changed) this.#event({ type: "confirmations", confirmations: step.confirmations });
      this.#schedulePoll(step.changed);
      return;
    }
    if (!this.#inBestChain(ours)) {
      // The listing lags a reorg the chain already knows about: wait for it to catch up.
      this.#schedulePoll(true);
      return;
    }
    if (r.hold) {
      this.#heldConfirmed(r, r.hold, ours, tip);
      return;
    }
    const limits = r.rateType === "float" ? this.#floatLimits() : null;
    const fixed = {
      toleranceBps: this.params.fixedToleranceBps,
      confirmedTooLate: this.now > Date.parse(r.expiresAt) + this.params.fixedRateConfirmMs,
    };
    const judge = (t: ListedTransfer) => depositAcceptability(r, parseDecimal(t.amount), fixed, limits);
    // The other deposits already confirmed, in case the first is not acceptable (dust, a split payment).
    const others = confirmedOthers(
      transfers,
      ours,
      (t) => confirmations(t, tip),
      r.depositConfirmationsRequired,
    );
    let choice = chooseDeposit([ours, ...others], judge) ?? { deposit: ours, verdict: judge(ours) };
    if (choice.deposit !== ours && !this.#inBestChain(choice.deposit))
      choice = { deposit: ours, verdict: judge(ours) };
    const { deposit: driving, verdict } = choice;
    if (driving !== ours) this.#switchDeposit(ours, driving);
    const confirmed = this.#event(
      verdict.acceptable
        ? { type: "deposit_confirmed", acceptable: true }
        : { type: "deposit_confirmed", acceptable: false, reason: verdict.reason },
      {
        depositConfirmations: confirmations(driving, tip),
        depositTxid: driving.txid,
        depositIndex: driving.index,
        amountFromReceived: driving.amount,
      },
      verdict.acceptable ? undefined : { amountFromReceived: driving.amount },
    );
    if (confirmed) this.effects.push({ kind: "step" });
  }

  /**
   * A held deposit, confirmed, goes no further while its hold stands (docs/lifecycle.md, "Holds"):
   * at a refund deadline it goes back; until then the chain is not read again (the deadline, or the
   * hold's end, wakes the order).
   */
  #heldConfirmed(r: TrackedOrder, hold: OrderHold, deposit: ListedTransfer, tip: number): void {
    const to = holdRefundTo(r);
    if (hold.at_deadline === "refund" && holdDue(hold, this.now) && to) {
      const refunding = this.#event(
        { type: "hold_refund", to: to.address },
        {
          depositConfirmations: confirmations(deposit, tip),
          refundAddress: to.address,
          refundAddressTag: to.tag,
          hold: null,
        },
      );
      if (refunding) this.effects.push({ kind: "step" });
      return;
    }
    this.state.pollAt = null;
  }

  /**
   * The first deposit is not acceptable but a later, confirmed one is: that one drives the order and
   * the first becomes an extra deposit (its refund offered in actions).
   */
  #switchDeposit(from: ListedTransfer, to: ListedTransfer): void {
    this.#adoptExtra(to);
    if (!this.state.extras.includes(transferId(from)))
      this.state.extras = [...this.state.extras, transferId(from)];
    this.state.depositBlock = blockOf(to) ?? this.state.depositBlock;
    this.#note("first deposit not acceptable; a later confirmed deposit drives the order", {
      txid: to.txid,
      index: to.index,
      amount: to.amount,
      instead_of: from.txid,
    });
    this.effects.push({ kind: "extra", txid: from.txid, index: from.index, amount: from.amount });
  }

  /**
   * An expired order is watched until lateWatchEndsAt. A deposit first seen in that time is refunded
   * once it has the confirmations an on-time one would need (never out of the mempool: a deposit
   * that is then dropped must not have been paid back), even if they arrive after the watch.
   */
  #watchLateDeposit(): void {
    const seen = this.state.lateSeen;
    const watching = this.now < Date.parse(this.#order.lateWatchEndsAt);
    if (!watching) this.state.lateWatchEndAt = null;
    if (!watching && !seen) {
      this.state.pollAt = null;
      if (!this.state.watchEnded && this.#event({ type: "watch_ended" })) {
        this.state.watchEnded = true;
        // Its extra deposits' refunds are offered from now on: the review queue must list them.
        if (this.state.extras.length > 0) this.effects.push({ kind: "projection" });
      }
      return;
    }
    if (!this.#pollDue()) return;
    const transfers = this.#listing();
    const tracked =
      seen &&
      (findDeposit(transfers, seen, new Set(this.state.extras)) ?? this.#stillMined(seen, seen.block));
    if (seen && !tracked) {
      this.state.lateSeen = null;
      this.#note("late deposit disappeared before confirming", { txid: seen.txid });
    }
    const deposit = tracked || (watching ? transfers[0] : undefined);
    if (!deposit) {
      this.#schedulePoll(false, LATE_WATCH_MIN_POLL_MS);
      return;
    }
    const seenAt = tracked && seen ? seen.at : this.now;
    const block = blockOf(deposit) ?? (tracked && seen ? seen.block : null);
    if (!tracked || block?.hash !== seen?.block?.hash || deposit.index !== seen?.index)
      this.state.lateSeen = {
        txid: deposit.txid,
        index: deposit.index,
        at: seenAt,
        amount: deposit.amount,
        block,
      };
    if (!tracked) {
      this.#adoptExtra(deposit);
      this.#note("late deposit seen: refunded once confirmed", {
        txid: deposit.txid,
        amount: deposit.amount,
      });
    }
    this.#logExtraDeposits(transfers, deposit);
    const confs = confirmations(deposit, this.#tip());
    if (confs < this.#order.depositConfirmationsRequired || !this.#inBestChain(deposit)) {
      this.#schedulePoll(false, LATE_WATCH_MIN_POLL_MS);
      return;
    }
    const next = this.#event(
      { type: "late_deposit", txid: deposit.txid, amount: deposit.amount, seenAt },
      { depositIndex: deposit.index, depositConfirmations: confs },
      // Priced on the late deposit: what its refund pays is fixed by this decision.
      { amountFromReceived: deposit.amount },
    );
    this.state.lateSeen = null;
    if (next === "refunding") this.effects.push({ kind: "step" });
  }

  /**
   * After the order took its deposit, the address is still read until the late-deposit watch ends,
   * at the late watch's slow cadence: every new transfer is an extra deposit, its refund offered.
   */
  #watchForExtras(): void {
    const o = this.#order;
    if (!(WATCHED_AFTER_DEPOSIT.has(o.status) && this.now < Date.parse(o.lateWatchEndsAt))) {
      this.state.pollAt = null;
      return;
    }
    if (!this.#pollDue()) return;
    const fresh = this.#logExtraDeposits(this.#listing());
    // Its refund is offered at once: the review queue must list the order.
    if (fresh > 0) this.effects.push({ kind: "projection" });
    this.#schedulePoll(fresh > 0, LATE_WATCH_MIN_POLL_MS);
  }
}

/** A transfer's block, when it has been mined. */
function blockOf(t: ListedTransfer): DepositBlock | null {
  return t.blockHeight !== null && t.blockHash != null ? { height: t.blockHeight, hash: t.blockHash } : null;
}
