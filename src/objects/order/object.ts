import { DurableObject } from "cloudflare:workers";
import { getConfig } from "../../config";
import type { DepositScheme } from "../../domain/deposit";
import { isLive, type OrderDraft, type OrderRecord, type OrderView } from "../../domain/order";
import type { CreationKey } from "../../domain/order-id";
import { opensOrder } from "../../domain/order-link";
import { isFinal, type StatusTimes } from "../../domain/order-status";
import type { ClockJump } from "../../domain/test-clock";
import { StreamHub, streamHubOptions } from "../stream-hub";
import { type CancelResult, cancelOrder } from "./cancellation";
import { type CreateResult, OrderCreation, replayCreation } from "./creation";
import type { ActionRequest, Actor, ActResult, HoldDecision, HoldResult, ResolveResult } from "./decisions";
import type { OrderEventLogEntry } from "./journal";
import { flushLiquidity } from "./liquidity";
import { createOrderMeter, type OrderMeter } from "./meter";
import { migrate, ORDER_MIGRATIONS, ORDER_SCHEMA } from "./migrations";
import type { OutboxEntry } from "./outbox";
import { OrderParts } from "./parts";
import { projectionPending, projectRecord, scheduleOutbox } from "./projection";
import { isCompacted, retain } from "./retention";
import { DUE } from "./schedule";
import type { SerialisedView } from "./view";

export type { CancelResult } from "./cancellation";
export type { CreateResult } from "./creation";
export type {
  ActionRequest,
  Actor,
  ActResult,
  HoldAfterDecision,
  HoldDecision,
  HoldResult,
  OperatorHold,
  ResolveResult,
} from "./decisions";
export type { OrderEventLogEntry } from "./journal";

/**
 * One Durable Object per order: the record, an append-only event log, and the state machine.
 * Every transition writes the new record and its log row in one storage transaction. One alarm is
 * kept at the earliest due moment (expiry, next chain poll, next retry); the handler is idempotent
 * (alarms are at-least-once) and re-arms itself instead of throwing. The work is done by the
 * lifecycle's parts (src/objects/order/parts.ts), over one context built once per object.
 */
