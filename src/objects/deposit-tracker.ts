import type { ChainReader, IncomingTransfer } from "../adapters/chain/types";
import { confirmations } from "../adapters/chain/types";
import type { Config } from "../config";
import { chooseDeposit, findDeposit } from "../domain/deposit";
import {
  byArrival,
  confirmedOthers,
  confirmStep,
  freshExtras,
  MAX_POLL_BACKOFF,
  nextPoll,
  waitingStep,
} from "../domain/deposit-tracking";
import { DomainError } from "../domain/errors";
import { type Decimal, parseDecimal } from "../domain/money";
import type { OrderRecord } from "../domain/order";
import type { ActionInputs } from "../domain/order-actions";
import type { OrderStatus } from "../domain/order-state";
import { PairUnavailableError, pairLimits } from "../domain/pricing";
import { depositAcceptability } from "../domain/settlement";
import { pricingNow } from "../storage/market";
import {
  depositId,
  EXTRA_DEPOSIT_LOGGED,
  EXTRAS_KEY,
  type ExtraDeposit,
  type ExtraDeposits,
} from "./extra-deposits";
import { DUE, type OrderSchedule } from "./order-schedule";
import type { EventData, OrderTransitions } from "./order-transitions";

/** What the tracker needs of the order object: its storage, its state machine and its log. */
export interface DepositTrackerHost extends OrderTransitions {
  readonly env: Env;
  readonly config: Config;
  readonly storage: DurableObjectStorage;
  readonly schedule: OrderSchedule;
  readonly extraDeposits: ExtraDeposits;
  reader(r: OrderRecord): ChainReader;
  /** Writes the record as is, with no transition (a detail of the deposit changed). */
  saveRecord(r: OrderRecord): void;
  log(at: string, from: OrderStatus | null, to: OrderStatus, reason: string, data: EventData | null): void;
  inputsIfHeld(r: OrderRecord, now: number, mayHold: boolean): Promise<ActionInputs | undefined>;
  /** Runs the order's next step at once (a deposit that confirmed, a late deposit to refund). */
  step(now: number): Promise<void>;
}

interface DepositBlock {
  height: number;
  hash: string;
}

interface LateSeen {
  txid: string;
  index: number;
  /** When the deposit was first seen (epoch ms). */
  at: number;
  amount: string;
  /** The block it was last seen in, to follow it out of a windowed listing. */
  block: DepositBlock | null;
}

/** A transfer's block, when it has been mined. */
function blockOf(t: IncomingTransfer): DepositBlock | null {
  return t.blockHeight !== null && t.blockHash !== null ? { height: t.blockHeight, hash: t.blockHash } : null;
}

const K = {
  /** Deposits beyond the first (src/objects/extra-deposits.ts). */
  extras: EXTRAS_KEY,
  /** Polls in a row that changed nothing; the poll interval doubles with it, up to 8×. */
  pollIdle: "poll_idle",
  /** Set once an expired order's late-deposit watch is over: nothing is due any more. */
  watchEnded: "watch_ended",
  /** A late deposit seen but not yet confirmed: when, so that it counts even if it confirms after the watch. */
  lateSeen: "late_seen",
  /** The block the driving deposit was last seen in, for when it falls out of a windowed listing. */
  depositBlock: "deposit_block",
} as const;

/**
 * A deposit first seen this long after expires_at is treated as late (refunded), not as on time: the
 * deadline poll normally sees an in-time deposit within seconds, so only a chain-read outage gets
 * here, and then nobody knows when it was sent. A fixed rate must not be honoured hours late.
 */
const ON_TIME_GRACE_MS = 10 * 60_000;
/** The late watches (an expired order's, and for extra deposits) poll at least this far apart. */
const LATE_WATCH_MIN_POLL_MS = 60_000;
/** The statuses in which the order has taken its deposit and its address is watched for extra ones. */
const WATCHED_AFTER_DEPOSIT: ReadonlySet<OrderStatus> = new Set([
  "exchanging",
  "sending",
  "completed",
  "refunding",
  "refunded",
  "failed",
]);

/**
 * The order's deposit address, watched (docs/lifecycle.md, "Polling and timing", "Acceptable
 * deposits", "Extra deposits"): the first deposit while the order waits, its confirmations (a drop,
 * a re-mined index, a dust first deposit pushed aside by an acceptable one), an expired order's
 * late deposit, and every other transfer as an extra deposit until the late-deposit watch ends.
 * The decisions are the pure functions of src/domain/deposit-tracking.ts.
 */
export class DepositTracker {
  readonly #host: DepositTrackerHost;

