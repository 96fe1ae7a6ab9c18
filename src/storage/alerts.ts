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
 * overwrites a newer one, so a retried or duplicate projection changes nothing.
 */
export async function projectAlertRows(db: D1Database, rows: readonly AlertRow[]): Promise<void> {
  await db.batch(
    rows.map((r) =>
      db
        .prepare(
          `INSERT INTO alerts (order_id, kind, ledger_key, opened_at, message, data, last_at, reminders, cleared_at, open)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (order_id, kind, ledger_key, opened_at) DO UPDATE SET message = excluded.message,
             data = excluded.data, last_at = excluded.last_at, reminders = excluded.reminders,
             cleared_at = excluded.cleared_at, open = excluded.open
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
