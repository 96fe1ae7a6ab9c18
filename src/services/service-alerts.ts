/**
 * Alerts about the service rather than one order (the slow sweep falling behind, a deposit-address
 * pool running low): raised and cleared by the cron step that watches the problem, one per subject
 * and kind, with the orders' open/remind/clear rules (src/domain/alerts.ts). D1's `alerts` table is
 * their only store, so GET /admin/v1/alerts lists them beside the orders' under their subject.
 */
import {
  type AlertNotice,
  type AlertState,
  alertLogLine,
  clearAlert,
  raiseAlert,
  scheduledReminderAt,
} from "../domain/alerts";
import { type AlertRow, openAlertRow, projectAlertRows } from "../storage/alerts";

const iso = (ms: number) => new Date(ms).toISOString();

function stateOf(row: AlertRow): AlertState {
  const openedAt = Date.parse(row.opened_at);
  return {
    kind: row.kind,
    message: row.message,
    data: JSON.parse(row.data) as Record<string, unknown>,
    openedAt,
    lastAt: Date.parse(row.last_at),
    reminders: row.reminders,
    nextReminderAt: scheduledReminderAt(openedAt, row.reminders),
    clearedAt: null,
  };
}

/** Writes and logs a notice; a quiet sighting (no notice) writes nothing, as an order's does not. */
async function write(db: D1Database, subject: string, a: AlertState, notice: AlertNotice): Promise<void> {
  if (notice === null) return;
  await projectAlertRows(db, [
    {
      order_id: subject,
      kind: a.kind,
      ledger_key: "",
      opened_at: iso(a.openedAt),
      message: a.message,
      data: JSON.stringify(a.data),
      last_at: iso(a.lastAt),
      reminders: a.reminders,
      cleared_at: a.clearedAt === null ? null : iso(a.clearedAt),
    },
  ]);
  const { level, line } = alertLogLine({ subject }, a, notice);
  (level === "info" ? console.log : console.error)(JSON.stringify(line));
}

/** The problem is seen now: opens the subject's alert of this kind, or keeps it (reminding when due). */
export async function raiseServiceAlert(
  db: D1Database,
  subject: string,
  kind: string,
  message: string,
  data: Record<string, unknown>,
  now: number,
): Promise<void> {
  const row = await openAlertRow(db, subject, kind);
  const { state, notice } = raiseAlert(row && stateOf(row), kind, message, data, now);
  await write(db, subject, state, notice);
}

/** The problem has ended: the open alert clears, with one line; nothing when none is open. */
export async function clearServiceAlert(
  db: D1Database,
  subject: string,
  kind: string,
  now: number,
): Promise<void> {
  const row = await openAlertRow(db, subject, kind);
  const state = row && clearAlert(stateOf(row), now);
  if (state) await write(db, subject, state, "cleared");
}
