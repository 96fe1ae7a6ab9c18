import { DurableObject } from "cloudflare:workers";
import { deriveDepositAddress } from "../domain/addresses";
import { type DepositScheme, FIRST_MEMO_TAG } from "../domain/deposit";
import { type OrderDraft, type OrderRecord, type OrderView, orderView } from "../domain/order";
import { decide, type OrderEvent, type OrderStatus } from "../domain/order-state";
import { newShortId } from "../domain/short-id";
import {
  claimPoolAddress,
  insertOrderIndex,
  nextCounterValue,
  updateOrderIndexStatus,
} from "../storage/orders";

export type CreateResult =
  | { kind: "created"; order: OrderView }
  | { kind: "replayed"; order: OrderView }
  | { kind: "conflict" }
  | { kind: "unavailable"; reason: string };

/** Event data: flat JSON values only, so it crosses RPC and serialises as is. */
export type EventData = Record<string, string | number | boolean | null>;

export interface OrderEventLogEntry {
  seq: number;
  at: string;
  from_status: OrderStatus | null;
  to_status: OrderStatus;
  reason: string;
  data: EventData | null;
}

const RECORD_KEY = "order";
const PROJECTION_KEY = "projection_pending";
/** The 201 body as first sent, so an Idempotency-Key replay returns exactly the same body. */
const CREATED_VIEW_KEY = "created_view";
/** Retry delay for a D1 index write that failed (the object stays the source of truth). */
const PROJECTION_RETRY_MS = 10_000;
const SHORT_ID_ATTEMPTS = 4;

/**
 * One Durable Object per order: the record, an append-only event log, and the state machine.
 * Every transition writes the new record and its log row in one storage transaction; a single
 * alarm is kept at the earliest due moment (expiry, retries), and the alarm handler is idempotent.
 */
