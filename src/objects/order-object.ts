import { DurableObject } from "cloudflare:workers";
import { kvLegStore } from "../adapters/exchange/venue-exchange";
import { type OrderAdapters, orderAdapters } from "../adapters/registry";
import { type Config, getConfig } from "../config";
import type { DepositScheme } from "../domain/deposit";
import { nextPoll } from "../domain/deposit-tracking";
import { orderEarnings } from "../domain/earnings";
import {
  isLive,
  type OrderDraft,
  type OrderRecord,
  type OrderView,
  orderView,
  type SendKind,
  sendKey,
} from "../domain/order";
import { type ActionInputs, awaitsDecision, extrasDecidable, orderActions } from "../domain/order-actions";
import { type CreationKey, creationVerdict, shortIdOfOrderId } from "../domain/order-id";
import { decide, type OrderEvent, type OrderStatus } from "../domain/order-state";
import { loadCatalog } from "../storage/catalog";
import { pricingNow } from "../storage/market";
import { storedUsdPrice } from "../storage/prices";
import { allocateDeposit } from "./deposit-allocation";
import { DepositTracker } from "./deposit-tracker";
import { ExtraDeposits } from "./extra-deposits";
import { MoneySteps } from "./money-steps";
import {
  type ActionRequest,
  type Actor,
  type ActResult,
  OrderDecisions,
  type ResolveResult,
} from "./order-decisions";
import { flushLiquidity, liquidityPending, markLiquidity } from "./order-liquidity";
import { migrate } from "./order-migrations";
import { OrderOutbox, type OutboxEntry } from "./order-outbox";
import { projectOrder } from "./order-projection";
import { DUE, OrderSchedule } from "./order-schedule";
import type { EventData } from "./order-transitions";
import { SendsLedger } from "./sends-ledger";

export type { ActionRequest, Actor, ActResult, ResolveResult } from "./order-decisions";

export type CreateResult =
  | { kind: "created"; order: OrderView }
  | { kind: "replayed"; order: OrderView }
  | { kind: "conflict" }
  /** The id is another order's (a short id drawn twice): the caller moves on to another id. */
  | { kind: "taken" }
  | { kind: "unavailable"; reason: string };

export interface OrderEventLogEntry {
  seq: number;
  at: string;
  from_status: OrderStatus | null;
  to_status: OrderStatus;
  reason: string;
  data: EventData | null;
}

const K = {
  record: "order",
  /** The 201 body as first sent, so an Idempotency-Key replay returns exactly the same body. */
  createdView: "created_view",
  projection: "projection_pending",
  /** A test order's clock: ms it runs ahead of real time (the `expire` test helper moves it). */
  testClock: "test_clock_ms",
} as const;

/** Retry delay for a D1 index write or a webhook enqueue that failed. */
const PROJECTION_RETRY_MS = 10_000;
/** The send each status drives. */
const SEND_OF_STATUS: Partial<Record<OrderStatus, SendKind>> = {
  exchanging: "exchange",
  sending: "payout",
  refunding: "refund",
};

/**
 * One Durable Object per order: the record, an append-only event log, and the state machine.
 * Every transition writes the new record and its log row in one storage transaction. One alarm is
 * kept at the earliest due moment (expiry, next chain poll, next retry); the handler is idempotent
 * (alarms are at-least-once) and re-arms itself instead of throwing.
 */
