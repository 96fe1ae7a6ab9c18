import { getConfig } from "../config";
import {
  type ConnectionLease,
  FINISHED_HEADER,
  parseStreamOpen,
  SSE_HEARTBEAT,
  type StreamItem,
  type StreamSubscription,
  sseFrame,
  sseRetry,
  streamEvent,
  WS_DONE,
  WS_RECONNECT,
  wsFrame,
} from "../domain/streams";
import { releaseConnections } from "./rate-limiter";

/** The log a hub streams from: the order's outbox, or a partner's event log. */
export interface StreamSource {
  /** Events after `cursor`, oldest first. */
  since(cursor: number): StreamItem[];
  /** The position of an event id in the log; null when the log does not hold it. */
  cursorOf(eventId: string): number | null;
  /** Where a connection without a last event id starts: 0 (the whole log) or the log's end (live only). */
  start(): number;
  /** No more events will come (a finished order): a connection closes after what is left. */
  finished(): boolean;
}

export interface StreamHubOptions {
  heartbeatMs: number;
  maxConnectionMs: number;
  /** Gives back the connection slots of a closed connection. */
  release(leases: ConnectionLease[]): Promise<void>;
  /**
   * Has the object's alarm come by `at` (ms, real time) without moving an earlier one: a hibernated
   * WebSocket hears nothing else when its longest connection time is up (`expire`).
   */
  wakeBy(at: number): Promise<void>;
}

interface SseConnection {
  sub: StreamSubscription;
  writer: WritableStreamDefaultWriter<Uint8Array>;
  timers: ReturnType<typeof setTimeout>[];
}

/** EventSource waits this long before it reconnects after the server closes. */
const RECONNECT_MS = 1000;
const encoder = new TextEncoder();

/**
 * The live connections of one Durable Object's event log (docs/events.md). A connection is sent
 * the log after its last event id, then every event appended after, each exactly once: it keeps
 * the last position it was sent, and is sent only what lies past it. Opening reads the log and
 * registers the connection in one synchronous step, so nothing appended can fall between.
 * SSE connections live in memory with their timers; WebSockets are accepted for hibernation and
 * keep their subscription as their attachment, so an idle one costs the object nothing: the
 * object's alarm closes it at its longest connection time (`expire`).
 */
