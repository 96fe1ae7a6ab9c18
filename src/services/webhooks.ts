// A partner's webhook endpoint and delivery log: one implementation behind the partner API, the
// cabinet and the operator's /admin/v1 routes. Every change is written to the cabinet audit log.
import { base64urlnopad } from "@scure/base";
import { csvStream } from "../domain/csv";
import { DomainError } from "../domain/errors";
import { decodeCursor, pageOf } from "../domain/keyset-cursor";
import { LEDGER_STATUS_EVENT_TYPE } from "../domain/ledger-swap";
import {
  type DeliveryStatus,
  MAX_SECRET_OVERLAP_S,
  newEventId,
  PING_EVENT_TYPE,
  pingEvent,
  type WebhookMode,
} from "../domain/webhooks";
import {
  type AttemptRow,
  attemptsOf,
  type DeliveryRow,
  deliveryFor,
  type EndpointRow,
  getDelivery,
  getEndpoint,
  listDeliveries,
  recordAttempt,
  replaceEndpointSecret,
  upsertEndpoint,
} from "../storage/webhooks";
import { type Actor, audit } from "./cabinet-auth";
import {
  type Attempt,
  attemptDelivery,
  attemptLedger,
  type DeliveryOptions,
  endpointUnusable,
} from "./webhook-delivery";

/** Whose endpoint: a partner in one mode (the mode of the API key, live in the cabinet for now). */
export interface WebhookScope {
  partnerId: string;
  mode: WebhookMode;
}

export interface EndpointView {
  url: string | null;
  enabled: boolean;
  secret_set: boolean;
  /** While a rotation overlaps: until when the previous secret still signs. */
  previous_secret_expires_at: string | null;
  created_at: string | null;
  updated_at: string | null;
}

function endpointView(e: EndpointRow | null, now: number): EndpointView {
  const overlap =
    e?.previous_secret_until && Date.parse(e.previous_secret_until) > now ? e.previous_secret_until : null;
  return {
    url: e?.url ?? null,
    enabled: e ? e.enabled === 1 : false,
    secret_set: Boolean(e?.secret),
    previous_secret_expires_at: overlap,
    created_at: e?.created_at ?? null,
    updated_at: e?.updated_at ?? null,
  };
}

export async function webhookEndpoint(db: D1Database, scope: WebhookScope): Promise<EndpointView> {
  return endpointView(await getEndpoint(db, scope.partnerId, scope.mode), Date.now());
}

/** Sets the URL (already checked against the URL rules; null: none) and/or the enabled switch. */
export async function configureWebhook(
  db: D1Database,
  actor: Actor,
  scope: WebhookScope,
  changes: { url?: string | null; enabled?: boolean },
): Promise<EndpointView> {
  const before = endpointView(await getEndpoint(db, scope.partnerId, scope.mode), Date.now());
  const row = await upsertEndpoint(db, scope.partnerId, scope.mode, changes, new Date().toISOString());
  const after = endpointView(row, Date.now());
  const detail: Record<string, unknown> = { mode: scope.mode };
  if (before.url !== after.url) detail.url = { from: before.url, to: after.url };
  if (before.enabled !== after.enabled) detail.enabled = { from: before.enabled, to: after.enabled };
  if (Object.keys(detail).length > 1) await audit(db, actor, "webhook.updated", after.url, detail);
  return after;
}

/**
 * Issues a new signing secret (≥ 32 random bytes), shown once. With an overlap (at most 24 h) the
 * previous secret keeps signing beside it, so receivers can switch without dropping events.
 */
export async function rotateWebhookSecret(
  db: D1Database,
  actor: Actor,
  scope: WebhookScope,
  overlapSeconds: number,
): Promise<{ secret: string; endpoint: EndpointView }> {
  if (!Number.isInteger(overlapSeconds) || overlapSeconds < 0 || overlapSeconds > MAX_SECRET_OVERLAP_S)
    throw new DomainError("invalid_overlap", `overlap_seconds must be 0–${MAX_SECRET_OVERLAP_S}.`);
  const now = Date.now();
  const secret = `whsec_${base64urlnopad.encode(crypto.getRandomValues(new Uint8Array(32)))}`;
  const current = await getEndpoint(db, scope.partnerId, scope.mode);
  const until =
    overlapSeconds > 0 && current?.secret ? new Date(now + overlapSeconds * 1000).toISOString() : null;
  const row = await replaceEndpointSecret(
    db,
    scope.partnerId,
    scope.mode,
    secret,
    until,
    new Date(now).toISOString(),
  );
  await audit(db, actor, "webhook.secret_rotated", row.url, {
    mode: scope.mode,
    overlap_seconds: until ? overlapSeconds : 0,
  });
  return { secret, endpoint: endpointView(row, now) };
}