export class OrderObject extends DurableObject<Env> {
  #creating: Promise<CreateResult> | null = null;
  #running: Promise<void> | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => migrate(ctx.storage));
  }

  get #kv() {
    return this.ctx.storage.kv;
  }

  #record(): OrderRecord | undefined {
    return this.#kv.get<OrderRecord>(K.record);
  }

  /** The order's time: real time, plus a test order's test clock. */
  #now(): number {
    return Date.now() + (this.#kv.get<number>(K.testClock) ?? 0);
  }

  get #config(): Config {
    return getConfig(this.env);
  }

  get #ledger(): SendsLedger {
    return new SendsLedger(this.ctx.storage.sql, this.#schedule);
  }

  get #outbox(): OrderOutbox {
    return new OrderOutbox(this.ctx.storage.sql, this.env.WEBHOOKS);
  }

  get #schedule(): OrderSchedule {
    return new OrderSchedule(this.ctx.storage.sql);
  }

  /** The deposit address's watch (src/objects/deposit-tracker.ts), over this object's storage and state machine. */
  get #deposits(): DepositTracker {
    return new DepositTracker({
      env: this.env,
      config: this.#config,
      storage: this.ctx.storage,
      schedule: this.#schedule,
      extraDeposits: this.#extraDeposits,
      reader: (r) => this.#adapters(r).reader,
      apply: (...args) => this.#apply(...args),
      saveRecord: (r) => this.#kv.put(K.record, r),
      note: (...args) => this.#note(...args),
      log: (...args) => this.#log(...args),
      inputsIfHeld: (...args) => this.#inputsIfHeld(...args),
      markProjection: (now) => this.#markProjection(now),
      step: (now) => this.#step(now),
    });
  }

  get #decisions(): OrderDecisions {
    return new OrderDecisions({
      config: this.#config,
      kv: this.#kv,
      ledger: this.#ledger,
      extraDeposits: this.#extraDeposits,
      now: () => this.#now(),
      record: () => this.#record(),
      apply: (...args) => this.#apply(...args),
      note: (...args) => this.#note(...args),
      markProjection: (now) => this.#markProjection(now),
      actionInputs: (r, now) => this.#actionInputs(r, now),
      awaitingExtras: (r) => this.#awaitingExtras(r),
      unconfirmedExtra: (r, d) => this.#deposits.unconfirmedExtra(r, d),
      view: (r, now) => this.#view(r, now),
      arm: (now) => this.#arm(now),
    });
  }

  get #extraDeposits(): ExtraDeposits {
    return new ExtraDeposits(this.#kv, this.ctx.storage.sql, this.#ledger);
  }

  /** The exchange, payout and refunds (src/objects/money-steps.ts), over this object's ledger. */
  get #money(): MoneySteps {
    return new MoneySteps({
      env: this.env,
      config: this.#config,
      kv: this.#kv,
      ledger: this.#ledger,
      extraDeposits: this.#extraDeposits,
      adapters: (r) => this.#adapters(r),
      inputsIfHeld: (...args) => this.#inputsIfHeld(...args),
      apply: (...args) => this.#apply(...args),
      note: (...args) => this.#note(...args),
      markProjection: (now) => this.#markProjection(now),
    });
  }

  get #retryBaseMs(): number {
    return this.#config.RETRY_BASE_SECONDS * 1000;
  }

  // ── creation ──────────────────────────────────────────────────────────────────────────────

  /**
   * Creates the order once. Concurrent calls for the same id (an Idempotency-Key retried in
   * parallel) share the first call's work; later calls replay it, or conflict if the request differs.
   */
  async create(draft: OrderDraft, scheme: DepositScheme): Promise<CreateResult> {
    const existing = this.replay(draft);
    if (existing) return existing;
    if (this.#creating) {
      await this.#creating.catch(() => undefined);
      const now = this.replay(draft);
      if (now) return now;
    }
    this.#creating = this.#doCreate(draft, scheme);
    try {
      return await this.#creating;
    } finally {
      this.#creating = null;
    }
  }

  /**
   * The answer to a repeated Idempotency-Key: the first response, or a conflict when the request
   * differs, or `taken` when the order here is another creation's; null while no order exists. Asked before the request is validated again, so a retry
   * gets its order even after prices, limits or the quote's validity have changed.
   */
  replay(creation: CreationKey): CreateResult | null {
    const existing = this.#record();
    if (!existing) return null;
    const verdict = creationVerdict(existing, creation);
    if (verdict !== "replay") return { kind: verdict };
    return { kind: "replayed", order: this.#kv.get<OrderView>(K.createdView) ?? orderView(existing) };
  }

  async #doCreate(draft: OrderDraft, scheme: DepositScheme): Promise<CreateResult> {
    const shortId = shortIdOfOrderId(draft.id);
    if (!shortId) throw new Error(`order id ${draft.id} does not carry a short id`);
    const deposit = await allocateDeposit(this.env, draft, shortId, scheme);
    if ("unavailable" in deposit) return { kind: "unavailable", reason: deposit.unavailable };
    const created: OrderRecord = { ...draft, shortId, ...deposit };
    const view = orderView(created);
    // The record is the only write of a creation; the D1 index row is projected from it after the
    // answer (K.projection is the outbox). The alarm is armed first as the projection's backstop,
    // so no eviction can leave a record that nothing will project.
    const armed = this.ctx.storage.setAlarm(Date.now() + PROJECTION_RETRY_MS);
    this.ctx.storage.transactionSync(() => {
      this.#kv.put(K.record, created);
      this.#kv.put(K.createdView, view);
      this.#log(created.createdAt, null, created.status, "order created", {
        deposit_address: created.depositAddress,
        deposit_address_tag: created.depositAddressTag,
        amount_from_expected: created.amountFromExpected,
        rate_quoted: created.rateQuoted,
      });
      this.#schedule.setAll([
        {
          name: DUE.poll,
          dueAt: nextPoll(Date.parse(created.createdAt), 0, true, this.#config.CHAIN_POLL_SECONDS * 1000).at,
        },
        { name: DUE.expiry, dueAt: Date.parse(created.expiresAt) },
        { name: DUE.outbox, dueAt: Date.now() + PROJECTION_RETRY_MS },
      ]);
      this.#kv.put(K.projection, true);
    });
    await armed;
    void this.#projectCreated(created);
    return { kind: "created", order: view };
  }

  /** Not awaited by the creation: the 201 never waits for D1, and the alarm retries what fails. */
  async #projectCreated(r: OrderRecord): Promise<void> {
    await this.#project(r);
    this.#scheduleOutbox(Date.now());
    await this.#arm(Date.now());
  }

  // ── reads ─────────────────────────────────────────────────────────────────────────────────

  /** The order as its partner sees it; null for another partner's order or no order at all. */
  async get(partnerId: string): Promise<OrderView | null> {
    const r = this.#record();
    return r && r.partnerId === partnerId ? this.#view(r, this.#now()) : null;
  }

  /** The view with its actions, priced now when the order waits for a decision. */
  async #view(r: OrderRecord, now: number): Promise<OrderView> {
    return this.#needsAction(r)
      ? orderView(r, orderActions(r, await this.#actionInputs(r, now)))
      : orderView(r);
  }

  /** Whether the order's `actions` is not null: its own deposit or an extra one waits for a decision. */
  #needsAction(r: OrderRecord): boolean {
    return awaitsDecision(r) || this.#awaitingExtras(r).length > 0;
  }

  /** The extra deposits whose refund is offered: none while the order may still take one as its own. */
  #awaitingExtras(r: OrderRecord) {
    return extrasDecidable(r.status, this.#deposits.watchEnded()) ? this.#extraDeposits.awaiting() : [];
  }

  /**
   * What a decision on held funds would do now: the refund less the current network fee, and the
   * pair's float pricing with the partner's markup. Never throws: what cannot be worked out now is
   * shown as unavailable, with the reason.
   */
  async #actionInputs(r: OrderRecord, now: number): Promise<ActionInputs> {
    const refundOf = (amount: string | null) =>
      this.#money.refundAmount(r, amount).then(
        (a) => (a === null ? { unavailable: "no deposit received" } : { amount: a }),
        (err: unknown) => ({ unavailable: `the network fee cannot be read now: ${String(err)}` }),
      );
    const refund = await refundOf(r.amountFromReceived);
    const extras = await Promise.all(
      this.#awaitingExtras(r).map(async (e) => ({ ...e, refund: await refundOf(e.amount) })),
    );
    if (!awaitsDecision(r)) return { refund, pricing: { unavailable: "no decision on the order" }, extras };
    const pricing = await pricingNow(
      this.env,
      this.#config,
      { coinFrom: r.coinFrom, networkFrom: r.networkFrom, coinTo: r.coinTo, networkTo: r.networkTo },
      this.#config.SPREAD_FLOAT_BPS,
      r.markupBps,
      now,
    ).then(
      ({ input }) => input,
      (err: unknown) => ({ unavailable: err instanceof Error ? err.message : String(err) }),
    );
    return { refund, pricing, extras };
  }

  /** Operators' support view: the order and its full event log. */
  async inspect(): Promise<{ order: OrderView; partner_id: string; events: OrderEventLogEntry[] } | null> {
    const r = this.#record();
    if (!r) return null;
    const events = this.ctx.storage.sql
      .exec<{
        seq: number;
        at: string;
        from_status: string | null;
        to_status: string;
        reason: string;
        data: string | null;
      }>("SELECT seq, at, from_status, to_status, reason, data FROM events ORDER BY seq")
      .toArray()
      .map((e) => ({
        seq: e.seq,
        at: e.at,
        from_status: e.from_status as OrderStatus | null,
        to_status: e.to_status as OrderStatus,
        reason: e.reason,
        data: e.data ? (JSON.parse(e.data) as EventData) : null,
      }));
    return { order: await this.#view(r, this.#now()), partner_id: r.partnerId, events };
  }

  // ── decisions on held funds ───────────────────────────────────────────────────────────────

  /** Takes one decision on the money a failed order holds (src/objects/order-decisions.ts). */
  act(
    actor: Actor,
    action: ActionRequest,
    idempotency: { key: string; hash: string } | null,
  ): Promise<ActResult> {
    return this.#decisions.act(actor, action, idempotency);
  }

  /** Records a transfer an operator made by hand (src/objects/order-decisions.ts). */
  resolve(kind: "payout" | "refund", txid: string, note: string, operator: string): Promise<ResolveResult> {
    return this.#decisions.resolve(kind, txid, note, operator);
  }

  // ── test mode ─────────────────────────────────────────────────────────────────────────────

  /** The record of this partner's test order, for the test helpers; null for anything else. */
  testRecord(partnerId: string): OrderRecord | null {
    const r = this.#record();
    return r && r.partnerId === partnerId && !isLive(r) ? r : null;
  }

  /**
   * After a test helper changed the order's world (its SimChain, its clock): run now instead of at
   * the next poll, and answer the order as it then is. `expire` moves the test clock past the order's
   * deadline: expires_at, or for a fixed order whose deposit is confirming the end of the fixed
   * rate's confirmation window (so a `confirm` after it shows `fixed_rate_expired`).
   */
  async testAdvance(partnerId: string, opts: { expire: boolean }): Promise<OrderView | null> {
    const r = this.testRecord(partnerId);
    if (!r) return null;
    const rateWindow =
      r.rateType === "fixed" && r.status === "confirming"
        ? this.#config.FIXED_RATE_CONFIRM_MINUTES * 60_000
        : 0;
    const ahead = Date.parse(r.expiresAt) + rateWindow - this.#now();
    if (opts.expire && ahead >= 0)
      this.#kv.put(K.testClock, (this.#kv.get<number>(K.testClock) ?? 0) + ahead + 1);
    this.#deposits.pollNow();
    this.#schedule.clear(DUE.pause);
    // A run already under way may have read the chain before the change: run once more after it.
    if (this.#running) await this.#running;
    await this.#runExclusive();
    const after = this.#record() ?? r;
    return this.#view(after, this.#now());
  }

  // ── the lifecycle ─────────────────────────────────────────────────────────────────────────

  /** Runs whatever is due now; the cron sweep calls it for orders whose alarm may have been lost. */
  async tick(): Promise<void> {
    await this.#runExclusive();
  }

  override async alarm(): Promise<void> {
    await this.#runExclusive();
  }

  /** Alarm runs and sweeps never overlap: a second caller waits for the run in progress. */
  #runExclusive(): Promise<void> {
    this.#running ??= this.#run().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  async #run(): Promise<void> {
    const now = this.#now();
    try {
      await this.#step(now);
      const r = this.#record();
      if (r) await this.#money.refundExtras(r, now);
      this.#schedule.clear(DUE.pause);
    } catch (err) {
      // Never let the alarm fail: log, and try again after a pause (an outside service was down,
      // or a bug — the event log and the error say which).
      console.error(
        JSON.stringify({
          level: "error",
          order: this.#record()?.id,
          msg: "lifecycle step failed",
          error: String(err),
        }),
      );
      const pauseUntil = now + this.#retryBaseMs * 8;
      this.#deposits.postponePoll(pauseUntil);
      // Whatever step threw (a chain read, the exchange, a payout before its intent was stored),
      // the alarm must not come straight back for it.
      this.#schedule.set(DUE.pause, pauseUntil);
    }
    const r = this.#record();
    if (!r) return;
    if (this.#kv.get<boolean>(K.projection)) await this.#project(r);
    await this.#outbox.flush(this.#now(), r.id);
    await flushLiquidity(this.env, this.#kv, r);
    this.#scheduleOutbox(this.#now());
    await this.#arm(this.#now());
  }

  /** The index row, webhooks and liquidity step still to send: retried until they are out. */
  #scheduleOutbox(now: number): void {
    if (this.#kv.get<boolean>(K.projection) || this.#outbox.pending() || liquidityPending(this.#kv))
      this.#schedule.set(DUE.outbox, now + PROJECTION_RETRY_MS);
    else this.#schedule.clear(DUE.outbox);
  }

  /** The index row must be written again (status, needs_action): by the alarm, soon. */
  #markProjection(now: number): void {
    this.#kv.put(K.projection, true);
    this.#schedule.set(DUE.outbox, now + PROJECTION_RETRY_MS);
  }

  async #step(now: number): Promise<void> {
    const r = this.#record();
    if (!r) return;
    const deposits = this.#deposits;
    if (await deposits.track(r, now)) return;
    switch (r.status) {
      case "exchanging":
        await this.#money.exchange(r, now);
        break;
      case "sending":
        await this.#money.send(r, "payout", now);
        break;
      case "refunding":
        await this.#money.send(r, "refund", now);
        break;
      default:
        break;
    }
    const after = this.#record();
    if (after) await deposits.watchForExtras(after, now);
  }

  /** The order's adapters (a test order's are simulated whatever the modes; docs/test-mode.md). */
  #adapters(r: OrderRecord): OrderAdapters {
    return orderAdapters(this.env, this.#config, r, kvLegStore(this.#kv), {
      withdrawFee: async (coin, network) => {
        const row = (await loadCatalog(this.env.DB)).find((c) => c.coin === coin && c.network === network);
        if (!row) throw new Error(`${coin} on ${network} is not in the catalog`);
        return row.withdraw_fee;
      },
      pricing: async (pair, spreadBps, markupBps, now) =>
        (await pricingNow(this.env, this.#config, pair, spreadBps, markupBps, now)).input,
    });
  }

  /**
   * The inputs of the actions a failure may offer, worked out before the failure is applied so its
   * webhook says what can be done; undefined when this failure cannot hold funds for a decision.
   */
  async #inputsIfHeld(r: OrderRecord, now: number, mayHold: boolean): Promise<ActionInputs | undefined> {
    return mayHold ? this.#actionInputs(r, now) : undefined;
  }

  /**
   * Applies one event through the state machine; the record and its log row commit together. A move
   * into a failure that holds funds carries the actions `inputs` price into its webhook.
   */
  #apply(
    r: OrderRecord,
    event: OrderEvent,
    now: number,
    extra: Partial<OrderRecord> = {},
    logData: EventData | null = null,
    inputs?: ActionInputs,
  ): OrderRecord | null {
    const decision = decide(
      {
        status: r.status,
        expiresAt: Date.parse(r.expiresAt),
        hasRefundAddress: r.refundAddress !== null,
        lateWatchEndsAt: Date.parse(r.lateWatchEndsAt),
        statusReason: r.statusReason,
      },
      event,
      now,
    );
    if (!decision.ok) {
      console.warn(
        JSON.stringify({ level: "warn", order: r.id, msg: "event rejected", error: decision.error }),
      );
      return null;
    }
    const at = new Date(now).toISOString();
    const next: OrderRecord = { ...r, ...decision.patch, ...extra, updatedAt: at };
    this.ctx.storage.transactionSync(() => {
      this.#kv.put(K.record, next);
      this.#log(at, r.status, next.status, decision.logReason, {
        event: event.type,
        ...eventData(event),
        ...logData,
      });
      if (next.status !== r.status) {
        this.#markProjection(now);
        this.#outbox.enqueue(next, r.status, at, inputs && orderActions(next, inputs));
        markLiquidity(this.#kv, r.status, next);
        this.#scheduleStatus(next, now);
      }
    });
    return next;
  }

  /** The webhook events of this order (for support and tests): sequence, id, whether queued. */
  webhookEvents(): OutboxEntry[] {
    return this.#record() ? this.#outbox.entries() : [];
  }

  /** A log row without a status change (retries, extra deposits, the end of a watch). */
  #note(r: OrderRecord, now: number, reason: string, data: EventData | null): void {
    this.#log(new Date(now).toISOString(), r.status, r.status, reason, data);
  }

  async #project(record: OrderRecord): Promise<void> {
    try {
      let r = record;
      // Earnings are fixed once, with the price of the moment the order completed. The price read
      // lets other events in, so they are added to the record as it is after it.
      if (r.status === "completed" && !r.earnings) {
        const usd = await storedUsdPrice(this.env.DB, r.coinFrom);
        const current = this.#record();
        if (current?.status === "completed" && !current.earnings) {
          r = { ...current, earnings: orderEarnings(current, current.updatedAt, usd) };
          this.#kv.put(K.record, r);
        }
      }
      const version = this.ctx.storage.sql.exec<{ v: number }>("SELECT MAX(seq) AS v FROM events").one().v;
      await projectOrder(this.env.DB, r, version, this.#needsAction(r));
      // Only when the record has not moved on meanwhile; else the next run projects the newer one.
      const now = this.#record();
      if (now?.status === r.status && now.updatedAt === r.updatedAt) this.#kv.delete(K.projection);
    } catch (err) {
      console.error(
        JSON.stringify({
          level: "warn",
          order: record.id,
          msg: "index projection failed; will retry",
          error: String(err),
        }),
      );
    }
  }

  #log(at: string, from: OrderStatus | null, to: OrderStatus, reason: string, data: EventData | null) {
    this.ctx.storage.sql.exec(
      "INSERT INTO events (at, from_status, to_status, reason, data) VALUES (?, ?, ?, ?, ?)",
      at,
      from,
      to,
      reason,
      data ? JSON.stringify(data) : null,
    );
  }

  /**
   * The rows a new status brings and ends: the deadline while waiting for a deposit, the end of the
   * late-deposit watch while expired, the send the status drives (due now unless the ledger says).
   */
  #scheduleStatus(r: OrderRecord, now: number): void {
    const schedule = this.#schedule;
    if (r.status === "waiting_deposit") schedule.set(DUE.expiry, Date.parse(r.expiresAt));
    else schedule.clear(DUE.expiry);
    if (r.status === "expired") schedule.set(DUE.lateWatchEnd, Date.parse(r.lateWatchEndsAt));
    else schedule.clear(DUE.lateWatchEnd);
    const kind = SEND_OF_STATUS[r.status];
    if (kind) {
      const key = sendKey(r, kind);
      schedule.set(DUE.send(key), this.#ledger.get(key)?.nextAt ?? now);
    }
  }

  /** Keeps exactly one alarm at the earliest row of the schedule, or none when nothing is due. */
  async #arm(now: number): Promise<void> {
    await this.#schedule.arm(this.ctx.storage, now, this.#kv.get<number>(K.testClock) ?? 0);
  }
}

/** The event's own fields, for the log (type is logged separately). */
function eventData(event: OrderEvent): EventData {
  const { type: _type, ...rest } = event;
  return Object.fromEntries(
    Object.entries(rest).map(([k, v]) => [k, v as string | number | boolean]),
  ) as EventData;
}
