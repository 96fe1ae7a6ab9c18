// Live order events (docs/events.md): the webhook events of an order, or of a partner's orders,
// as Server-Sent Events or WebSocket frames. The payload is the webhook's own body, built once by
// the order's outbox (src/objects/order/outbox.ts); these functions only frame it.

import { publicOrderStatus } from "./order-status";
import { WEBHOOK_EVENT_TYPE, type WebhookEvent } from "./webhooks";

/** The event types streams carry: the partner's order events (a `type` filter names them). */
export const STREAM_EVENT_TYPES = [WEBHOOK_EVENT_TYPE] as const;

/** Whether an outbox message is a partner event (not, say, a push to Ledger's own webhook). */
export const isStreamEvent = (type: string): boolean =>
  (STREAM_EVENT_TYPES as readonly string[]).includes(type);

/** One event of a stream's source log: its position there, and what a client receives. */
export interface StreamItem {
  /** Increasing in the source log (the order's webhook sequence, or the partner log's row). */
  cursor: number;
  id: string;
  type: string;
  /** The webhook body, JSON on one line. */
  data: string;
}

/** Who reads a stream: the partner (the webhook body) or anyone with the order's link (masked). */
export type StreamView = "partner" | "public";

/** What one connection asked for; kept with a hibernated WebSocket, so plain JSON. */
export interface StreamSubscription {
  view: StreamView;
  /** Event types to send; null: every type. */
  types: string[] | null;
  /** The last position this connection has been sent (or was sent before it reconnected). */
  cursor: number;
  openedAt: number;
  /** The connection slots it holds (src/objects/rate-limiter.ts), given back when it closes. */
  leases: ConnectionLease[];
}

export interface ConnectionLease {
  bucket: string;
  id: string;
}

/** A stream event as the client receives it, or null when this connection does not want it. */
export function streamEvent(
  item: StreamItem,
  sub: Pick<StreamSubscription, "view" | "types">,
): { id: string; type: string; data: string } | null {
  if (sub.types && !sub.types.includes(item.type)) return null;
  if (sub.view === "partner") return item;
  // The keyless reader gets the status API's fields of the order after the change, nothing else.
  const event = JSON.parse(item.data) as WebhookEvent;
  return { id: item.id, type: item.type, data: JSON.stringify(publicOrderStatus(event.data.order)) };
}

/** One Server-Sent Event (the data is one line of JSON, so one `data:` line). */
export const sseFrame = (e: { id: string; type: string; data: string }): string =>
  `id: ${e.id}\nevent: ${e.type}\ndata: ${e.data}\n\n`;

/** One WebSocket text frame: the same three fields as the SSE event, the data as JSON. */
export const wsFrame = (e: { id: string; type: string; data: string }): string =>
  `{"id":${JSON.stringify(e.id)},"event":${JSON.stringify(e.type)},"data":${e.data}}`;

/** On a stream's answer when nothing will follow what it sends (a finished order): clients stop. */
export const FINISHED_HEADER = "x-stream-finished";

/** An SSE comment: clients ignore it, proxies see bytes and keep the connection open. */
export const SSE_HEARTBEAT = ": heartbeat\n\n";

/** The first bytes of a stream: how long EventSource waits before it reconnects. */
export const sseRetry = (ms: number): string => `retry: ${ms}\n\n`;

/** The WebSocket close a client answers by reconnecting with its last event id. */
export const WS_RECONNECT = { code: 4000, reason: "reconnect with last_event_id" } as const;
/** The WebSocket close after a finished order's last event. */
export const WS_DONE = { code: 1000, reason: "order finished" } as const;

/** Event ids are the webhook's: `evt_` and 32 hex digits. */
export const EVENT_ID_RE = /^evt_[0-9a-f]{32}$/;

/**
 * Where a client resumes: the `Last-Event-ID` header EventSource sends on reconnect, else the
 * `last_event_id` query parameter (WebSockets and first connections cannot send headers).
 */
export const lastEventId = (header: string | undefined, query: string | undefined): string | null =>
  header?.trim() || query?.trim() || null;

/** Open connections of one bucket: lease id → when it lapses (a stream's longest life). */
export type ConnectionSlots = Record<string, number>;

/**
 * Takes one of `limit` slots until `now + ttlMs`, dropping lapsed ones first (a connection whose
 * close was never reported frees its slot when its longest life is over). Refused: the time the
 * next slot frees up.
 */
export function takeConnectionSlot(
  slots: ConnectionSlots,
  limit: number,
  now: number,
  ttlMs: number,
  id: string,
): { ok: true; slots: ConnectionSlots } | { ok: false; slots: ConnectionSlots; retryAt: number } {
  const live = Object.fromEntries(Object.entries(slots).filter(([, until]) => until > now));
  const held = Object.values(live);
  if (held.length >= limit) return { ok: false, slots: live, retryAt: Math.min(...held) };
  return { ok: true, slots: { ...live, [id]: now + ttlMs } };
}

/** The partner's event log and stream of one mode (src/objects/partner-events.ts). */
export const partnerEventsName = (partnerId: string, mode: "live" | "test" | undefined): string =>
  `${partnerId}:${mode ?? "live"}`;

/** What the Worker asks of the object that holds a stream (never seen by clients). */
export interface StreamOpen {
  view: StreamView;
  types: string[] | null;
  lastEventId: string | null;
  leases: ConnectionLease[];
  websocket: boolean;
}

const STREAM_ORIGIN = "https://stream.internal/";

/** The request that opens a stream on its object: a WebSocket upgrade goes to the object as one. */
export function streamOpenRequest(open: StreamOpen): Request {
  const url = new URL(STREAM_ORIGIN);
  url.searchParams.set("view", open.view);
  if (open.types) url.searchParams.set("types", open.types.join(","));
  if (open.lastEventId) url.searchParams.set("last_event_id", open.lastEventId);
  url.searchParams.set("leases", JSON.stringify(open.leases));
  return new Request(url, { headers: open.websocket ? { upgrade: "websocket" } : {} });
}

export function parseStreamOpen(request: Request): StreamOpen {
  const q = new URL(request.url).searchParams;
  const types = q.get("types");
  return {
    view: q.get("view") === "public" ? "public" : "partner",
    types: types ? types.split(",") : null,
    lastEventId: q.get("last_event_id"),
    leases: JSON.parse(q.get("leases") ?? "[]") as ConnectionLease[],
    websocket: request.headers.get("upgrade")?.toLowerCase() === "websocket",
  };
}
