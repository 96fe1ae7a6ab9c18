import type { WebhookMessage } from "../domain/webhooks";

export interface DeliveryRow {
  event_id: string;
  partner_id: string;
  order_id: string;
  sequence: number;
  type: string;
  payload: string;
  status: "pending" | "delivered" | "failed" | "skipped";
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_retry_at: string | null;
  window_start: string;
  created_at: string;
  delivered_at: string | null;
}

const COLUMNS =
  "event_id, partner_id, order_id, sequence, type, payload, status, attempts, last_status_code, last_error, next_retry_at, window_start, created_at, delivered_at";

/** The delivery row of a message, created on first sight (a redelivered message finds it). */
export async function deliveryFor(db: D1Database, m: WebhookMessage, now: string): Promise<DeliveryRow> {
  const row = await db
    .prepare(
      `INSERT INTO webhook_deliveries (event_id, partner_id, order_id, sequence, type, payload, status, attempts, window_start, created_at)
       VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)
       ON CONFLICT (event_id) DO UPDATE SET event_id = excluded.event_id
       RETURNING ${COLUMNS}`,
    )
    .bind(m.event_id, m.partner_id, m.order_id, m.sequence, m.type, m.body, now, m.created_at)
    .first<DeliveryRow>();
  if (!row) throw new Error(`no delivery row for ${m.event_id}`);
  return row;
}

export type DeliveryOutcome =
  | { status: "delivered"; code: number; at: string }
  | { status: "pending"; code: number | null; error: string; nextRetryAt: string }
  | { status: "failed"; code: number | null; error: string }
  | { status: "skipped"; error: string };

export async function recordAttempt(
  db: D1Database,
  eventId: string,
  o: DeliveryOutcome,
  attempted: boolean,
): Promise<void> {
  const code = "code" in o ? o.code : null;
  const error = "error" in o ? o.error : null;
  await db
    .prepare(
      `UPDATE webhook_deliveries
          SET status = ?, attempts = attempts + ?, last_status_code = COALESCE(?, last_status_code), last_error = ?,
              next_retry_at = ?, delivered_at = ?
        WHERE event_id = ?`,
    )
    .bind(
      o.status,
      attempted ? 1 : 0,
      code,
      error,
      o.status === "pending" ? o.nextRetryAt : null,
      o.status === "delivered" ? o.at : null,
      eventId,
    )
    .run();
}

export async function listDeliveries(
  db: D1Database,
  partnerId: string,
  limit: number,
): Promise<DeliveryRow[]> {
  const { results } = await db
    .prepare(
      `SELECT ${COLUMNS} FROM webhook_deliveries WHERE partner_id = ? ORDER BY created_at DESC, event_id DESC LIMIT ?`,
    )
    .bind(partnerId, limit)
    .all<DeliveryRow>();
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

export async function webhookTarget(
  db: D1Database,
  partnerId: string,
): Promise<{ url: string; secret: string } | null> {
  const row = await db
    .prepare("SELECT webhook_url, webhook_secret FROM partners WHERE id = ?")
    .bind(partnerId)
    .first<{ webhook_url: string | null; webhook_secret: string | null }>();
  return row?.webhook_url && row.webhook_secret ? { url: row.webhook_url, secret: row.webhook_secret } : null;
}
