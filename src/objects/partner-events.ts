import { DurableObject } from "cloudflare:workers";
import { getConfig } from "../config";
import type { StreamItem } from "../domain/streams";
import type { WebhookMessage } from "../domain/webhooks";
import { StreamHub, streamHubOptions } from "./stream-hub";

/** Rows trimmed per append at most, so trimming never makes one append slow, yet keeps up. */
const TRIM_BATCH = 100;

/**
 * One partner's order events in one mode (named `<partner_id>:<live|test>`), in the order they
 * arrived, kept STREAM_RETENTION_DAYS (≥ 7) for `GET /api/v1/partner/events` to resume from any of
 * them (docs/events.md). Each order object feeds it its outbox after the transition is written
 * (src/objects/order/outbox.ts): one call per order run, no D1 write. A batch that comes again (the
 * order retried a call whose answer it lost) is kept once: the event id is unique.
 */
export class PartnerEvents extends DurableObject<Env> {
  private readonly sql = this.ctx.storage.sql;
  readonly #hub: StreamHub;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS events (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      event_id TEXT NOT NULL UNIQUE, type TEXT NOT NULL, body TEXT NOT NULL, at_ms INTEGER NOT NULL)`);
    this.#hub = new StreamHub(
      ctx,
      {
        since: (cursor) => this.#since(cursor),
        cursorOf: (id) =>
          this.sql.exec<{ seq: number }>("SELECT seq FROM events WHERE event_id = ?", id).toArray()[0]?.seq ??
          null,
        // Without a last event id a connection starts live: the log may hold a week of events.
        start: () => this.sql.exec<{ n: number | null }>("SELECT MAX(seq) AS n FROM events").one().n ?? 0,
        finished: () => false,
      },
      {
        ...streamHubOptions(env),
        wakeBy: async (at) => {
          const armed = await ctx.storage.getAlarm();
          if (armed === null || armed > at) await ctx.storage.setAlarm(at);
        },
      },
    );
  }

  /** Appends an order's events (in its order), drops what is past retention, and sends them live. */
  append(messages: WebhookMessage[]): void {
    const now = Date.now();
    const cutoff = now - getConfig(this.env).STREAM_RETENTION_DAYS * 86_400_000;
    this.ctx.storage.transactionSync(() => {
      for (const m of messages)
        this.sql.exec(
          "INSERT OR IGNORE INTO events (event_id, type, body, at_ms) VALUES (?, ?, ?, ?)",
          m.event_id,
          m.type,
          m.body,
          now,
        );
      // Arrival order is time order: the oldest rows are the first ones.
      this.sql.exec(
        "DELETE FROM events WHERE seq IN (SELECT seq FROM events ORDER BY seq LIMIT ?) AND at_ms < ?",
        TRIM_BATCH,
        cutoff,
      );
    });
    this.#hub.publish();
  }

  override async fetch(request: Request): Promise<Response> {
    return this.#hub.open(request);
  }

  /** The alarm is only the WebSockets' longest connection time: close those past it, wait for the next. */
  override async alarm(): Promise<void> {
    const next = this.#hub.expire();
    if (next !== null) await this.ctx.storage.setAlarm(next);
  }

  override webSocketMessage(ws: WebSocket): void {
    this.#hub.message(ws);
  }

  override webSocketClose(ws: WebSocket): void {
    this.#hub.closed(ws);
  }

  override webSocketError(ws: WebSocket): void {
    this.#hub.closed(ws);
  }

  #since(cursor: number): StreamItem[] {
    return this.sql
      .exec<{ seq: number; event_id: string; type: string; body: string }>(
        "SELECT seq, event_id, type, body FROM events WHERE seq > ? ORDER BY seq",
        cursor,
      )
      .toArray()
      .map((r) => ({ cursor: r.seq, id: r.event_id, type: r.type, data: r.body }));
  }
}
