import { type AlertNotice, type AlertState, alertLogLine, clearAlert, raiseAlert } from "../../domain/alerts";
import { type AlertRow, projectAlertRows } from "../../storage/alerts";
import type { LazyTable } from "./lazy-table";

/**
 * `ledger_key`: what the alert is about within its owner, the ledger key of a send
 * (src/domain/ledger-keys.ts), or '' for the order as a whole, so the alerts of two sends (two extra deposits' refunds, two
 * statements' payouts) never share a row.
 */
export const ALERTS_TABLE = `CREATE TABLE alerts (
  kind TEXT NOT NULL,
  ledger_key TEXT NOT NULL DEFAULT '',
  opened_at INTEGER NOT NULL,
  message TEXT NOT NULL,
  data TEXT NOT NULL,
  last_at INTEGER NOT NULL,
  reminders INTEGER NOT NULL,
  next_reminder_at INTEGER NOT NULL,
  cleared_at INTEGER,
  projected INTEGER NOT NULL,
  PRIMARY KEY (kind, ledger_key, opened_at)
)`;

const ALERT_COLUMNS =
  "kind, ledger_key, opened_at, message, data, last_at, reminders, next_reminder_at, cleared_at, projected";

/**
 * Schema step: an alerts table made before alerts had a ledger key is rebuilt with one. A send's
 * alert takes the ledger key its data names; a store without the table (made on first write) or
 * already at this shape is left as it is.
 */
export function addAlertSubjects(storage: DurableObjectStorage): void {
  const columns = storage.sql
    .exec<{ name: string }>("SELECT name FROM pragma_table_info('alerts')")
    .toArray();
  if (columns.length === 0 || columns.some((c) => c.name === "ledger_key")) return;
  storage.sql.exec(`ALTER TABLE alerts RENAME TO alerts_before_ledger_keys;
    ${ALERTS_TABLE};
    INSERT INTO alerts (${ALERT_COLUMNS})
      SELECT kind, CASE WHEN kind LIKE '%outcome_unknown' OR kind LIKE '%gateway_config'
          THEN COALESCE(json_extract(data, '$.key'), '') ELSE '' END,
        opened_at, message, data, last_at, reminders, next_reminder_at, cleared_at, projected
      FROM alerts_before_ledger_keys;
    DROP TABLE alerts_before_ledger_keys;`);
}

type Stored = {
  kind: string;
  ledger_key: string;
  opened_at: number;
  message: string;
  data: string;
  last_at: number;
  reminders: number;
  next_reminder_at: number;
  cleared_at: number | null;
};

/** An alert of the owner's, with what it is about ('' for the owner as a whole). */
export type OwnedAlert = AlertState & { ledgerKey: string };

const stateOf = (row: Stored): OwnedAlert => ({
  kind: row.kind,
  ledgerKey: row.ledger_key,
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

  /**
   * The problem `kind` of `ledgerKey` (a send's; '' for the order as a whole) is seen now: one
   * line when it opens and on each reminder, none otherwise.
   */
  raise(
    orderId: string,
    kind: string,
    message: string,
    data: Record<string, unknown>,
    now: number,
    ledgerKey = "",
  ): void {
    const { state, notice } = raiseAlert(this.#open(kind, ledgerKey), kind, message, data, now);
    const alert = { ...state, ledgerKey };
    this.#write(alert, notice !== null);
    this.#say(orderId, alert, notice);
  }

  /** The problem `kind` of `ledgerKey` has ended: its open alert clears, with one line. */
  clear(orderId: string, kind: string, now: number, ledgerKey = ""): void {
    const state = clearAlert(this.#open(kind, ledgerKey), now);
    if (!state) return;
    const alert = { ...state, ledgerKey };
    this.#write(alert, true);
    this.#say(orderId, alert, "cleared");
  }

  /** Every open alert clears (the order's money is settled). */
  clearAll(orderId: string, now: number): void {
    for (const a of this.open()) this.clear(orderId, a.kind, now, a.ledgerKey);
  }

  open(): OwnedAlert[] {
    return this.table
      .rows<Stored>("SELECT * FROM alerts WHERE cleared_at IS NULL ORDER BY opened_at")
      .map(stateOf);
  }

  pending(): boolean {
    return this.table.rows("SELECT 1 FROM alerts WHERE projected = 0 LIMIT 1").length > 0;
  }

  /**
   * Writes the alerts D1 does not have yet, each under the id `ownerOf` names for its ledger key (the
   * order's own id; a statement's for a partner payout's key); a failure is logged and left for
   * the next run.
   */
  async project(db: D1Database, ownerOf: (ledgerKey: string) => string): Promise<void> {
    const rows = this.table.rows<Stored>("SELECT * FROM alerts WHERE projected = 0");
    if (rows.length === 0) return;
    const out: AlertRow[] = rows.map((r) => ({
      order_id: ownerOf(r.ledger_key),
      kind: r.kind,
      ledger_key: r.ledger_key,
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
          "UPDATE alerts SET projected = 1 WHERE kind = ? AND ledger_key = ? AND opened_at = ? AND last_at = ? AND reminders = ? AND cleared_at IS ?",
          r.kind,
          r.ledger_key,
          r.opened_at,
          r.last_at,
          r.reminders,
          r.cleared_at,
        );
    } catch (err) {
      console.error(
        JSON.stringify({
          level: "warn",
          order: out[0]?.order_id,
          msg: "alert projection failed; will retry",
          error: String(err),
        }),
      );
    }
  }

  #open(kind: string, ledgerKey: string): AlertState | null {
    const row = this.table.rows<Stored>(
      "SELECT * FROM alerts WHERE kind = ? AND ledger_key = ? AND cleared_at IS NULL",
      kind,
      ledgerKey,
    )[0];
    return row ? stateOf(row) : null;
  }

  /** A row D1 must learn of (opened, reminded, cleared) is marked unprojected; a quiet sighting is not. */
  #write(a: OwnedAlert, project: boolean): void {
    this.table.write(
      `INSERT INTO alerts (${ALERT_COLUMNS})
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (kind, ledger_key, opened_at) DO UPDATE SET message = excluded.message, data = excluded.data,
         last_at = excluded.last_at, reminders = excluded.reminders,
         next_reminder_at = excluded.next_reminder_at, cleared_at = excluded.cleared_at,
         projected = MIN(alerts.projected, excluded.projected)`,
      a.kind,
      a.ledgerKey,
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

  #say(orderId: string, a: OwnedAlert, notice: AlertNotice): void {
    if (notice === null) return;
    const { level, line } = alertLogLine(
      { order: orderId, ...(a.ledgerKey && { ledger_key: a.ledgerKey }) },
      a,
      notice,
    );
    (level === "info" ? console.log : console.error)(JSON.stringify(line));
  }
}
