import type { MetricsSink } from "../../adapters/metrics";
import type { OrderHold } from "../../domain/holds";
import { sendKey } from "../../domain/ledger-keys";
import { isLive, type OrderRecord, type SendKind } from "../../domain/order";
import { type ActionInputs, orderActions } from "../../domain/order-actions";
import { decide, type OrderEvent, type OrderStatus, stateViewOf } from "../../domain/order-state";
import type { StatusTimes } from "../../domain/order-status";
import { stepTimes } from "../../domain/order-timing";
import { pairKey } from "../../storage/eta";
import type { OrderAlerts } from "./alerts";
import { markLiquidity } from "./liquidity";
import type { OrderOutbox } from "./outbox";
import { markProjection } from "./projection";
import { DUE, type OrderSchedule } from "./schedule";
import type { SendsLedger } from "./sends-ledger";
import type { EventData, OrderTransitions } from "./transitions";

export interface OrderEventLogEntry {
  seq: number;
  at: string;
  from_status: OrderStatus | null;
  to_status: OrderStatus;
  reason: string;
  data: EventData | null;
}

/** What the journal writes to besides its log: all of it inside a transition's one transaction. */
export interface JournalStores {
  readonly storage: DurableObjectStorage;
  readonly schedule: OrderSchedule;
  readonly ledger: SendsLedger;
  readonly outbox: OrderOutbox;
  readonly alerts: OrderAlerts;
  /** Where each status change is reported as a service-level point (docs/operators.md). */
  readonly metrics: MetricsSink;
  saveRecord(r: OrderRecord): void;
  /** Told after a status change is written (its event is in the outbox). */
  announce?(): void;
}

/** The alert a hold's deadline raises when its outcome is the operator's review (src/objects/order/parts.ts). */
export const HOLD_REVIEW_ALERT = "hold_review";

/** The send each status drives. */
const SEND_OF_STATUS: Partial<Record<OrderStatus, SendKind>> = {
  exchanging: "exchange",
  sending: "payout",
  refunding: "refund",
};

/**
 * The order's journal: the state machine applied to its record, and the append-only event log
 * (table `events`). A transition writes the new record, its log row, and what a new status brings
 * (the index row to project, the webhook, the liquidity step, the schedule rows) in one storage
 * transaction, so no crash leaves a status without its log row or its webhook.
 */
export class OrderJournal implements OrderTransitions {
  constructor(private readonly stores: JournalStores) {}

  /**
   * Applies one event through the state machine (null: rejected, nothing written). A move into a
   * failure that holds funds carries the actions `inputs` price into its webhook.
   */
  apply(
    r: OrderRecord,
    event: OrderEvent,
    now: number,
    extra: Partial<OrderRecord> = {},
    logData: EventData | null = null,
    inputs?: ActionInputs,
  ): OrderRecord | null {
    const decision = decide(stateViewOf(r), event, now);
    if (!decision.ok) {
      console.warn(
        JSON.stringify({ level: "warn", order: r.id, msg: "event rejected", error: decision.error }),
      );
      return null;
    }
    const at = new Date(now).toISOString();
    const next: OrderRecord = { ...r, ...decision.patch, ...extra, updatedAt: at };
    if (next.status === "completed" && r.status !== "completed") next.completedAt = at;
    Object.assign(next, stepTimes(r.status, next.status, at));
    // A refund pays what it was decided at: the decision's own figure, else the held funds' price.
    if (next.status === "refunding" && r.status !== "refunding")
      next.refundAmountDecided =
        extra.refundAmountDecided ?? (inputs && "amount" in inputs.refund ? inputs.refund.amount : undefined);
    const { storage, outbox } = this.stores;
    storage.transactionSync(() => {
      this.stores.saveRecord(next);
      this.log(at, r.status, next.status, decision.logReason, {
        event: event.type,
        ...eventData(event),
        ...logData,
      });
      if (next.status !== r.status) {
        this.markProjection(now);
        outbox.enqueue(next, r.status, at, inputs && orderActions(next, inputs));
        markLiquidity(storage.kv, r.status, next);
        this.#scheduleStatus(next, now);
        // The order's money is settled: whatever it alerted on is over.
        if (next.status === "completed" || next.status === "refunded")
          this.stores.alerts.clearAll(next.id, now);
      }
      this.#holdChanged(r, next, at, now);
    });
    if (next.status !== r.status) {
      this.stores.announce?.();
      this.stores.metrics.transition({
        pair: pairKey(r.networkFrom, r.networkTo),
        from: r.status,
        to: next.status,
        partnerId: r.partnerId,
        mode: isLive(r) ? "live" : "test",
        ageMs: now - Date.parse(r.createdAt),
        sinceLastMs: now - Date.parse(r.updatedAt),
      });
    }
    return next;
  }