export class StreamHub {
  readonly #sse = new Set<SseConnection>();

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly source: StreamSource,
    private readonly options: StreamHubOptions,
  ) {}

  /** Opens the stream the Worker asks for (streamOpenRequest); 404 for an event id the log lacks. */
  async open(request: Request): Promise<Response> {
    const open = parseStreamOpen(request);
    const openedAt = Date.now();
    // Before the log is read, so that reading it and registering the socket stay one step.
    if (open.websocket && !this.source.finished())
      await this.options.wakeBy(openedAt + this.options.maxConnectionMs);
    const cursor = open.lastEventId === null ? this.source.start() : this.source.cursorOf(open.lastEventId);
    if (cursor === null) {
      this.#release(open.leases);
      return new Response(null, { status: 404 });
    }
    const sub: StreamSubscription = {
      view: open.view,
      types: open.types,
      cursor,
      openedAt,
      leases: open.leases,
    };
    return open.websocket ? this.#openSocket(sub) : this.#openSse(sub);
  }

  /** Sends every connection what the log holds past its position (after each append). */
  publish(): void {
    const sockets = this.#sockets();
    if (this.#sse.size === 0 && sockets.length === 0) return;
    const from = Math.min(...[...this.#sse].map((c) => c.sub.cursor), ...sockets.map(([, s]) => s.cursor));
    const items = this.source.since(from);
    const finished = this.source.finished();
    const frames = new FrameCache();
    for (const conn of this.#sse) {
      this.#sendSse(conn, items, frames);
      if (finished) this.#closeSse(conn);
    }
    const now = Date.now();
    for (const [ws, sub] of sockets) {
      this.#sendSocket(ws, sub, items, frames);
      if (finished) ws.close(WS_DONE.code, WS_DONE.reason);
      else if (now - sub.openedAt >= this.options.maxConnectionMs)
        ws.close(WS_RECONNECT.code, WS_RECONNECT.reason);
    }
  }

  /**
   * Closes the WebSockets past their longest connection time (the object's alarm calls it) and
   * answers when the next one's is up; null when no socket is left open.
   */
  expire(): number | null {
    const now = Date.now();
    let next: number | null = null;
    for (const [ws, sub] of this.#sockets()) {
      const until = sub.openedAt + this.options.maxConnectionMs;
      if (until <= now) ws.close(WS_RECONNECT.code, WS_RECONNECT.reason);
      else next = Math.min(next ?? until, until);
    }
    return next;
  }

  /** The open WebSockets with their subscriptions (a closing one is neither sent to nor closed again). */
  #sockets(): [WebSocket, StreamSubscription][] {
    return this.ctx.getWebSockets().flatMap((ws) => {
      const sub =
        ws.readyState === WebSocket.OPEN ? (ws.deserializeAttachment() as StreamSubscription | null) : null;
      return sub ? [[ws, sub] as [WebSocket, StreamSubscription]] : [];
    });
  }

  /** A message from a WebSocket client: nothing to read, but past its time it is told to reconnect. */
  message(ws: WebSocket): void {
    const sub = ws.deserializeAttachment() as StreamSubscription | null;
    if (sub && Date.now() - sub.openedAt >= this.options.maxConnectionMs)
      ws.close(WS_RECONNECT.code, WS_RECONNECT.reason);
  }

  /** A WebSocket closed (by either side): its slots are free again. */
  closed(ws: WebSocket): void {
    const sub = ws.deserializeAttachment() as StreamSubscription | null;
    if (sub) this.#release(sub.leases);
    ws.serializeAttachment(null);
  }

  #openSse(sub: StreamSubscription): Response {
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const conn: SseConnection = { sub, writer: writable.getWriter(), timers: [] };
    this.#write(conn, sseRetry(RECONNECT_MS));
    const finished = this.#sseAdd(conn);
    return new Response(readable, {
      headers: {
        // Nothing will follow the replay: clients stop instead of reconnecting (docs/events.md).
        ...(finished ? { [FINISHED_HEADER]: "true" } : {}),
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        // No proxy may hold events back to fill a buffer.
        "x-accel-buffering": "no",
      },
    });
  }

  /** Sends the replay and starts the connection's timers; true when the source is finished (closed). */
  #sseAdd(conn: SseConnection): boolean {
    this.#sse.add(conn);
    this.#sendSse(conn, this.source.since(conn.sub.cursor));
    if (this.source.finished()) {
      this.#closeSse(conn);
      return true;
    }
    conn.timers.push(
      setInterval(() => this.#write(conn, SSE_HEARTBEAT), this.options.heartbeatMs),
      setTimeout(() => this.#closeSse(conn), this.options.maxConnectionMs),
    );
    // The client went away: the readable side was cancelled, so the writer errors.
    conn.writer.closed.catch(() => this.#closeSse(conn));
    return false;
  }

  #sendSse(conn: SseConnection, items: readonly StreamItem[], frames = new FrameCache()): void {
    for (const item of items) {
      if (item.cursor <= conn.sub.cursor) continue;
      conn.sub.cursor = item.cursor;
      const frame = frames.get(item, conn.sub, "sse");
      if (frame) this.#write(conn, frame);
    }
  }

  #write(conn: SseConnection, text: string): void {
    conn.writer.write(encoder.encode(text)).catch(() => this.#closeSse(conn));
  }

  #closeSse(conn: SseConnection): void {
    if (!this.#sse.delete(conn)) return;
    for (const t of conn.timers) clearTimeout(t);
    conn.writer.close().catch(() => {});
    this.#release(conn.sub.leases);
  }

  #openSocket(sub: StreamSubscription): Response {
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    this.ctx.acceptWebSocket(server, [sub.view]);
    server.serializeAttachment(sub);
    this.#sendSocket(server, sub, this.source.since(sub.cursor));
    if (this.source.finished()) server.close(WS_DONE.code, WS_DONE.reason);
    return new Response(null, { status: 101, webSocket: client });
  }

  #sendSocket(
    ws: WebSocket,
    sub: StreamSubscription,
    items: readonly StreamItem[],
    frames = new FrameCache(),
  ): void {
    const start = sub.cursor;
    for (const item of items) {
      if (item.cursor <= sub.cursor) continue;
      sub.cursor = item.cursor;
      const frame = frames.get(item, sub, "ws");
      if (frame) ws.send(frame);
    }
    if (sub.cursor !== start) ws.serializeAttachment(sub);
  }

  #release(leases: ConnectionLease[]): void {
    if (leases.length === 0) return;
    this.ctx.waitUntil(
      this.options
        .release(leases)
        .catch((err) =>
          console.warn(
            JSON.stringify({ level: "warn", msg: "stream slot release failed", error: String(err) }),
          ),
        ),
    );
  }
}

/**
 * Each event framed once per view and wire, however many connections it goes to (a hundred
 * sockets on one order parse and mask its body once, not a hundred times).
 */
class FrameCache {
  readonly #frames = new Map<string, string | null>();

  get(item: StreamItem, sub: StreamSubscription, wire: "sse" | "ws"): string | null {
    const key = `${item.cursor}:${sub.view}:${wire}:${sub.types?.join(",") ?? ""}`;
    let frame = this.#frames.get(key);
    if (frame === undefined) {
      const event = streamEvent(item, sub);
      frame = event && (wire === "sse" ? sseFrame(event) : wsFrame(event));
      this.#frames.set(key, frame);
    }
    return frame;
  }
}

/** The hub's timings (STREAM_* vars) and where its connection slots go back to. */
export function streamHubOptions(env: Env): Omit<StreamHubOptions, "wakeBy"> {
  const config = getConfig(env);
  return {
    heartbeatMs: config.STREAM_HEARTBEAT_SECONDS * 1000,
    maxConnectionMs: config.STREAM_MAX_CONNECTION_SECONDS * 1000,
    release: (leases) => releaseConnections(env, leases),
  };
}