export class OrderObject extends DurableObject<Env> {
  readonly #creation = new OrderCreation();
  #running: Promise<void> | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => migrate(ctx.storage, ORDER_MIGRATIONS, ORDER_SCHEMA));
  }

  #parts: OrderParts | null = null;

  /**
   * The order's parts over one context. They hold no state of their own (all of it is in storage),
   * and storage and env are the object's for life, so they are built once, not on every call (a
   * status read is the hottest path).
   */
  get #order(): OrderParts {
    if (!this.#parts) {
      // ORDER_METER (the soak's cost table): the parts run on counted storage and env.
      this.#meter = getConfig(this.env).ORDER_METER
        ? createOrderMeter(this.ctx.storage, this.env, this.ctx.id.name ?? this.ctx.id.toString())
        : null;
      this.#parts = new OrderParts(
        this.#meter?.storage ?? this.ctx.storage,
        this.#meter?.env ?? this.env,
        () => this.#streams.publish(),
      );
    }
    return this.#parts;
  }

  /** The order's live event streams (docs/events.md); made by the first connection. */
  #hub: StreamHub | null = null;

  get #streams(): StreamHub {
    if (!this.#hub) {
      const { c } = this.#order;
      this.#hub = new StreamHub(
        this.ctx,
        {
          since: (cursor) => c.outbox.since(cursor),
          cursorOf: (id) => c.outbox.sequenceOf(id),
          // A new connection gets the order's whole log: the client learns where the order stands.
          start: () => 0,
          finished: () => {
            const r = c.record();
            return r !== undefined && isFinal(r.status);
          },
        },
        { ...streamHubOptions(this.env), wakeBy: (at) => this.#wakeStreamsBy(at) },
      );
    }
    return this.#hub;
  }

  /** The schedule's row for the streams' next longest connection time (its moments are on the order's clock). */
  async #wakeStreamsBy(at: number): Promise<void> {
    const { c } = this.#order;
    const due = at + c.now() - Date.now();
    const set = c.schedule.get(DUE.streams);
    if (set !== null && set <= due) return;
    c.schedule.set(DUE.streams, due);
    await c.arm(c.now());
  }

  #meter: OrderMeter | null = null;

  // ── creation ──────────────────────────────────────────────────────────────────────────────

  /** Creates the order once (src/objects/order/creation.ts). */
  create(draft: OrderDraft, scheme: DepositScheme): Promise<CreateResult> {
    const o = this.#order;
    return this.#creation
      .create(o.c, draft, scheme, (r) => o.view.needsAction(r))
      .finally(() => this.#meter?.flush());
  }

  /**
   * A list sent this order's create bookmark (src/http/middleware/d1-session.ts) reads the index
   * after this: the projection the creation started is awaited, and if the row is still pending
   * (it failed, or the order moved on) it is projected now, under the version guard, so a second
   * write changes nothing. Returns once written or failed; does nothing for another partner's order.
   */
  async indexed(partnerId: string): Promise<void> {
    const o = this.#order;
    if (o.c.record()?.partnerId !== partnerId) return;
    await this.#creation.projected();
    const r = o.c.record();
    if (r && projectionPending(o.c.kv)) await projectRecord(o.c, r, (x) => o.view.needsReview(x));
  }

  /** The answer to a repeated Idempotency-Key; null while no order exists. */
  replay(creation: CreationKey): CreateResult | null {
    return replayCreation(this.#order.c, creation);
  }

  // ── reads ─────────────────────────────────────────────────────────────────────────────────

  /** The order as its partner sees it; null for another partner's order or no order at all. */
  async get(partnerId: string): Promise<OrderView | null> {
    const o = this.#order;
    const r = o.c.record();
    return r && r.partnerId === partnerId ? o.view.view(r, o.c.now()) : null;
  }

  /**
   * `GET /partner/orders/{id}`: the order as its partner sees it, already serialised (a string
   * crosses the call for less than the view's object), its mode and the key that created it; null
   * for another partner's order or no order at all. `token`: the order was named by its public
   * capability (`<uuid>.<token>`), which must be exactly its own (src/domain/order-link.ts).
   */
  async partnerBody(partnerId: string, token?: string): Promise<Omit<SerialisedView, "partnerId"> | null> {
    if (token !== undefined && !opensOrder(this.#order.c.record()?.trackToken, token)) return null;
    const view = await this.#order.view.serialised();
    if (!view || view.partnerId !== partnerId) return null;
    const { partnerId: _owner, ...body } = view;
    return body;
  }

  /**
   * The order for its keyless readers (the status API, the tracking page): the view, its owner and
   * when it reached each status, without the event log. Null when no order has this id or `token`
   * does not open it (src/domain/order-link.ts).
   */
  async track(
    token: string | null,
  ): Promise<{ order: OrderView; partnerId: string; reached: StatusTimes } | null> {
    const o = this.#order;
    const r = o.c.record();
    return r && opensOrder(r.trackToken, token)
      ? { order: await o.view.view(r, o.c.now()), partnerId: r.partnerId, reached: o.c.journal.reached() }
      : null;
  }

  /** Operators' support view: the order, its full event log and a test order's clock jumps. */
  async inspect(): Promise<{
    order: OrderView;
    partner_id: string;
    events: OrderEventLogEntry[];
    clock_jumps: ClockJump[];
  } | null> {
    const o = this.#order;
    const r = o.c.record();
    if (!r) return null;
    const events = o.c.journal.events();
    return {
      order: await o.view.view(r, o.c.now()),
      partner_id: r.partnerId,
      events,
      clock_jumps: o.c.clockJumps(),
    };
  }

  /** The webhook events of this order (for support and tests): sequence, id, whether queued. */
  webhookEvents(): OutboxEntry[] {
    const { c } = this.#order;
    return c.record() ? c.outbox.entries() : [];
  }

  // ── live event streams (the Worker has checked who may open them) ─────────────────────────

  override async fetch(request: Request): Promise<Response> {
    return this.#streams.open(request);
  }

  override webSocketMessage(ws: WebSocket): void {
    this.#streams.message(ws);
  }

  override webSocketClose(ws: WebSocket): void {
    this.#streams.closed(ws);
  }

  override webSocketError(ws: WebSocket): void {
    this.#streams.closed(ws);
  }

  // ── decisions on held funds ───────────────────────────────────────────────────────────────

  /** Takes one decision on the money a failed order holds (src/objects/order/decisions.ts). */
  act(
    actor: Actor,
    action: ActionRequest,
    idempotency: { key: string; hash: string } | null,
  ): Promise<ActResult> {
    return this.#order.decisions.act(actor, action, idempotency);
  }

  /** Records a transfer an operator made by hand (src/objects/order/decisions.ts). */
  resolve(kind: "payout" | "refund", txid: string, note: string, operator: string): Promise<ResolveResult> {
    return this.#order.decisions.resolve(kind, txid, note, operator);
  }

  /**
   * The operator's hold on the order's decisions, put (`on`) or released (src/objects/order/decisions.ts).
   * It waits for a run under way, so a held `exchanging` order's answer is the order as that run
   * left it, and no leg is placed after it.
   */
  async hold(on: boolean, operator: string, note: string): Promise<HoldResult> {
    while (this.#running) await this.#running;
    return this.#order.decisions.hold(on, operator, note);
  }

  /** The operator extends a screened deposit's hold once, or ends it in a refund (src/objects/order/decisions.ts). */
  async decideHold(decision: HoldDecision, operator: string): Promise<HoldResult> {
    while (this.#running) await this.#running;
    return this.#order.decisions.decideHold(decision, operator);
  }

  /** The partner abandons an order nobody has paid (src/objects/order/cancellation.ts). */
  cancel(partner: { id: string; livemode: boolean }): Promise<CancelResult> {
    const o = this.#order;
    return cancelOrder(o.c, o.view, partner);
  }

  // ── test mode ─────────────────────────────────────────────────────────────────────────────

  /** The record of this partner's test order, for the test helpers; null for anything else. */
  testRecord(partnerId: string): OrderRecord | null {
    const r = this.#order.c.record();
    return r && r.partnerId === partnerId && !isLive(r) ? r : null;
  }

  /**
   * After a test helper changed the order's world (its SimChain, its clock): run now instead of at
   * the next poll, and answer the order as it then is. `pass` moves the test clock past a deadline:
   * `expiry`, expires_at, or for a fixed order whose deposit is confirming the end of the fixed
   * rate's confirmation window (so a `confirm` after it shows `fixed_rate_expired`); `hold`, the
   * hold's deadline.
   */
  async testAdvance(partnerId: string, opts: { pass: "expiry" | "hold" | null }): Promise<OrderView | null> {
    const r = this.testRecord(partnerId);
    if (!r) return null;
    const o = this.#order;
    const rateWindow =
      r.rateType === "fixed" && r.status === "confirming"
        ? o.c.config.FIXED_RATE_CONFIRM_MINUTES * 60_000
        : 0;
    const deadline =
      opts.pass === "hold" && r.hold
        ? Date.parse(r.hold.deadline_at)
        : opts.pass === "expiry"
          ? Date.parse(r.expiresAt) + rateWindow
          : null;
    const ahead = deadline === null ? -1 : deadline - o.c.now();
    if (ahead >= 0) o.c.runAhead(ahead + 1);
    o.deposits.pollNow();
    o.c.schedule.clear(DUE.pause);
    // A run already under way may have read the chain before the change: run once more after it.
    if (this.#running) await this.#running;
    await this.#runExclusive();
    return o.view.view(o.c.record() ?? r, o.c.now());
  }

  // ── the lifecycle ─────────────────────────────────────────────────────────────────────────

  /** Runs whatever is due now; the cron sweep calls it for orders whose alarm may have been lost. */
  async tick(): Promise<void> {
    await this.#runExclusive();
  }

  /**
   * The slow sweep's read of the address after the late-deposit watch (src/services/sweep.ts), then
   * a run to send what it changed (the index row that puts an offered refund in the review queue).
   * It waits for a run under way and holds off the next one, as a run does.
   */
  async checkAfterWatch(): Promise<void> {
    while (this.#running) await this.#running;
    const o = this.#order;
    this.#running = (async () => {
      const r = o.c.record();
      if (r && !isCompacted(o.c.kv)) await o.deposits.checkAfterWatch(r, o.c.now());
      await this.#run();
    })().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  override async alarm(): Promise<void> {
    if (this.#order && this.#meter) this.#meter.alarm();
    this.#expireStreams();
    try {
      await this.#runExclusive();
    } finally {
      this.#meter?.flush();
    }
  }

  /**
   * Closes the WebSockets past their longest connection time (a hibernated one hears nothing else)
   * and keeps the streams' row at the next one's; the run that follows arms the alarm.
   */
  #expireStreams(): void {
    const { c } = this.#order;
    const next = this.#streams.expire();
    const due = next === null ? null : next + c.now() - Date.now();
    if (c.schedule.get(DUE.streams) === due) return;
    if (due === null) c.schedule.clear(DUE.streams);
    else c.schedule.set(DUE.streams, due);
  }

  /** Alarm runs and sweeps never overlap: a second caller waits for the run in progress. */
  #runExclusive(): Promise<void> {
    this.#running ??= this.#run().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  async #run(): Promise<void> {
    const o = this.#order;
    const { c } = o;
    // A compacted order has forgotten its deposit watch and extra deposits (retention.ts).
    if (isCompacted(c.kv)) return;
    const now = c.now();
    try {
      await o.step(now);
      const r = c.record();
      if (r) await o.money.refundExtras(r, now);
      c.schedule.clear(DUE.pause);
    } catch (err) {
      // Never let the alarm fail: log, and try again after a pause (an outside service was down,
      // or a bug — the event log and the error say which).
      console.error(
        JSON.stringify({
          level: "error",
          order: c.record()?.id,
          msg: "lifecycle step failed",
          error: String(err),
        }),
      );
      const pauseUntil = now + c.config.RETRY_BASE_SECONDS * 1000 * 8;
      o.deposits.postponePoll(pauseUntil);
      // Whatever step threw (a chain read, the exchange, a payout before its intent was stored),
      // the alarm must not come straight back for it.
      c.schedule.set(DUE.pause, pauseUntil);
    }
    // Then what the transitions left to send: the index row, alerts, webhooks, the liquidity step;
    // then, once all is sent, a terminal order's retention.
    const r = c.record();
    if (!r) return;
    if (projectionPending(c.kv)) await projectRecord(c, r, (x) => o.view.needsReview(x));
    await c.alerts.project(c.env.DB, () => r.id);
    await c.outbox.flush(c.now(), r.id);
    await flushLiquidity(c.env, c.config, c.kv, r);
    retain(o, c.record() ?? r, c.now());
    scheduleOutbox(c, c.now());
    await c.arm(c.now());
  }
}
