import type { ChainReader, IncomingTransfer } from "../../adapters/chain/types";
import type { Config } from "../../config";
import {
  byArrival,
  type ChainQuestion,
  type ChainView,
  chainKey,
  checkAfterWatch,
  confirmations,
  type DepositBlock,
  type FloatLimits,
  type LateSeen,
  type ListedTransfer,
  MAX_POLL_BACKOFF,
  type TrackerEffect,
  type TrackerParams,
  type TrackerResult,
  type TrackerState,
  trackDeposit,
  tracksOwnDeposit,
} from "../../domain/deposit-tracking";
import { DomainError } from "../../domain/errors";
import { holdFor, holdRefundTo } from "../../domain/holds";
import { isLive, type OrderRecord } from "../../domain/order";
import type { ActionInputs } from "../../domain/order-actions";
import type { OrderStatus } from "../../domain/order-state";
import { maskAddress } from "../../domain/order-status";
import { PairUnavailableError, pairLimits } from "../../domain/pricing";
import type { ScreeningCategory } from "../../domain/screening";
import { type SiblingAsset, siblingAssets } from "../../domain/wrong-network";
import { loadCatalog } from "../../storage/catalog";
import { pricingNow } from "../../storage/market";
import {
  depositId,
  EXTRA_DEPOSIT_LOGGED,
  EXTRAS_KEY,
  type ExtraDeposit,
  type ExtraDeposits,
  WRONG_NETWORK_LOGGED,
  wrongNetworkLogData,
} from "./extra-deposits";
import { DUE, type OrderSchedule } from "./schedule";
import type { EventData, OrderTransitions } from "./transitions";

/** What the tracker needs of the order object: its storage, its state machine and its log. */
export interface DepositTrackerHost extends OrderTransitions {
  readonly env: Env;
  readonly config: Config;
  readonly storage: DurableObjectStorage;
  readonly schedule: OrderSchedule;
  readonly extraDeposits: ExtraDeposits;
  reader(r: OrderRecord): ChainReader;
  siblingReader(network: string): ChainReader;
  /** Writes the record as is, with no transition (a detail of the deposit changed). */
  saveRecord(r: OrderRecord): void;
  log(at: string, from: OrderStatus | null, to: OrderStatus, reason: string, data: EventData | null): void;
  inputsIfHeld(r: OrderRecord, now: number, mayHold: boolean): Promise<ActionInputs | undefined>;
  /** Runs the order's next step at once (a deposit that confirmed, a late deposit to refund). */
  step(now: number): Promise<void>;
  /**
   * Screens a deposit's source addresses for this order's network and mode: the one listed under the
   * gravest category, and that category; null when none is listed.
   */
  screenSources(
    r: OrderRecord,
    addresses: readonly string[],
    now: number,
  ): Promise<{ address: string; category: ScreeningCategory } | null>;
}

/** The tracker's storage keys (the extra deposits' is src/objects/order/extra-deposits.ts's). */
const K = {
  pollIdle: "poll_idle",
  watchEnded: "watch_ended",
  lateSeen: "late_seen",
  depositBlock: "deposit_block",
  /** When the sibling networks are next asked for the order's address (ms, the order's clock). */
  siblingsDue: "siblings_due",
} as const;