  constructor(host: DepositTrackerHost) {
    this.#host = host;
  }

  get #kv(): SyncKvStorage {
    return this.#host.storage.kv;
  }

  get #schedule(): OrderSchedule {
    return this.#host.schedule;
  }

  /** The step of an order that waits for, or follows, its own deposit; false in any other status. */
  async track(r: OrderRecord, now: number): Promise<boolean> {
    switch (r.status) {
      case "waiting_deposit":
        await this.#watchForDeposit(r, now);
        return true;
      case "confirming":
        await this.#followConfirmations(r, now);
        return true;
      case "expired":
        await this.#watchLateDeposit(r, now);
        return true;
      default:
        return false;
    }
  }

  /** Whether an expired order's late-deposit watch is over (its extra deposits' refunds are offered). */
  watchEnded(): boolean {
    return this.#kv.get<boolean>(K.watchEnded) === true;
  }

  /** The next step reads the chain whatever the backoff says (a test helper changed the chain). */
  pollNow(): void {
    this.#kv.put(K.pollIdle, 0);
    this.#schedule.set(DUE.poll, 0);
  }

  /** After a step threw: no chain read before `until`, then at the slowest cadence. */
  postponePoll(until: number): void {
    this.#kv.put(K.pollIdle, MAX_POLL_BACKOFF);
    this.#schedule.set(DUE.poll, until);
  }

  #reader(r: OrderRecord): ChainReader {
    return this.#host.reader(r);
  }

  async #incoming(r: OrderRecord): Promise<IncomingTransfer[]> {
    const asset = {
      coin: r.coinFrom,
      network: r.networkFrom,
      contract: r.contractFrom,
      decimals: r.decimalsFrom,
    };
    return byArrival(await this.#reader(r).incomingTransfers(asset, r.depositAddress, r.depositAddressTag));
  }

  #pollDue(now: number): boolean {
    return now >= (this.#schedule.get(DUE.poll) ?? 0);
  }

  /** Next poll: soon after a change, further apart while nothing happens. */
  #schedulePoll(now: number, changed: boolean, minMs = 0): void {
    const next = nextPoll(
      now,
      this.#kv.get<number>(K.pollIdle) ?? 0,
      changed,
      this.#host.config.CHAIN_POLL_SECONDS * 1000,
      minMs,
    );
    this.#kv.put(K.pollIdle, next.idle);
    this.#schedule.set(DUE.poll, next.at);
  }

  /** Whether the order has its deposit and still reads its address for extra ones (after the exchange started, or after a refund). */
  #watchingForExtras(r: OrderRecord, now: number): boolean {
    return WATCHED_AFTER_DEPOSIT.has(r.status) && now < Date.parse(r.lateWatchEndsAt);
  }

  /**
   * After the order took its deposit, the address is still read until the late-deposit watch ends,
   * at the late watch's slow cadence: every new transfer is an extra deposit, its refund offered
   * (docs/lifecycle.md, "Extra deposits"). A failed read waits for the next poll: it must not delay
   * the exchange or a send.
   */
  async watchForExtras(r: OrderRecord, now: number): Promise<void> {
    if (!this.#watchingForExtras(r, now)) {
      this.#schedule.clear(DUE.poll);
      return;
    }
    if (!this.#pollDue(now)) return;
    let fresh = 0;
    try {
      fresh = this.#logExtraDeposits(r, await this.#incoming(r), now);
    } catch (err) {
      console.warn(
        JSON.stringify({
          level: "warn",
          order: r.id,
          msg: "extra-deposit watch read failed",
          error: String(err),
        }),
      );
    }
    // Its refund is offered at once: the review queue must list the order.
    if (fresh > 0) this.#host.markProjection(now);
    this.#schedulePoll(now, fresh > 0, LATE_WATCH_MIN_POLL_MS);
  }

  async #watchForDeposit(r: OrderRecord, now: number): Promise<void> {
    const pastDeadline = now >= Date.parse(r.expiresAt);
    // At the deadline, look once more whatever the backoff says: a deposit made after the last idle
    // poll must not be expired and then refunded as late. If that read fails, the order stays
    // waiting_deposit until a read succeeds.
    if (pastDeadline || this.#pollDue(now)) {
      const all = await this.#incoming(r);
      const step = waitingStep(all, now, Date.parse(r.expiresAt), ON_TIME_GRACE_MS);
      if (step.kind === "late") {
        // Expire now; the late-deposit watch takes this deposit from here.
        this.#host.note(r, now, "deposit first seen long after expires_at: handled as a late deposit", {
          txid: step.deposit.txid,
          amount: step.deposit.amount,
        });
        this.#host.apply(r, { type: "expire" }, now);
        this.#schedulePoll(now, true);
        return;
      }
      if (step.kind === "seen") {
        const first = step.deposit;
        this.#adoptExtra(r, first, now);
        const tip = await this.#reader(r).tipHeight();
        const next = this.#host.apply(
          r,
          {
            type: "deposit_seen",
            txid: first.txid,
            amount: first.amount,
            confirmations: confirmations(first, tip),
          },
          now,
          { depositIndex: first.index },
        );
        this.#schedulePoll(now, true);
        // A deposit that arrives already confirmed moves on in the same run.
        if (next) await this.#followConfirmations(next, now, { transfers: all, tip });
        return;
      }
      this.#schedulePoll(now, false);
    }
    if (pastDeadline) this.#host.apply(r, { type: "expire" }, now);
  }

  async #followConfirmations(
    order: OrderRecord,
    now: number,
    seen?: { transfers: IncomingTransfer[]; tip: number },
  ): Promise<void> {
    if (!seen && !this.#pollDue(now)) return;
    const reader = this.#reader(order);
    const transfers = seen?.transfers ?? (await this.#incoming(order));
    const deposit =
      order.depositTxid !== null && order.depositIndex !== null && order.amountFromReceived !== null
        ? { txid: order.depositTxid, index: order.depositIndex, amount: order.amountFromReceived }
        : null;
    const listed = deposit && findDeposit(transfers, deposit, this.#extras());
    const r =
      listed && listed.index !== order.depositIndex ? this.#reindexDeposit(order, listed, now) : order;
    this.#logExtraDeposits(r, transfers, now);
    const ours =
      listed ??
      (deposit
        ? await this.#stillMined(r, reader, deposit, this.#kv.get<DepositBlock>(K.depositBlock) ?? null)
        : undefined);
    if (!ours) {
      this.#host.apply(r, { type: "deposit_dropped" }, now, { depositIndex: null });
      this.#kv.delete(K.depositBlock);
      this.#schedulePoll(now, true);
      return;
    }
    const block = blockOf(ours);
    if (block) this.#kv.put(K.depositBlock, block);
    const tip = seen?.tip ?? (await reader.tipHeight());
    const step = confirmStep(
      confirmations(ours, tip),
      r.depositConfirmationsRequired,
      r.depositConfirmations,
    );
    if (step.kind === "confirming") {
      if (step.changed)
        this.#host.apply(r, { type: "confirmations", confirmations: step.confirmations }, now);
      this.#schedulePoll(now, step.changed);
      return;
    }
    if (!(await reader.isInBestChain(ours))) {
      // The listing lags a reorg the chain already knows about: wait for it to catch up.
      this.#schedulePoll(now, true);
      return;
    }
    const limits = r.rateType === "float" ? await this.#floatLimits(r, now) : null;
    const fixed = {
      toleranceBps: this.#host.config.FIXED_AMOUNT_TOLERANCE_BPS,
      confirmedTooLate: now > Date.parse(r.expiresAt) + this.#host.config.FIXED_RATE_CONFIRM_MINUTES * 60_000,
    };
    const judge = (t: IncomingTransfer) => depositAcceptability(r, parseDecimal(t.amount), fixed, limits);
    // The other deposits already confirmed, in case the first is not acceptable (dust, a split payment).
    const others = confirmedOthers(
      transfers,
      ours,
      (t) => confirmations(t, tip),
      r.depositConfirmationsRequired,
    );
    let choice = chooseDeposit([ours, ...others], judge) ?? { deposit: ours, verdict: judge(ours) };
    if (choice.deposit !== ours && !(await reader.isInBestChain(choice.deposit)))
      choice = { deposit: ours, verdict: judge(ours) };
    const driving = choice.deposit;
    const { verdict } = choice;
    if (driving !== ours) this.#switchDeposit(r, ours, driving, now);
    const confirmed = this.#host.apply(
      r,
      verdict.acceptable
        ? { type: "deposit_confirmed", acceptable: true }
        : { type: "deposit_confirmed", acceptable: false, reason: verdict.reason },
      now,
      {
        depositConfirmations: confirmations(driving, tip),
        depositTxid: driving.txid,
        depositIndex: driving.index,
        amountFromReceived: driving.amount,
      },
      null,
      await this.#host.inputsIfHeld({ ...r, amountFromReceived: driving.amount }, now, !verdict.acceptable),
    );
    if (confirmed) await this.#host.step(now);
  }

  /**
   * The deposit as it was last seen in a block, if that block is still in the best chain. Listings
   * can be windowed (the EVM reader scans only recent blocks for native coins; token logs have a
   * lookback): a deposit that scrolled out of the window while confirming has not been dropped.
   * One that was never mined and disappears has been.
   */
  async #stillMined(
    r: OrderRecord,
    reader: ChainReader,
    deposit: { txid: string; index: number; amount: string },
    block: DepositBlock | null,
  ): Promise<IncomingTransfer | undefined> {
    if (!block) return undefined;
    const transfer: IncomingTransfer = {
      ...deposit,
      to: r.depositAddress,
      tag: r.depositAddressTag,
      blockHeight: block.height,
      blockHash: block.hash,
    };
    return (await reader.isInBestChain(transfer)) ? transfer : undefined;
  }

  /**
   * A float order's pair limits at this moment. Switches on the source currency do not apply to an
   * existing order (they stop new orders only); a destination the operator switched off since has
   * no limits: the order goes on to the exchange, whose permanent failure refunds it (waiting here
   * instead would hold a confirmed deposit for as long as the pair stays off).
   */
  async #floatLimits(
    r: OrderRecord,
    now: number,
  ): Promise<{ min: Decimal; max: Decimal } | null | "unchecked"> {
    try {
      const { input } = await pricingNow(
        this.#host.env,
        this.#host.config,
        { coinFrom: r.coinFrom, networkFrom: r.networkFrom, coinTo: r.coinTo, networkTo: r.networkTo },
        r.spreadBps,
        r.markupBps,
        now,
      );
      const l = pairLimits(input);
      return l.ok ? { min: l.min, max: l.max } : null;
    } catch (err) {
      const unavailable =
        err instanceof PairUnavailableError ||
        (err instanceof DomainError && err.code === "pair_unavailable");
      if (!unavailable) throw err;
      this.#host.note(r, now, "pair unavailable at confirmation: left to the exchange", {
        error: err.message,
      });
      return "unchecked";
    }
  }

  /** The extra deposits, as "txid:index". */
  #extras(): Set<string> {
    return this.#host.extraDeposits.ids();
  }

  /**
   * The first deposit is not acceptable but a later, confirmed one is: that one drives the order and
   * the first becomes an extra deposit (its refund offered in actions).
   */
  #switchDeposit(r: OrderRecord, from: IncomingTransfer, to: IncomingTransfer, now: number): void {
    const at = new Date(now).toISOString();
    this.#host.storage.transactionSync(() => {
      this.#adoptExtra(r, to, now);
      const extras = this.#extras();
      extras.add(`${from.txid}:${from.index}`);
      this.#kv.put(K.extras, [...extras]);
      const block = blockOf(to);
      if (block) this.#kv.put(K.depositBlock, block);
      this.#host.note(r, now, "first deposit not acceptable; a later confirmed deposit drives the order", {
        txid: to.txid,
        index: to.index,
        amount: to.amount,
        instead_of: from.txid,
      });
      this.#host.log(at, r.status, r.status, EXTRA_DEPOSIT_LOGGED, {
        txid: from.txid,
        index: from.index,
        amount: from.amount,
      });
    });
  }

  /** The deposit came back under another index (re-mined in another block): follow it there. */
  #reindexDeposit(r: OrderRecord, t: IncomingTransfer, now: number): OrderRecord {
    const next: OrderRecord = { ...r, depositIndex: t.index };
    this.#host.storage.transactionSync(() => {
      this.#host.saveRecord(next);
      this.#host.note(r, now, "deposit re-mined under another index", {
        txid: t.txid,
        from_index: r.depositIndex,
        to_index: t.index,
      });
    });
    return next;
  }

  /** Only the first deposit drives the order; any other is logged once, its refund offered in actions. Returns how many were new. */
  #logExtraDeposits(
    r: OrderRecord,
    transfers: IncomingTransfer[],
    now: number,
    driving: Pick<IncomingTransfer, "txid" | "index"> = {
      txid: r.depositTxid ?? "",
      index: r.depositIndex ?? -1,
    },
  ): number {
    const logged = this.#extras();
    const fresh = freshExtras(transfers, driving, logged);
    if (fresh.length === 0) return 0;
    const at = new Date(now).toISOString();
    this.#host.storage.transactionSync(() => {
      for (const t of fresh) {
        logged.add(`${t.txid}:${t.index}`);
        this.#host.log(at, r.status, r.status, EXTRA_DEPOSIT_LOGGED, {
          txid: t.txid,
          index: t.index,
          amount: t.amount,
        });
      }
      this.#kv.put(K.extras, [...logged]);
    });
    return fresh.length;
  }

  /**
   * An extra deposit that now drives the order (the one before it was dropped or replaced) is the
   * order's business from here: the log says so, and its refund is no longer offered (its refund is
   * offered only once the order can no longer adopt it, so none is both refunded and exchanged).
   */
  #adoptExtra(r: OrderRecord, t: Pick<IncomingTransfer, "txid" | "index">, now: number): void {
    const logged = this.#extras();
    if (!logged.delete(`${t.txid}:${t.index}`)) return;
    this.#kv.put(K.extras, [...logged]);
    this.#host.note(r, now, "an extra deposit now drives the order: its refund is no longer offered", {
      txid: t.txid,
      index: t.index,
    });
  }

  /**
   * An expired order is watched for LATE_DEPOSIT_WATCH_HOURS. A deposit first seen in that time is
   * refunded once it has the confirmations an on-time one would need (never out of the mempool: a
   * deposit that is then dropped must not have been paid back), even if they arrive after the watch.
   */
  async #watchLateDeposit(r: OrderRecord, now: number): Promise<void> {
    const seen = this.#kv.get<LateSeen>(K.lateSeen);
    const watching = now < Date.parse(r.lateWatchEndsAt);
    if (!watching) this.#schedule.clear(DUE.lateWatchEnd);
    if (!watching && !seen) {
      this.#schedule.clear(DUE.poll);
      if (!this.#kv.get<boolean>(K.watchEnded) && this.#host.apply(r, { type: "watch_ended" }, now)) {
        this.#kv.put(K.watchEnded, true);
        // Its extra deposits' refunds are offered from now on: the review queue must list them.
        if (this.#extras().size > 0) this.#host.markProjection(now);
      }
      return;
    }
    if (!this.#pollDue(now)) return;
    const transfers = await this.#incoming(r);
    const reader = this.#reader(r);
    const tracked =
      seen &&
      (findDeposit(transfers, seen, this.#extras()) ?? (await this.#stillMined(r, reader, seen, seen.block)));
    if (seen && !tracked) {
      this.#kv.delete(K.lateSeen);
      this.#host.note(r, now, "late deposit disappeared before confirming", { txid: seen.txid });
    }
    const deposit = tracked || (watching ? transfers[0] : undefined);
    if (!deposit) {
      this.#schedulePoll(now, false, LATE_WATCH_MIN_POLL_MS);
      return;
    }
    const seenAt = tracked ? (seen as LateSeen).at : now;
    const block = blockOf(deposit) ?? (tracked && seen ? seen.block : null);
    if (!tracked || block?.hash !== seen?.block?.hash || deposit.index !== seen?.index) {
      this.#kv.put(K.lateSeen, {
        txid: deposit.txid,
        index: deposit.index,
        at: seenAt,
        amount: deposit.amount,
        block,
      } satisfies LateSeen);
    }
    if (!tracked) {
      this.#adoptExtra(r, deposit, now);
      this.#host.note(r, now, "late deposit seen: refunded once confirmed", {
        txid: deposit.txid,
        amount: deposit.amount,
      });
    }
    this.#logExtraDeposits(r, transfers, now, deposit);
    const confs = confirmations(deposit, await reader.tipHeight());
    if (confs < r.depositConfirmationsRequired || !(await reader.isInBestChain(deposit))) {
      this.#schedulePoll(now, false, LATE_WATCH_MIN_POLL_MS);
      return;
    }
    const next = this.#host.apply(
      r,
      { type: "late_deposit", txid: deposit.txid, amount: deposit.amount, seenAt },
      now,
      { depositIndex: deposit.index, depositConfirmations: confs },
      null,
      await this.#host.inputsIfHeld(r, now, true),
    );
    this.#kv.delete(K.lateSeen);
    if (next?.status === "refunding") await this.#host.step(now);
  }

  /** Why an extra deposit cannot be refunded yet (not confirmed on chain now), or null. */
  async unconfirmedExtra(r: OrderRecord, d: ExtraDeposit): Promise<string | null> {
    const reader = this.#reader(r);
    const listed = (await this.#incoming(r)).find((t) => t.txid === d.txid && t.index === d.index);
    if (!listed) return `the deposit ${depositId(d)} is not on chain now`;
    const confs = confirmations(listed, await reader.tipHeight());
    if (confs < r.depositConfirmationsRequired || !(await reader.isInBestChain(listed)))
      return `the deposit ${depositId(d)} has ${confs} of ${r.depositConfirmationsRequired} confirmations: try again once it is confirmed`;
    return null;
  }
}
