/** Operator alerts as D1 holds them (migrations 0024, 0047): projected from each order object, or written by a service alert. */
export interface AlertRow {
  order_id: string;
  kind: string;
  /** The ledger key of the send the alert is about, or '' for its owner as a whole. */
  ledger_key: string;
  opened_at: string;
  message: string;
  /** JSON object: what the alert is about (key, attempts, error, …). */
  data: string;
  last_at: string;
  reminders: number;
  cleared_at: string | null;
}

/**
 * Writes an order's alerts as they now are. A cleared alert never reopens and an older state never
 * overwrites a newer one, so a retried or duplicate projection changes nothing. An opening, a
 * reminder or a clearing makes the alert due for routing now (`route_due_at` 0); a quiet sighting
 * does not.
 */
export async function projectAlertRows(db: D1Database, rows: readonly AlertRow[]): Promise<void> {
  await db.batch(
    rows.map((r) =>
      db
        .prepare(
          `INSERT INTO alerts (order_id, kind, ledger_key, opened_at, message, data, last_at, reminders, cleared_at, open, route_due_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)
           ON CONFLICT (order_id, kind, ledger_key, opened_at) DO UPDATE SET message = excluded.message,
             data = excluded.data, last_at = excluded.last_at, reminders = excluded.reminders,
             cleared_at = excluded.cleared_at, open = excluded.open,
             route_due_at = CASE WHEN excluded.reminders <> alerts.reminders OR excluded.cleared_at IS NOT alerts.cleared_at
               THEN 0 ELSE alerts.route_due_at END
           WHERE alerts.cleared_at IS NULL AND excluded.last_at >= alerts.last_at`,
        )
        .bind(
          r.order_id,
          r.kind,
          r.ledger_key,
          r.opened_at,
          r.message,
          r.data,
          r.last_at,
          r.reminders,
          r.cleared_at,
          r.cleared_at === null ? 1 : 0,
        ),
    ),
  );
}

/** Open alerts first, then cleared ones; newest first within each. */
export async function listAlertRows(
  db: D1Database,
  opts: { openOnly: boolean; limit: number },
): Promise<AlertRow[]> {
  const { results } = await db
    .prepare(
      `SELECT order_id, kind, ledger_key, opened_at, message, data, last_at, reminders, cleared_at FROM alerts
       ${opts.openOnly ? "WHERE open = 1" : ""} ORDER BY open DESC, opened_at DESC LIMIT ?`,
    )
    .bind(opts.limit)
    .all<AlertRow>();
  return results;
}

/** The open alert of one subject and kind, if any (a service alert's state: D1 is its only store). */
export async function openAlertRow(db: D1Database, subject: string, kind: string): Promise<AlertRow | null> {
  return db
    .prepare(
      `SELECT order_id, kind, ledger_key, opened_at, message, data, last_at, reminders, cleared_at FROM alerts
       WHERE order_id = ? AND kind = ? AND ledger_key = '' AND cleared_at IS NULL ORDER BY opened_at DESC LIMIT 1`,
    )
    .bind(subject, kind)
    .first<AlertRow>();
}

/** An alert due for routing, with what of it was delivered (migration 0050). */
export interface AlertRouteRow extends AlertRow {
  routed_reminders: number | null;
  routed_cleared: number;
  route_attempts: number;
}

type AlertKey = Pick<AlertRow, "order_id" | "kind" | "ledger_key" | "opened_at">;
const KEY = "order_id = ? AND kind = ? AND ledger_key = ? AND opened_at = ?";
const keyOf = (k: AlertKey) => [k.order_id, k.kind, k.ledger_key, k.opened_at];

/**
 * Takes up to `limit` alerts due for routing at `now`, oldest due first, and holds them until
 * `leaseUntil`: one statement, so two overlapping cron runs never take the same alert.
 */
export async function claimAlertsToRoute(
  db: D1Database,
  now: number,
  leaseUntil: number,
  limit: number,
): Promise<AlertRouteRow[]> {
  const { results } = await db
    .prepare(
      `UPDATE alerts SET route_due_at = ?1 WHERE rowid IN
         (SELECT rowid FROM alerts WHERE route_due_at IS NOT NULL AND route_due_at <= ?2 ORDER BY route_due_at LIMIT ?3)
       RETURNING order_id, kind, ledger_key, opened_at, message, data, last_at, reminders, cleared_at,
         routed_reminders, routed_cleared, route_attempts`,
    )
    .bind(leaseUntil, now, limit)
    .all<AlertRouteRow>();
  return results;
}

/**
 * Keeps what the deliveries of one run told (`routed`, null when none was delivered) and when the
 * alert is due again: `retryAt` after a failure; after success never, or at once when the alert
 * changed since it was claimed (`seen`).
 */
export async function markAlertRouted(
  db: D1Database,
  key: AlertKey,
  seen: Pick<AlertRow, "reminders" | "cleared_at">,
  routed: { reminders: number; cleared: boolean } | null,
  failed: { attempts: number; retryAt: number } | null,
): Promise<void> {
  await db
    .prepare(
      `UPDATE alerts SET routed_reminders = COALESCE(?, routed_reminders), routed_cleared = COALESCE(?, routed_cleared),
         route_attempts = ?, route_due_at = CASE WHEN reminders = ? AND cleared_at IS ? THEN ? ELSE ? END
       WHERE ${KEY}`,
    )
    .bind(
      routed?.reminders ?? null,
      routed ? (routed.cleared ? 1 : 0) : null,
      failed?.attempts ?? 0,
      seen.reminders,
      seen.cleared_at,
      failed?.retryAt ?? null,
      failed?.retryAt ?? 0,
      ...keyOf(key),
    )
    .run();
}