export interface AttemptView {
  attempted_at: string;
  trigger: AttemptRow["trigger"];
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  /** The headers we sent, the signature cut after 8 characters; null before they were recorded. */
  request_headers: Record<string, string> | null;
  /** The receiver's answer, its first 2 KB; null: no answer (or before it was recorded). */
  response_body: string | null;
  response_body_truncated: boolean;
}

function attemptView(a: AttemptRow): AttemptView {
  return {
    attempted_at: a.attempted_at,
    trigger: a.trigger,
    status_code: a.status_code,
    error: a.error,
    duration_ms: a.duration_ms,
    request_headers: a.request_headers ? (JSON.parse(a.request_headers) as Record<string, string>) : null,
    response_body: a.response_body,
    response_body_truncated: a.response_truncated === 1,
  };
}

export interface DeliveryView {
  event_id: string;
  type: string;
  order_id: string | null;
  sequence: number;
  status: DeliveryStatus;
  created_at: string;
  delivered_at: string | null;
  next_retry_at: string | null;
  last_error: string | null;
  attempts: AttemptView[];
  /** The exact body delivered (and signed). */
  payload: string;
}

async function withAttempts(db: D1Database, rows: readonly DeliveryRow[]): Promise<DeliveryView[]> {
  const byEvent = new Map<string, AttemptView[]>();
  for (const a of await attemptsOf(
    db,
    rows.map((r) => r.event_id),
  )) {
    const list = byEvent.get(a.event_id) ?? [];
    list.push(attemptView(a));
    byEvent.set(a.event_id, list);
  }
  return rows.map((r) => ({
    event_id: r.event_id,
    type: r.type,
    order_id: r.order_id,
    sequence: r.sequence,
    status: r.status,
    created_at: r.created_at,
    delivered_at: r.delivered_at,
    next_retry_at: r.next_retry_at,
    last_error: r.last_error,
    attempts: byEvent.get(r.event_id) ?? [],
    payload: r.payload,
  }));
}

const EVENT_ID = /^evt_[0-9a-f]{32}$/;

/** What the log is filtered by (the cabinet's event browser and the API's query). */
export interface DeliveryFilterQuery {
  status?: DeliveryStatus | undefined;
  /** An event type: `order.status_changed`, `ping`. */
  type?: string | undefined;
  /** The order's UUID (a short id is turned into it by the caller: `parseOrderRef`). */
  orderId?: string | undefined;
}

export interface DeliveryQuery extends DeliveryFilterQuery {
  cursor?: string | undefined;
  limit: number;
}

/** One page of the delivery log, newest first, each event with all its attempts. */
export async function deliveryPage(
  db: D1Database,
  scope: WebhookScope,
  q: DeliveryQuery,
): Promise<{ data: DeliveryView[]; next_cursor: string | null }> {
  const rows = await listDeliveries(db, {
    partnerId: scope.partnerId,
    mode: scope.mode,
    status: q.status,
    type: q.type,
    orderId: q.orderId,
    after: q.cursor ? decodeCursor(q.cursor, (id) => EVENT_ID.test(id)) : undefined,
    limit: q.limit + 1,
  });
  const { page, next_cursor } = pageOf(rows, q.limit, (r) => ({ createdAt: r.created_at, id: r.event_id }));
  return { data: await withAttempts(db, page), next_cursor };
}

const EXPORT_BATCH = 500;

/** The columns of the event browser's CSV export (docs/cabinet.md, "Webhooks"). */
const CSV_COLUMNS = [
  "created_at",
  "event_id",
  "type",
  "order_id",
  "sequence",
  "status",
  "attempts",
  "last_status_code",
  "last_error",
  "delivered_at",
  "next_retry_at",
  "payload",
] as const satisfies readonly (keyof DeliveryRow)[];

