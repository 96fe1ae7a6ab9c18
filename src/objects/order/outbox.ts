import { LEDGER_STATUS_EVENT_TYPE, ledgerStatus, ledgerStatusUpdate } from "../../domain/ledger-swap";
import { isLive, type OrderRecord, orderView } from "../../domain/order";
import type { OrderActions } from "../../domain/order-actions";
import type { OrderStatus } from "../../domain/order-state";
import { isStreamEvent, type StreamItem } from "../../domain/streams";
import {
  newEventId,
  type OrderEventType,
  WEBHOOK_EVENT_TYPE,
  type WebhookEvent,
  type WebhookMessage,
} from "../../domain/webhooks";
import type { LazyTable } from "./lazy-table";

// Webhook events wait here, written in the same transaction as their transition, until the queue
// has accepted them: a failed send is retried, never lost.
export const OUTBOX_TABLE = `CREATE TABLE outbox (
  sequence INTEGER PRIMARY KEY,
  event_id TEXT NOT NULL,
  message TEXT NOT NULL,
  sent_at TEXT
)`;

export interface OutboxEntry {
  sequence: number;
  event_id: string;
  sent: boolean;
  message: WebhookMessage;
}

/** Cloudflare Queues takes at most 100 messages and 256 KB in one sendBatch. */
export const QUEUE_BATCH_MESSAGES = 100;
const QUEUE_BATCH_BYTES = 240_000; // below 256 KB, for the per-message overhead Queues counts

/** Consecutive slices of `rows` that each fit one sendBatch, in order. */
export function queueBatches<T extends { message: string }>(rows: readonly T[]): T[][] {
  const out: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = row.message.length;
    if (current.length && (current.length === QUEUE_BATCH_MESSAGES || bytes + size > QUEUE_BATCH_BYTES)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(row);
    bytes += size;
  }
  if (current.length) out.push(current);
  return out;
}

/**
 * The order's webhook outbox (table `outbox`, src/objects/order/migrations.ts, made by the order's
 * first status change): each status change's event is written in the transition's own transaction
 * and handed to the queue after it, in order; whatever the queue does not take stays for the next
 * run, never lost.
 */
/**
 * The partner's event stream (src/objects/partner-events.ts), fed the order's events in order: it
 * takes a batch again without harm (it keeps each event id once), so a failed call is retried.
 */
export interface PartnerFeed {
  readonly kv: SyncKvStorage;
  send(messages: WebhookMessage[]): Promise<void>;
}

/** The last sequence the partner's stream has taken. */
const FED = "stream_fed_sequence";

export class OrderOutbox {
  constructor(
    private readonly table: LazyTable,
    private readonly queue: Queue,
    /** Where the event's order links point (orderView). */
    private readonly publicOrigin: string,
    private readonly feed: PartnerFeed,
  ) {}

  /**
   * Writes the webhook event of a status change, or of a hold's start or end (`type`), inside the
   * change's own transaction; and for a Ledger swap whose status as Ledger reads it changed, the
   * push to Ledger's webhook beside it: both then travel, are retried and are logged alike
   * (docs/ledger.md, "Status webhook").
   */
  enqueue(
    next: OrderRecord,
    previous: OrderStatus,
    at: string,
    actions: OrderActions | null = null,
    type: OrderEventType = WEBHOOK_EVENT_TYPE,
  ): void {
    this.write(next, at, type, (id, sequence) =>
      JSON.stringify({
        id,
        type,
        created_at: at,
        sequence,
        data: { order: orderView(next, this.publicOrigin, actions), previous_status: previous },
      } satisfies WebhookEvent),
    );
    if (next.ledgerSwap && ledgerStatus(next.status) !== ledgerStatus(previous))
      this.write(next, at, LEDGER_STATUS_EVENT_TYPE, () => JSON.stringify(ledgerStatusUpdate(next)));
  }

