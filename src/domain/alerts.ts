/**
 * Operator alerts: one per problem of an order (per order and kind), not one per retry. An alert
 * opens when its problem starts, reminds on a backoff while it lasts, and clears once, when it
 * ends (docs/lifecycle.md, "Alerts"). Pure: the order object stores the state and logs what
 * `raise` and `clear` say to log.
 */

/** First reminder this long after the alert opened, then twice as long each time, up to a day. */
export const REMINDER_BASE_MS = 15 * 60_000;
export const REMINDER_CAP_MS = 24 * 3_600_000;

export interface AlertState {
  kind: string;
  message: string;
  data: Record<string, unknown>;
  openedAt: number;
  /** The last time the problem was seen. */
  lastAt: number;
  reminders: number;
  nextReminderAt: number;
  clearedAt: number | null;
}

/** What to log about an alert now: its start, a reminder, its end; null for nothing. */
export type AlertNotice = "opened" | "reminder" | "cleared" | null;

const reminderDelay = (reminders: number) => Math.min(REMINDER_CAP_MS, REMINDER_BASE_MS * 2 ** reminders);

/** The problem `kind` is seen now: opens its alert, or keeps the open one, reminding when due. */
export function raiseAlert(
  open: AlertState | null,
  kind: string,
  message: string,
  data: Record<string, unknown>,
  now: number,
): { state: AlertState; notice: AlertNotice } {
  if (!open || open.clearedAt !== null)
    return {
      state: {
        kind,
        message,
        data,
        openedAt: now,
        lastAt: now,
        reminders: 0,
        nextReminderAt: now + reminderDelay(0),
        clearedAt: null,
      },
      notice: "opened",
    };
  const seen = { ...open, message, data, lastAt: now };
  if (now < open.nextReminderAt) return { state: seen, notice: null };
  const reminders = open.reminders + 1;
  return {
    state: { ...seen, reminders, nextReminderAt: now + reminderDelay(reminders) },
    notice: "reminder",
  };
}

/** The problem has ended: the open alert clears (null when none was open). */
export function clearAlert(open: AlertState | null, now: number): AlertState | null {
  return open && open.clearedAt === null ? { ...open, clearedAt: now } : null;
}

/**
 * When the next reminder is due for an alert kept without a reminder time of its own (a service
 * alert, stored in D1's row only): on the schedule from its opening, as if each reminder had been
 * logged the moment it was due.
 */
export function scheduledReminderAt(openedAt: number, reminders: number): number {
  let at = openedAt;
  for (let i = 0; i <= reminders; i++) at += reminderDelay(i);
  return at;
}

/**
 * The log line of a notice: `about` names what the alert is about (`order`, or `subject` for a
 * service alert). Opened and reminders are errors (what an operator routes), a clearing is info.
 */
export function alertLogLine(
  about: Record<string, string>,
  a: AlertState,
  notice: Exclude<AlertNotice, null>,
): { level: "error" | "info"; line: Record<string, unknown> } {
  const level = notice === "cleared" ? "info" : "error";
  return {
    level,
    line: {
      level,
      ...about,
      msg: notice === "cleared" ? `cleared: ${a.message}` : a.message,
      alert: notice,
      kind: a.kind,
      opened_at: new Date(a.openedAt).toISOString(),
      ...(notice === "reminder" && { reminders: a.reminders }),
      ...a.data,
    },
  };
}