/**
 * The order's deposit address, watched: this loads the tracker's state, answers the chain questions
 * of `trackDeposit` (src/domain/deposit-tracking.ts, where every decision is) and applies its
 * effects through the order object.
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
    if (!tracksOwnDeposit(r.status)) return false;
    await this.#run(r, now, {});
    return true;
  }

  /**
   * After the order took its deposit, its address is read for extra deposits until the late-deposit
   * watch ends. A failed read waits for the next poll: it must not delay the exchange or a send.
   */
  async watchForExtras(r: OrderRecord, now: number): Promise<void> {
    await this.#run(r, now, {}, (err) => {
      console.warn(
        JSON.stringify({
          level: "warn",
          order: r.id,
          msg: "extra-deposit watch read failed",
          error: String(err),
        }),
      );
      return [];
    });
  }

  /**
   * The slow sweep's read of the address after the late-deposit watch, up to
   * AFTER_WATCH_HORIZON_DAYS after it: a new transfer is an extra deposit, its refund offered.
   */
  async checkAfterWatch(r: OrderRecord, now: number): Promise<void> {
    const horizonMs = this.#host.config.AFTER_WATCH_HORIZON_DAYS * 86_400_000;
    await this.#run(r, now, {}, undefined, (state, chain, params) =>
      checkAfterWatch(state, chain, now, params, horizonMs),
    );
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

  /**
   * Wrong-network deposits (docs/lifecycle.md, "Deposits on another EVM network"): a live EVM
   * order's address is asked of every sibling EVM network's catalog assets, on the order's steps,
   * at most once per CHAIN_ADDRESS_SECONDS / 3, until its late-deposit watch ends. Through the
   * siblings' ChainWatch objects it is a passive ask (`watchedTransfers`): the address joins each
   * asset's one multi-address listing, so the providers' load stays per network and asset, not per
   * order. A mined transfer is recorded once, never credited to the order; its refund is offered
   * at once. A failed read waits for the next turn.
   */
  async watchSiblings(r: OrderRecord, now: number): Promise<void> {
    if (!isLive(r) || now >= Date.parse(r.lateWatchEndsAt)) return;
    if (now < (this.#kv.get<number>(K.siblingsDue) ?? 0)) return;
    const assets = siblingAssets(await loadCatalog(this.#host.env.DB), r.networkFrom);
    if (assets.length === 0) return;
    const known = this.#host.extraDeposits.wrongNetworkIds();
    const found: (ExtraDeposit & { arrival: SiblingAsset })[] = [];
    for (const asset of assets) {
      const transfers = await Promise.resolve()
        .then(() => {
          const reader = this.#host.siblingReader(asset.network);
          return reader.watchedTransfers
            ? reader.watchedTransfers(asset, r.depositAddress)
            : reader.incomingTransfers(asset, r.depositAddress, null);
        })
        .catch((err: unknown) => {
          console.warn(
            JSON.stringify({
              level: "warn",
              order: r.id,
              network: asset.network,
              msg: "sibling watch read failed",
              error: String(err),
            }),
          );
          return [];
        });
      for (const t of transfers) {
        const d = { txid: t.txid, index: t.index, amount: t.amount, arrival: asset };
        if (t.blockHeight === null || known.has(depositId(d))) continue;
        known.add(depositId(d));
        found.push(d);
      }
    }
    // No await from here: the due time and the deposits found commit together.
    // A third of CHAIN_ADDRESS_SECONDS: with the polls at most 2 min apart, the address is asked
    // again before the sibling watches drop it (a dropped address would make its first ask a listing).
    this.#kv.put(K.siblingsDue, now + (this.#host.config.CHAIN_ADDRESS_SECONDS * 1000) / 3);
    const at = new Date(now).toISOString();
    for (const d of found) {
      this.#host.extraDeposits.addWrongNetwork(d);
      this.#host.log(at, r.status, r.status, WRONG_NETWORK_LOGGED, wrongNetworkLogData(d));
    }
    if (found.length > 0) this.#host.markProjection(now);
  }

  /** Why an extra deposit cannot be refunded yet (not confirmed on chain now), or null. */
  async unconfirmedExtra(r: OrderRecord, d: ExtraDeposit): Promise<string | null> {
    const { arrival } = d;
    const reader = arrival ? this.#host.siblingReader(arrival.network) : this.#host.reader(r);
    const listing = arrival
      ? await reader.incomingTransfers(arrival, r.depositAddress, null)
      : await this.#incoming(r, reader);
    const listed = listing.find((t) => t.txid === d.txid && t.index === d.index);
    if (!listed) return `the deposit ${depositId(d)} is not on chain now`;
    const required = arrival?.confirmations ?? r.depositConfirmationsRequired;
    const confs = confirmations(listed, await reader.tipHeight());
    if (confs < required || !(await reader.isInBestChain(listed)))
      return `the deposit ${depositId(d)} has ${confs} of ${required} confirmations: try again once it is confirmed`;
    return null;
  }

  /**
   * One run: the decisions ask the chain what they need (one read at a time, as they go), then
   * their state and effects are stored. `listingFailed` answers a listing that could not be read,
   * where a failed read must not stop the run.
   */
  async #run(
    order: OrderRecord,
    now: number,
    seen: ChainView,
    listingFailed?: (err: unknown) => ListedTransfer[],
    decide: (state: TrackerState, chain: ChainView, params: TrackerParams) => TrackerResult = (
      state,
      chain,
      params,
    ) => trackDeposit(state, chain, now, params),
  ): Promise<void> {
    const before = this.#load(order);
    const params = {
      pollBaseMs: this.#host.config.CHAIN_POLL_SECONDS * 1000,
      fixedToleranceBps: this.#host.config.FIXED_AMOUNT_TOLERANCE_BPS,
      fixedRateConfirmMs: this.#host.config.FIXED_RATE_CONFIRM_MINUTES * 60_000,
    };
    const reader = this.#host.reader(order);
    let chain: ChainView = seen;
    let result = decide(before, chain, params);
    while (result.kind === "ask") {
      chain = await this.#answer(order, reader, now, chain, result.question, listingFailed);
      result = decide(before, chain, params);
    }
    const inputs = await this.#heldInputs(order, now, result.effects);
    const source = await this.#screenSource(order, now, result.effects, chain);
    // No await from here to the last write: they commit together.
    this.#store(before, result.state);
    let r = order;
    for (const effect of result.effects) r = this.#apply(r, now, effect, inputs, source) ?? r;
    const last = result.effects.at(-1)?.kind;
    // A deposit that arrives confirmed moves on in the same run, on the same listing and tip.
    if (last === "follow") await this.#run(r, now, { listing: chain.listing, tip: chain.tip, carried: true });
    if (last === "step") await this.#host.step(now);
  }

  async #answer(
    r: OrderRecord,
    reader: ChainReader,
    now: number,
    chain: ChainView,
    q: ChainQuestion,
    listingFailed?: (err: unknown) => ListedTransfer[],
  ): Promise<ChainView> {
    switch (q.ask) {
      case "listing": {
        const listing = listingFailed
          ? await this.#incoming(r, reader).catch(listingFailed)
          : await this.#incoming(r, reader);
        return { ...chain, listing };
      }
      case "tip":
        return { ...chain, tip: await reader.tipHeight() };
      case "in_best_chain": {
        // A listed transfer as listed; one followed through its block, at the order's address.
        const transfer: IncomingTransfer = {
          to: r.depositAddress,
          tag: r.depositAddressTag,
          ...q.transfer,
          blockHash: q.transfer.blockHash ?? null,
        };
        const inBest = await reader.isInBestChain(transfer);
        return { ...chain, inBestChain: new Map(chain.inBestChain).set(chainKey(q.transfer), inBest) };
      }
      case "limits":
        return { ...chain, limits: await this.#floatLimits(r, now) };
    }
  }

  /** The actions' inputs for the run's event, if it may hold funds, priced on the record as it will be then. */
  async #heldInputs(order: OrderRecord, now: number, effects: readonly TrackerEffect[]) {
    let r = order;
    for (const e of effects) {
      if (e.kind === "record") r = { ...r, ...e.patch };
      if (e.kind === "event")
        return e.heldInputs && this.#host.inputsIfHeld({ ...r, ...e.heldInputs }, now, true);
    }
    return undefined;
  }

  /**
   * The sources of the deposit this run sees first, screened (docs/lifecycle.md, "Holds"): its
   * sender (account chains) or every address its inputs spend from (UTXO chains, which have no
   * sender to send back to), and the hold a listed one puts on the order, for the `deposit_seen`
   * event's record. A failed lookup throws: the deposit is not taken unscreened, the run is tried again.
   */
  async #screenSource(
    order: OrderRecord,
    now: number,
    effects: readonly TrackerEffect[],
    chain: ChainView,
  ): Promise<Partial<OrderRecord> | undefined> {
    const seen = effects.find((e) => e.kind === "event" && e.event.type === "deposit_seen");
    if (seen?.kind !== "event" || seen.event.type !== "deposit_seen") return undefined;
    const { txid } = seen.event;
    const deposit = chain.listing?.find((t) => t.txid === txid && t.index === seen.patch?.depositIndex);
    const sender = deposit?.from ?? null;
    const sources = deposit?.sources ?? (sender ? [sender] : []);
    const listed = sources.length > 0 ? await this.#host.screenSources(order, sources, now) : null;
    if (!listed) return { depositSender: sender };
    const { address, category } = listed;
    // An issuer's blocklist stops a transfer back to the blocked sender too (it would revert on chain).
    const backTo = category === "issuer_blocked" ? null : sender;
    const refundTo = holdRefundTo({ ...order, depositSender: backTo });
    const reason = sender
      ? `the address the deposit came from is listed (${category})`
      : `the deposit spends from a listed address, ${maskAddress(address)} (${category})`;
    const hold = holdFor(this.#host.config.HOLD_POLICY, category, reason, now, refundTo?.address ?? null);
    return { depositSender: sender, hold };
  }

  /** Applies one effect; returns the record after it, when it changed. */
  #apply(
    r: OrderRecord,
    now: number,
    effect: TrackerEffect,
    inputs: ActionInputs | undefined,
    source: Partial<OrderRecord> | undefined,
  ): OrderRecord | null {
    switch (effect.kind) {
      case "event": {
        const patch = effect.event.type === "deposit_seen" ? { ...effect.patch, ...source } : effect.patch;
        return this.#host.apply(r, effect.event, now, patch, null, inputs);
      }
      case "record": {
        const next: OrderRecord = { ...r, ...effect.patch };
        this.#host.saveRecord(next);
        return next;
      }
      case "note":
        this.#host.note(r, now, effect.reason, effect.data);
        return null;
      case "extra":
        this.#host.log(new Date(now).toISOString(), r.status, r.status, EXTRA_DEPOSIT_LOGGED, {
          txid: effect.txid,
          index: effect.index,
          amount: effect.amount,
        });
        return null;
      case "projection":
        this.#host.markProjection(now);
        return null;
      default:
        return null;
    }
  }

  #load(order: OrderRecord): TrackerState {
    return {
      order,
      pollIdle: this.#kv.get<number>(K.pollIdle) ?? 0,
      pollAt: this.#schedule.get(DUE.poll),
      lateWatchEndAt: this.#schedule.get(DUE.lateWatchEnd),
      watchEnded: this.#kv.get<boolean>(K.watchEnded) === true,
      lateSeen: this.#kv.get<LateSeen>(K.lateSeen) ?? null,
      depositBlock: this.#kv.get<DepositBlock>(K.depositBlock) ?? null,
      extras: [...this.#host.extraDeposits.ids()],
    };
  }

  /** Writes what the run changed of the tracker's state. */
  #store(before: TrackerState, after: TrackerState): void {
    const changed = <T>(a: T, b: T) => JSON.stringify(a) !== JSON.stringify(b);
    const put = (key: string, value: unknown) =>
      value === null ? this.#kv.delete(key) : this.#kv.put(key, value);
    const due = (name: string, at: number | null) =>
      at === null ? this.#schedule.clear(name) : this.#schedule.set(name, at);
    if (changed(before.pollIdle, after.pollIdle)) put(K.pollIdle, after.pollIdle);
    if (changed(before.pollAt, after.pollAt)) due(DUE.poll, after.pollAt);
    if (changed(before.lateWatchEndAt, after.lateWatchEndAt)) due(DUE.lateWatchEnd, after.lateWatchEndAt);
    if (changed(before.watchEnded, after.watchEnded)) put(K.watchEnded, after.watchEnded);
    if (changed(before.lateSeen, after.lateSeen)) put(K.lateSeen, after.lateSeen);
    if (changed(before.depositBlock, after.depositBlock)) put(K.depositBlock, after.depositBlock);
    if (changed(before.extras, after.extras)) put(EXTRAS_KEY, after.extras);
  }

  async #incoming(r: OrderRecord, reader: ChainReader): Promise<IncomingTransfer[]> {
    const asset = {
      coin: r.coinFrom,
      network: r.networkFrom,
      contract: r.contractFrom,
      decimals: r.decimalsFrom,
    };
    return byArrival(await reader.incomingTransfers(asset, r.depositAddress, r.depositAddressTag));
  }

  /**
   * A float order's pair limits at this moment. Switches on the source currency do not apply to an
   * existing order (they stop new orders only); a destination the operator switched off since is
   * `unavailable`: the order goes on to the exchange, whose permanent failure refunds it (waiting
   * here instead would hold a confirmed deposit for as long as the pair stays off).
   */
  async #floatLimits(r: OrderRecord, now: number): Promise<FloatLimits> {
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
      return { unavailable: err.message };
    }
  }
}
