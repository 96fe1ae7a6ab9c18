import type { KeysetPosition } from "../domain/keyset-cursor";
import type { DeliveryStatus, WebhookMode } from "../domain/webhooks";

// ---- endpoints --------------------------------------------------------------------------------

export interface EndpointRow {
  partner_id: string;
  mode: WebhookMode;
  url: string | null;
  enabled: number;
  secret: string | null;
  previous_secret: string | null;
  previous_secret_until: string | null;
  created_at: string;
  updated_at: string;
}

const ENDPOINT_COLUMNS =
  "partner_id, mode, url, enabled, secret, previous_secret, previous_secret_until, created_at, updated_at";

export async function getEndpoint(
  db: D1Database,
  partnerId: string,
  mode: WebhookMode,
): Promise<EndpointRow | null> {
  return db
    .prepare(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE partner_id = ? AND mode = ?`)
    .bind(partnerId, mode)
    .first<EndpointRow>();
}

/** Sets URL and/or enabled, creating the endpoint on first use. */
export async function upsertEndpoint(
  db: D1Database,
  partnerId: string,
  mode: WebhookMode,
  changes: { url?: string | null; enabled?: boolean },
  now: string,
): Promise<EndpointRow> {
  const url = changes.url === undefined ? null : changes.url;
  const enabled = changes.enabled === undefined ? null : changes.enabled ? 1 : 0;
  const row = await db
    .prepare(
      `INSERT INTO webhook_endpoints (partner_id, mode, url, enabled, created_at, updated_at)
       VALUES (?1, ?2, ?3, COALESCE(?4, 1), ?5, ?5)
       ON CONFLICT (partner_id, mode) DO UPDATE SET
         url = CASE WHEN ?6 THEN excluded.url ELSE url END,
         enabled = COALESCE(?4, enabled),
         updated_at = ?5
       RETURNING ${ENDPOINT_COLUMNS}`,
    )
    .bind(partnerId, mode, url, enabled, now, changes.url === undefined ? 0 : 1)
    .first<EndpointRow>();
  if (!row) throw new Error("webhook endpoint upsert returned nothing");
  return row;
}

/**
 * Replaces the signing secret. With `previousUntil`, the old secret keeps signing until then;
 * without, it stops at once (and any earlier overlap ends too).
 */
export async function replaceEndpointSecret(
  db: D1Database,
  partnerId: string,
  mode: WebhookMode,
  secret: string,
  previousUntil: string | null,
  now: string,
): Promise<EndpointRow> {
  const row = await db
    .prepare(
      `INSERT INTO webhook_endpoints (partner_id, mode, url, enabled, secret, created_at, updated_at)
       VALUES (?1, ?2, NULL, 1, ?3, ?5, ?5)
       ON CONFLICT (partner_id, mode) DO UPDATE SET
         previous_secret = CASE WHEN ?4 IS NULL THEN NULL ELSE secret END,
         previous_secret_until = ?4,
         secret = excluded.secret,
         updated_at = ?5
       RETURNING ${ENDPOINT_COLUMNS}`,
    )
    .bind(partnerId, mode, secret, previousUntil, now)
    .first<EndpointRow>();
  if (!row) throw new Error("webhook secret upsert returned nothing");
  return row;
}

// ---- deliveries -------------------------------------------------------------------------------

export interface DeliveryRow {
  event_id: string;
  partner_id: string;
  mode: WebhookMode;
  order_id: string | null;
  sequence: number;
  type: string;
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_retry_at: string | null;
  window_start: string;
  created_at: string;
  delivered_at: string | null;
}

const COLUMNS =
  "event_id, partner_id, mode, order_id, sequence, type, payload, status, attempts, last_status_code, last_error, next_retry_at, window_start, created_at, delivered_at";

export interface NewDelivery {
  event_id: string;
  partner_id: string;
  mode: WebhookMode;
  order_id: string | null;
  sequence: number;
  type: string;
  created_at: string;
  body: string;
}

/** The delivery row of an event, created on first sight (a redelivered message finds it). */
export async function deliveryFor(db: D1Database, m: NewDelivery, now: string): Promise<DeliveryRow> {
  const row = await db
    .prepare(
      `INSERT INTO webhook_deliveries (event_id, partner_id, mode, order_id, sequence, type, payload, status, attempts, window_start, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)
       ON CONFLICT (event_id) DO UPDATE SET event_id = excluded.event_id
       RETURNING ${COLUMNS}`,
    )
    .bind(m.event_id, m.partner_id, m.mode, m.order_id, m.sequence, m.type, m.body, now, m.created_at)
    .first<DeliveryRow>();
  if (!row) throw new Error(`no delivery row for ${m.event_id}`);
  return row;
}

export type AttemptTrigger = "automatic" | "resend" | "test";

export interface AttemptRow {
  id: number;
  event_id: string;
  attempted_at: string;
  trigger: AttemptTrigger;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  /** JSON object of the headers we sent, the signature redacted; null: nothing was sent. */
  request_headers: string | null;
  /** The receiver's body, its first RESPONSE_BODY_LIMIT bytes; null: no answer. */
  response_body: string | null;
  /** 1 when the body was longer than what is kept. */
  response_truncated: number;
}

const ATTEMPT_COLUMNS =
  "event_id, attempted_at, trigger, status_code, error, duration_ms, request_headers, response_body, response_truncated";

/** What an attempt leaves on the delivery: its new status and, for `pending`, when to retry. */
export interface DeliveryUpdate {
  status: DeliveryStatus;
  nextRetryAt?: string | null;
  deliveredAt?: string | null;
}

/**
 * Records one outcome: the delivery's new state and, when an HTTP attempt was made (or refused at
 * the URL check), the attempt row — in one batch, so the log never shows one without the other.
 */
export async function recordAttempt(
  db: D1Database,
  eventId: string,
  update: DeliveryUpdate,
  attempt: Omit<AttemptRow, "id" | "event_id"> | null,
  skipReason: string | null = null,
): Promise<void> {
  const statements = [
    db
      .prepare(
        `UPDATE webhook_deliveries
            SET status = ?, attempts = attempts + ?, last_status_code = COALESCE(?, last_status_code),
                last_error = ?, next_retry_at = ?, delivered_at = COALESCE(?, delivered_at)
          WHERE event_id = ?`,
      )
      .bind(
        update.status,
        attempt ? 1 : 0,
        attempt?.status_code ?? null,
        attempt?.error ?? skipReason,
        update.nextRetryAt ?? null,
        update.deliveredAt ?? null,
        eventId,
      ),
  ];
  if (attempt)
    statements.push(
      db
        .prepare(`INSERT INTO webhook_attempts (${ATTEMPT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
        .bind(
          eventId,
          attempt.attempted_at,
          attempt.trigger,
          attempt.status_code,
          attempt.error,
          attempt.duration_ms,
          attempt.request_headers,
          attempt.response_body,
          attempt.response_truncated,
        ),
    );
  await db.batch(statements);
}

export interface DeliveryFilter {
  partnerId: string;
  /** Absent: every mode (the operator's log). */
  mode?: WebhookMode | undefined;
  status?: DeliveryStatus | undefined;
  type?: string | undefined;
  orderId?: string | undefined;
  after?: KeysetPosition | undefined;
  limit: number;
}

/** Newest first, keyset-paged on (created_at, event_id). */
export async function listDeliveries(db: D1Database, f: DeliveryFilter): Promise<DeliveryRow[]> {
  const conditions: [string, unknown[]][] = [["partner_id = ?", [f.partnerId]]];
  if (f.mode) conditions.push(["mode = ?", [f.mode]]);
  if (f.status) conditions.push(["status = ?", [f.status]]);
  if (f.type) conditions.push(["type = ?", [f.type]]);
  if (f.orderId) conditions.push(["order_id = ?", [f.orderId]]);
  if (f.after) conditions.push(["(created_at, event_id) < (?, ?)", [f.after.createdAt, f.after.id]]);
  const where = conditions.map(([sql]) => sql);
  const args = conditions.flatMap(([, a]) => a);
  const { results } = await db
    .prepare(
      `SELECT ${COLUMNS} FROM webhook_deliveries WHERE ${where.join(" AND ")}
        ORDER BY created_at DESC, event_id DESC LIMIT ?`,
    )
    .bind(...args, f.limit)
    .all<DeliveryRow>();
  return results;
}

export async function getDelivery(
  db: D1Database,
  partnerId: string,
  mode: WebhookMode,
  eventId: string,
): Promise<DeliveryRow | null> {
  return db
    .prepare(`SELECT ${COLUMNS} FROM webhook_deliveries WHERE partner_id = ? AND mode = ? AND event_id = ?`)
    .bind(partnerId, mode, eventId)
    .first<DeliveryRow>();
}

/** The attempts of some deliveries, oldest first per event. */
export async function attemptsOf(db: D1Database, eventIds: readonly string[]): Promise<AttemptRow[]> {
  if (eventIds.length === 0) return [];
  const { results } = await db
    .prepare(
      `SELECT id, ${ATTEMPT_COLUMNS} FROM webhook_attempts
        WHERE event_id IN (SELECT value FROM json_each(?)) ORDER BY event_id, id`,
    )
    .bind(JSON.stringify(eventIds))
    .all<AttemptRow>();
  return results;
}

/** Puts a delivery back in line (manual retry): pending, with a fresh 3-day window. */
export async function resetDelivery(
  db: D1Database,
  partnerId: string,
  eventId: string,
  now: string,
): Promise<DeliveryRow | null> {
  return db
    .prepare(
      `UPDATE webhook_deliveries SET status = 'pending', next_retry_at = NULL, window_start = ?
        WHERE partner_id = ? AND event_id = ? RETURNING ${COLUMNS}`,
    )
    .bind(now, partnerId, eventId)
    .first<DeliveryRow>();
}

/** Rows each purge statement removes at most; the cron runs every minute, so a backlog drains. */
const PURGE_BATCH = 500;

/**
 * Removes webhook history from before `before` (ISO): deliveries that are final and attempts. A
 * delivery still pending (an operator's retry of an old event) keeps itself and its attempts.
 */
export async function purgeWebhookHistory(
  db: D1Database,
  before: string,
): Promise<{ deliveries: number; attempts: number }> {
  const [attempts, deliveries] = await db.batch([
    db
      .prepare(
        `DELETE FROM webhook_attempts WHERE id IN
           (SELECT id FROM webhook_attempts WHERE attempted_at < ?
              AND event_id NOT IN (SELECT event_id FROM webhook_deliveries WHERE status = 'pending')
             ORDER BY attempted_at LIMIT ?)`,
      )
      .bind(before, PURGE_BATCH),
    db
      .prepare(
        `DELETE FROM webhook_deliveries WHERE event_id IN
           (SELECT event_id FROM webhook_deliveries WHERE created_at < ? AND status != 'pending'
             ORDER BY created_at LIMIT ?)`,
      )
      .bind(before, PURGE_BATCH),
  ]);
  return { attempts: attempts?.meta.changes ?? 0, deliveries: deliveries?.meta.changes ?? 0 };
}