export class OrderObject extends DurableObject<Env> {
  #creating: Promise<CreateResult> | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS events (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      at TEXT NOT NULL,
      from_status TEXT,
      to_status TEXT NOT NULL,
      reason TEXT NOT NULL,
      data TEXT
    )`);
  }

  #record(): OrderRecord | undefined {
    return this.ctx.storage.kv.get<OrderRecord>(RECORD_KEY);
  }

  /**
   * Creates the order once. Concurrent calls for the same id (an Idempotency-Key retried in
   * parallel) share the first call's work; later calls replay it, or conflict if the request differs.
   */
  async create(draft: OrderDraft, scheme: DepositScheme): Promise<CreateResult> {
    const existing = this.#record();
    if (existing) return this.#replay(existing, draft);
    if (this.#creating) {
      await this.#creating.catch(() => undefined);
      const now = this.#record();
      if (now) return this.#replay(now, draft);
    }
    this.#creating = this.#doCreate(draft, scheme);
    try {
      return await this.#creating;
    } finally {
      this.#creating = null;
    }
  }

  #replay(existing: OrderRecord, draft: OrderDraft): CreateResult {
    if (existing.partnerId !== draft.partnerId || existing.requestHash !== draft.requestHash)
      return { kind: "conflict" };
    return {
      kind: "replayed",
      order: this.ctx.storage.kv.get<OrderView>(CREATED_VIEW_KEY) ?? orderView(existing),
    };
  }

  async #doCreate(draft: OrderDraft, scheme: DepositScheme): Promise<CreateResult> {
    const deposit = await this.#allocateDeposit(draft, scheme);
    if ("unavailable" in deposit) return { kind: "unavailable", reason: deposit.unavailable };
    let record: OrderRecord | undefined;
    for (let attempt = 1; !record; attempt++) {
      const candidate: OrderRecord = { ...draft, shortId: newShortId(), ...deposit };
      try {
        await insertOrderIndex(this.env.DB, {
          id: candidate.id,
          short_id: candidate.shortId,
          partner_id: candidate.partnerId,
          status: candidate.status,
          coin_from: candidate.coinFrom,
          network_from: candidate.networkFrom,
          coin_to: candidate.coinTo,
          network_to: candidate.networkTo,
          deposit_address: candidate.depositAddress,
          deposit_address_tag: candidate.depositAddressTag,
          created_at: candidate.createdAt,
          updated_at: candidate.updatedAt,
          expires_at: candidate.expiresAt,
        });
        record = candidate;
      } catch (err) {
        // A short_id collision (50 random bits) is retried with a fresh id; anything else fails.
        if (attempt >= SHORT_ID_ATTEMPTS || !String(err).includes("orders.short_id")) throw err;
      }
    }
    const created = record;
    const view = orderView(created);
    this.ctx.storage.transactionSync(() => {
      this.ctx.storage.kv.put(RECORD_KEY, created);
      this.ctx.storage.kv.put(CREATED_VIEW_KEY, view);
      this.#log(created.createdAt, null, created.status, "order created", {
        deposit_address: created.depositAddress,
        deposit_address_tag: created.depositAddressTag,
        amount_from_expected: created.amountFromExpected,
        rate_quoted: created.rateQuoted,
      });
    });
    await this.#arm(created);
    return { kind: "created", order: view };
  }

  async #allocateDeposit(
    draft: OrderDraft,
    scheme: DepositScheme,
  ): Promise<{ depositAddress: string; depositAddressTag: string | null } | { unavailable: string }> {
    switch (scheme.kind) {
      case "derive": {
        const index = await nextCounterValue(this.env.DB, scheme.counter);
        return {
          depositAddress: deriveDepositAddress(scheme.family, scheme.xpub, index),
          depositAddressTag: null,
        };
      }
      case "memo": {
        const n = await nextCounterValue(this.env.DB, scheme.counter);
        return { depositAddress: scheme.address, depositAddressTag: String(FIRST_MEMO_TAG + n) };
      }
      case "pool": {
        const address = await claimPoolAddress(this.env.DB, scheme.network, draft.id, draft.createdAt);
        return address
          ? { depositAddress: address, depositAddressTag: null }
          : { unavailable: `no free deposit address for ${scheme.network}` };
      }
      case "none":
        return { unavailable: scheme.reason };
    }
  }

  /** The order as its partner sees it; null for another partner's order or no order at all. */
  get(partnerId: string): OrderView | null {
    const r = this.#record();
    return r && r.partnerId === partnerId ? orderView(r) : null;
  }

  /** Operators' support view: the order and its full event log. */
  inspect(): { order: OrderView; partner_id: string; events: OrderEventLogEntry[] } | null {
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
    return { order: orderView(r), partner_id: r.partnerId, events };
  }

  /** Runs whatever is due now; the cron sweep calls it for orders whose alarm may have been lost. */
  async tick(): Promise<void> {
    await this.#runDue(Date.now());
  }

  override async alarm(): Promise<void> {
    await this.#runDue(Date.now());
  }

  async #runDue(now: number): Promise<void> {
    let r = this.#record();
    if (!r) return;
    if (r.status === "waiting_deposit" && now >= Date.parse(r.expiresAt)) {
      r = this.#apply(r, { type: "expire" }, now) ?? r;
    }
    if (this.ctx.storage.kv.get<boolean>(PROJECTION_KEY)) await this.#project(r);
    await this.#arm(r);
  }

  /** Applies one event through the state machine; the record and its log row commit together. */
  #apply(r: OrderRecord, event: OrderEvent, now: number): OrderRecord | null {
    const decision = decide(
      {
        status: r.status,
        expiresAt: Date.parse(r.expiresAt),
        hasRefundAddress: r.refundAddress !== null,
        lateWatchEndsAt: Date.parse(r.lateWatchEndsAt),
      },
      event,
      now,
    );
    if (!decision.ok) return null;
    const at = new Date(now).toISOString();
    const next: OrderRecord = { ...r, ...decision.patch, updatedAt: at };
    this.ctx.storage.transactionSync(() => {
      this.ctx.storage.kv.put(RECORD_KEY, next);
      this.#log(at, r.status, next.status, decision.logReason, { event: event.type });
      if (next.status !== r.status) this.ctx.storage.kv.put(PROJECTION_KEY, true);
    });
    return next;
  }

  async #project(r: OrderRecord): Promise<void> {
    try {
      await updateOrderIndexStatus(this.env.DB, r.id, r.status, r.updatedAt);
      this.ctx.storage.kv.delete(PROJECTION_KEY);
    } catch (err) {
      console.error(
        JSON.stringify({
          level: "warn",
          order: r.id,
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

  /** Keeps exactly one alarm at the earliest due moment, or none when nothing is due. */
  async #arm(r: OrderRecord): Promise<void> {
    const due: number[] = [];
    if (r.status === "waiting_deposit") due.push(Date.parse(r.expiresAt));
    if (this.ctx.storage.kv.get<boolean>(PROJECTION_KEY)) due.push(Date.now() + PROJECTION_RETRY_MS);
    if (due.length === 0) {
      await this.ctx.storage.deleteAlarm();
      return;
    }
    await this.ctx.storage.setAlarm(Math.min(...due));
  }
}