/** Every event the filter matches, newest first, as CSV streamed in keyset batches. */
export function deliveriesCsv(
  db: D1Database,
  scope: WebhookScope,
  filter: DeliveryFilterQuery,
): ReadableStream<Uint8Array> {
  return csvStream<DeliveryRow>(
    CSV_COLUMNS,
    EXPORT_BATCH,
    (last) =>
      listDeliveries(db, {
        partnerId: scope.partnerId,
        mode: scope.mode,
        ...filter,
        after: last && { createdAt: last.created_at, id: last.event_id },
        limit: EXPORT_BATCH,
      }),
    (r) => CSV_COLUMNS.map((c) => r[c]),
  );
}

async function usableEndpoint(db: D1Database, scope: WebhookScope): Promise<EndpointRow & { url: string }> {
  const endpoint = await getEndpoint(db, scope.partnerId, scope.mode);
  const unusable = endpointUnusable(endpoint);
  if (unusable !== null || !endpoint?.url)
    throw new DomainError("webhook_not_configured", `Cannot send: ${unusable ?? "no endpoint"}.`);
  return { ...endpoint, url: endpoint.url };
}

/**
 * One attempt now, outside the retry schedule, recorded like every other. Success delivers the
 * event; a failed resend leaves a pending event on its schedule and a given-up one failed.
 */
async function attemptNow(
  db: D1Database,
  delivery: DeliveryRow,
  attempted: Attempt & { ok: boolean },
): Promise<DeliveryView> {
  const { ok, ...attempt } = attempted;
  const status: DeliveryStatus = ok ? "delivered" : delivery.status === "pending" ? "pending" : "failed";
  await recordAttempt(
    db,
    delivery.event_id,
    {
      status,
      nextRetryAt: status === "pending" ? delivery.next_retry_at : null,
      deliveredAt: ok ? attempt.attempted_at : null,
    },
    attempt,
  );
  const fresh = await getDelivery(db, delivery.partner_id, delivery.mode, delivery.event_id);
  const [view] = await withAttempts(db, fresh ? [fresh] : []);
  if (!view) throw new Error(`delivery ${delivery.event_id} vanished`);
  return view;
}

/**
 * Resend: a new attempt now, the same body and event id, a fresh signature. A push to Ledger's
 * status webhook goes where it went the first time, Ledger's endpoint: never the partner's own.
 */
export async function resendDelivery(
  db: D1Database,
  options: DeliveryOptions,
  actor: Actor,
  scope: WebhookScope,
  eventId: string,
): Promise<DeliveryView> {
  const delivery = EVENT_ID.test(eventId)
    ? await getDelivery(db, scope.partnerId, scope.mode, eventId)
    : null;
  if (!delivery) throw new DomainError("event_not_found", "No such webhook event.");
  const attempt =
    delivery.type === LEDGER_STATUS_EVENT_TYPE
      ? await attemptLedger(db, delivery, "resend", options)
      : await attemptDelivery(await usableEndpoint(db, scope), delivery, "resend", options);
  if (typeof attempt === "string")
    throw new DomainError("webhook_not_configured", `Cannot send: ${attempt}.`);
  await audit(db, actor, "webhook.resent", eventId, { mode: scope.mode });
  return attemptNow(db, delivery, attempt);
}

/** A `ping` event, signed and recorded like the others, sent once now (no automatic retries). */
export async function sendTestEvent(
  db: D1Database,
  options: DeliveryOptions,
  actor: Actor,
  scope: WebhookScope,
): Promise<DeliveryView> {
  const endpoint = await usableEndpoint(db, scope);
  const id = newEventId();
  const now = new Date().toISOString();
  const delivery = await deliveryFor(
    db,
    {
      event_id: id,
      partner_id: scope.partnerId,
      mode: scope.mode,
      order_id: null,
      sequence: 0,
      type: PING_EVENT_TYPE,
      created_at: now,
      body: pingEvent(id, now),
    },
    now,
  );
  await audit(db, actor, "webhook.test_sent", id, { mode: scope.mode });
  // A test that fails is not retried: it is `failed` until resent.
  return attemptNow(
    db,
    { ...delivery, status: "failed" },
    await attemptDelivery(endpoint, delivery, "test", options),
  );
}