  private write(
    order: OrderRecord,
    at: string,
    type: string,
    body: (id: string, sequence: number) => string,
  ) {
    const row = this.table.rows<{ n: number | null }>("SELECT MAX(sequence) AS n FROM outbox")[0];
    const sequence = (row?.n ?? 0) + 1;
    const id = newEventId();
    const message: WebhookMessage = {
      event_id: id,
      partner_id: order.partnerId,
      mode: isLive(order) ? "live" : "test",
      order_id: order.id,
      sequence,
      type,
      created_at: at,
      body: body(id, sequence),
    };
    this.table.write(
      "INSERT INTO outbox (sequence, event_id, message) VALUES (?, ?, ?)",
      sequence,
      id,
      JSON.stringify(message),
    );
  }

  /**
   * Hands unsent events to the queue, in order, in batches Queues accepts; a batch that fails stays
   * (with every later one) for the next run.
   */
  async flush(now: number, orderId: string | undefined): Promise<void> {
    await Promise.all([this.#flushQueue(now, orderId), this.#flushFeed(orderId)]);
  }

  async #flushQueue(now: number, orderId: string | undefined): Promise<void> {
    const pending = this.table.rows<{ sequence: number; message: string }>(
      "SELECT sequence, message FROM outbox WHERE sent_at IS NULL ORDER BY sequence",
    );
    if (pending.length === 0) return;
    const at = new Date(now).toISOString();
    try {
      for (const batch of queueBatches(pending)) {
        await this.queue.sendBatch(batch.map((p) => ({ body: JSON.parse(p.message) as WebhookMessage })));
        for (const p of batch)
          this.table.write("UPDATE outbox SET sent_at = ? WHERE sequence = ?", at, p.sequence);
      }
    } catch (err) {
      console.error(
        JSON.stringify({
          level: "warn",
          order: orderId,
          msg: "webhook enqueue failed; will retry",
          error: String(err),
        }),
      );
    }
  }

  /** Hands the events the partner's stream has not taken to it, in order; kept for the next run if it fails. */
  async #flushFeed(orderId: string | undefined): Promise<void> {
    const rows = this.table.rows<{ sequence: number; message: string }>(
      "SELECT sequence, message FROM outbox WHERE sequence > ? ORDER BY sequence",
      this.#fed(),
    );
    const last = rows.at(-1);
    if (!last) return;
    const events = rows
      .map((r) => JSON.parse(r.message) as WebhookMessage)
      .filter((m) => isStreamEvent(m.type));
    try {
      if (events.length) await this.feed.send(events);
      this.feed.kv.put(FED, last.sequence);
    } catch (err) {
      console.error(
        JSON.stringify({
          level: "warn",
          order: orderId,
          msg: "event stream feed failed; will retry",
          error: String(err),
        }),
      );
    }
  }

  #fed(): number {
    return this.feed.kv.get<number>(FED) ?? 0;
  }

  pending(): boolean {
    return (
      this.table.rows("SELECT 1 FROM outbox WHERE sent_at IS NULL OR sequence > ? LIMIT 1", this.#fed())
        .length > 0
    );
  }

  /**
   * The order's partner events after `sequence`, as its streams send them (src/objects/stream-hub.ts);
   * what the outbox carries for others (a Ledger swap's status push) is not one of them.
   */
  since(sequence: number): StreamItem[] {
    return this.table
      .rows<{ sequence: number; message: string }>(
        "SELECT sequence, message FROM outbox WHERE sequence > ? ORDER BY sequence",
        sequence,
      )
      .flatMap((r) => {
        const m = JSON.parse(r.message) as WebhookMessage;
        return isStreamEvent(m.type)
          ? [{ cursor: r.sequence, id: m.event_id, type: m.type, data: m.body }]
          : [];
      });
  }

  /** The sequence of one of the order's events; null for an id it does not have. */
  sequenceOf(eventId: string): number | null {
    return (
      this.table.rows<{ sequence: number }>("SELECT sequence FROM outbox WHERE event_id = ?", eventId)[0]
        ?.sequence ?? null
    );
  }

  /** Every event of the order, oldest first, and whether the queue has taken it. */
  entries(): OutboxEntry[] {
    return this.table
      .rows<{ sequence: number; event_id: string; message: string; sent_at: string | null }>(
        "SELECT sequence, event_id, message, sent_at FROM outbox ORDER BY sequence",
      )
      .map((r) => ({
        sequence: r.sequence,
        event_id: r.event_id,
        sent: r.sent_at !== null,
        message: JSON.parse(r.message) as WebhookMessage,
      }));
  }
}