  /**
   * The hold put, moved or ended with no status change (the operator's release or extension): the
   * record, its log row, the webhook and the deadline's row, in one transaction.
   */
  changeHold(
    r: OrderRecord,
    hold: OrderHold | null,
    now: number,
    reason: string,
    data: EventData,
  ): OrderRecord {
    const at = new Date(now).toISOString();
    const next: OrderRecord = { ...r, hold, updatedAt: at };
    this.stores.storage.transactionSync(() => {
      this.stores.saveRecord(next);
      this.log(at, r.status, r.status, reason, data);
      this.#holdChanged(r, next, at, now);
    });
    return next;
  }

  /**
   * What a hold's start, move or end brings: its webhook (`order.held` again when the deadline
   * moves), the deadline's row, the index row (the review queue lists held orders), and on its end
   * a read of the chain now, so a released deposit goes on at once.
   */
  #holdChanged(r: OrderRecord, next: OrderRecord, at: string, now: number): void {
    const before = r.hold ?? null;
    const after = next.hold ?? null;
    if (JSON.stringify(before) === JSON.stringify(after)) return;
    const { schedule, outbox } = this.stores;
    outbox.enqueue(next, next.status, at, null, after ? "order.held" : "order.released");
    this.markProjection(now);
    if (after) schedule.set(DUE.holdDeadline, Date.parse(after.deadline_at));
    else {
      schedule.clear(DUE.holdDeadline);
      schedule.set(DUE.poll, now);
      this.stores.alerts.clear(next.id, HOLD_REVIEW_ALERT, now);
    }
  }

  /** A log row without a status change (retries, extra deposits, the end of a watch). */
  note(r: OrderRecord, now: number, reason: string, data: EventData | null): void {
    this.log(new Date(now).toISOString(), r.status, r.status, reason, data);
  }

  /** Returns the row's position in the log: the version of the order it records. */
  log(at: string, from: OrderStatus | null, to: OrderStatus, reason: string, data: EventData | null): number {
    return this.stores.storage.sql
      .exec<{ seq: number }>(
        "INSERT INTO events (at, from_status, to_status, reason, data) VALUES (?, ?, ?, ?, ?) RETURNING seq",
        at,
        from,
        to,
        reason,
        data ? JSON.stringify(data) : null,
      )
      .one().seq;
  }

  /** The index row must be written again (status, needs_action): by the alarm, soon. */
  markProjection(now: number): void {
    markProjection(this.stores.storage.kv, this.stores.schedule, now);
  }

  /** The whole log, oldest first (operators' support view). */
  events(): OrderEventLogEntry[] {
    return this.stores.storage.sql
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
  }

  /** When the order first entered each status (the tracking page's timeline). */
  reached(): StatusTimes {
    const rows = this.stores.storage.sql
      .exec<{ status: OrderStatus; at: string }>(
        "SELECT to_status AS status, MIN(at) AS at FROM events WHERE from_status IS NULL OR from_status != to_status GROUP BY to_status",
      )
      .toArray();
    return Object.fromEntries(rows.map((r) => [r.status, r.at]));
  }

  /** The log's position: the version the D1 index row is projected as of. */
  version(): number {
    return this.stores.storage.sql.exec<{ v: number }>("SELECT MAX(seq) AS v FROM events").one().v;
  }

  /**
   * The rows a new status brings and ends: the deadline while waiting for a deposit, the end of the
   * late-deposit watch while expired, the send the status drives (due now unless the ledger says).
   */
  #scheduleStatus(r: OrderRecord, now: number): void {
    const { schedule, ledger } = this.stores;
    if (r.status === "waiting_deposit") schedule.set(DUE.expiry, Date.parse(r.expiresAt));
    else schedule.clear(DUE.expiry);
    if (r.status === "expired") schedule.set(DUE.lateWatchEnd, Date.parse(r.lateWatchEndsAt));
    else schedule.clear(DUE.lateWatchEnd);
    const kind = SEND_OF_STATUS[r.status];
    if (kind) ledger.wake(sendKey(r, kind), now);
  }
}

/** The event's own fields, for the log (type is logged separately). */
export function eventData(event: OrderEvent): EventData {
  const { type: _type, ...rest } = event;
  return Object.fromEntries(
    Object.entries(rest).map(([k, v]) => [k, v as string | number | boolean]),
  ) as EventData;
}
