import { type AlertNotice, type AlertState, alertLogLine, clearAlert, raiseAlert } from "../../domain/alerts";
import { type AlertRow, projectAlertRows } from "../../storage/alerts";
import type { LazyTable } from "./lazy-table";

export const ALERTS_TABLE = `CREATE TABLE alerts (
  kind TEXT NOT NULL,
  opened_at INTEGER NOT NULL,
  message TEXT NOT NULL,
  data TEXT NOT NULL,
  last_at INTEGER NOT NULL,
  reminders INTEGER NOT NULL,
  next_reminder_at INTEGER NOT NULL,
  cleared_at INTEGER,
  projected INTEGER NOT NULL,
  PRIMARY KEY (kind, opened_at)
)`;

type Stored = {
  kind: string;
  opened_at: number;
  message: string;
  data: string;
  last_at: number;
  reminders: number;
  next_reminder_at: number;
  cleared_at: number | null;
};

const stateOf = (row: Stored): AlertState => ({
  kind: row.kind,
  message: row.message,
  data: JSON.parse(row.data) as Record<string, unknown>,
  openedAt: row.opened_at,
  lastAt: row.last_at,
  reminders: row.reminders,
  nextReminderAt: row.next_reminder_at,
  clearedAt: row.cleared_at,
});

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The order's operator alerts (table `alerts`, made by the order's first alert; src/domain/alerts.ts): written beside the step that
 * saw the problem, with no await between, and projected to D1 (`GET /admin/v1/alerts`) by the
 * alarm's outbox step like the index row: a row stays unprojected until D1 has it.
 */
export class OrderAlerts {
  constructor(private readonly table: LazyTable) {}

  /** The problem `kind` is seen now: one line when it opens and on each reminder, none otherwise. */
  raise(orderId: string, kind: string, message: string, data: Record<string, unknown>, now: number): void {
    const { state, notice } = raiseAlert(this.#open(kind), kind, message, data, now);
    this.#write(state, notice !== null);
    this.#say(orderId, state, notice);
  }

  /** The problem `kind` has ended: its open alert clears, with one line. */
  clear(orderId: string, kind: string, now: number): void {
    const state = clearAlert(this.#open(kind), now);
    if (!state) return;
    this.#write(state, true);
    this.#say(orderId, state, "cleared");
  }

  /** Every open alert clears (the order's money is settled). */
  clearAll(orderId: string, now: number): void {
    for (const a of this.open()) this.clear(orderId, a.kind, now);
  }

  open(): AlertState[] {
    return this.table
      .rows<Stored>("SELECT * FROM alerts WHERE cleared_at IS NULL ORDER BY opened_at")
      .map(stateOf);
  }

  pending(): boolean {
    return this.table.rows("SELECT 1 FROM alerts WHERE projected = 0 LIMIT 1").length > 0;
  }

  /** Writes the alerts D1 does not have yet; a failure is logged and left for the next run. */
  async project(db: D1Database, orderId: string): Promise<void> {
    const rows = this.table.rows<Stored>("SELECT * FROM alerts WHERE projected = 0");
    if (rows.length === 0) return;
    const out: AlertRow[] = rows.map((r) => ({
      order_id: orderId,
      kind: r.kind,
      opened_at: iso(r.opened_at),
      message: r.message,
      data: r.data,
      last_at: iso(r.last_at),
      reminders: r.reminders,
      cleared_at: r.cleared_at === null ? null : iso(r.cleared_at),
    }));
    try {
      await projectAlertRows(db, out);
      // Only the rows as written: one changed meanwhile stays for the next run.
      for (const r of rows)
        this.table.write(
          "UPDATE alerts SET projected = 1 WHERE kind = ? AND opened_at = ? AND last_at = ? AND reminders = ? AND cleared_at IS ?",
          r.kind,
          r.opened_at,
          r.last_at,
          r.reminders,
          r.cleared_at,
        );
    } catch (err) {
      console.error(
        JSON.stringify({
          level: "warn",
          order: orderId,
          msg: "alert projection failed; will retry",
          error: String(err),
        }),
      );
    }
  }

  #open(kind: string): AlertState | null {
    const row = this.table.rows<Stored>(
      "SELECT * FROM alerts WHERE kind = ? AND cleared_at IS NULL",
      kind,
    )[0];
    return row ? stateOf(row) : null;
  }

  /** A row D1 must learn of (opened, reminded, cleared) is marked unprojected; a quiet sighting is not. */
  #write(a: AlertState, project: boolean): void {
    this.table.write(
      `INSERT INTO alerts (kind, opened_at, message, data, last_at, reminders, next_reminder_at, cleared_at, projected)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (kind, opened_at) DO UPDATE SET message = excluded.message, data = excluded.data,
         last_at = excluded.last_at, reminders = excluded.reminders,
         next_reminder_at = excluded.next_reminder_at, cleared_at = excluded.cleared_at,
         projected = MIN(alerts.projected, excluded.projected)`,
      a.kind,
      a.openedAt,
      a.message,
      JSON.stringify(a.data),
      a.lastAt,
      a.reminders,
      a.nextReminderAt,
      a.clearedAt,
      project ? 0 : 1,
    );
  }

  #say(orderId: string, a: AlertState, notice: AlertNotice): void {
    if (notice === null) return;
    const { level, line } = alertLogLine({ order: orderId }, a, notice);
    (level === "info" ? console.log : console.error)(JSON.stringify(line));
  }
}
