/**
 * Operator alerts routed to a person (docs/operators.md, "Alert routing"): each alert's opening,
 * reminders and clearing (src/domain/alerts.ts) is delivered once to the configured destination,
 * in one of three shapes. Pure: the cron step (src/services/alert-routing.ts) claims the alerts
 * D1 holds, sends what this decides, and keeps what was delivered.
 */
import type { AlertNotice } from "./alerts";

export const ALERT_ROUTE_FORMATS = ["json", "slack", "pagerduty"] as const;
export type AlertRouteFormat = (typeof ALERT_ROUTE_FORMATS)[number];

/** A failed delivery is tried again after 1 min, doubling, at most 30 min apart, for as long as it fails. */
export const ROUTE_RETRY_BASE_MS = 60_000;

/** An alert as D1 holds it, with what of it was delivered. */
export interface RoutedAlert {
  subject: string;
  kind: string;
  ledgerKey: string;
  openedAt: string;
  message: string;
  data: Record<string, unknown>;
  lastAt: string;
  reminders: number;
  clearedAt: string | null;
  /** The reminders the last delivery told of; null while its opening was never delivered. */
  routedReminders: number | null;
  routedCleared: boolean;
}

/**
 * What to deliver next, or null when the destination has heard everything. The opening comes
 * first, even for an alert that cleared before it could be sent (a person learns it happened);
 * then the clearing; reminders only while it is open, one for however many fell due meanwhile.
 */
export function nextRouteNotice(a: RoutedAlert): AlertNotice {
  if (a.routedReminders === null) return "opened";
  if (a.clearedAt !== null) return a.routedCleared ? null : "cleared";
  return a.reminders > a.routedReminders ? "reminder" : null;
}

/** The alert after `notice` was delivered. */
export function afterDelivery(a: RoutedAlert, notice: Exclude<AlertNotice, null>): RoutedAlert {
  return { ...a, routedReminders: a.reminders, routedCleared: a.routedCleared || notice === "cleared" };
}

/** The alert's identity (PagerDuty allows 255 characters; a subject, kind and ledger key stay far below). */
export function alertDedupKey(a: Pick<RoutedAlert, "subject" | "kind" | "ledgerKey" | "openedAt">): string {
  return [a.subject, a.kind, a.ledgerKey, a.openedAt].join("|");
}

/** One line for a person: what happened, to what. */
function text(a: RoutedAlert, notice: Exclude<AlertNotice, null>): string {
  const about = `${a.subject}${a.ledgerKey ? ` (${a.ledgerKey})` : ""}`;
  const what =
    notice === "cleared"
      ? `cleared: ${a.message}`
      : notice === "reminder"
        ? `still open (reminder ${a.reminders}): ${a.message}`
        : a.message;
  return `[${a.kind}] ${about}: ${what}`;
}

/** PagerDuty's summary is at most 1,024 characters. */
const PAGERDUTY_SUMMARY_MAX = 1024;

/**
 * The body delivered for `notice`. `json`: our own event (signed like a partner webhook); `slack`:
 * an incoming webhook's `{"text"}`; `pagerduty`: an Events API v2 event, a trigger for an opening or
 * a reminder, a resolve for the clearing, with `routingKey` (the integration key).
 */
export function alertDeliveryBody(
  format: AlertRouteFormat,
  a: RoutedAlert,
  notice: Exclude<AlertNotice, null>,
  routingKey: string,
): string {
  const dedupKey = alertDedupKey(a);
  if (format === "slack") return JSON.stringify({ text: text(a, notice) });
  if (format === "pagerduty")
    return JSON.stringify(
      notice === "cleared"
        ? { routing_key: routingKey, event_action: "resolve", dedup_key: dedupKey }
        : {
            routing_key: routingKey,
            event_action: "trigger",
            dedup_key: dedupKey,
            payload: {
              summary: text(a, notice).slice(0, PAGERDUTY_SUMMARY_MAX),
              source: a.subject,
              severity: "error",
              timestamp: a.lastAt,
              component: a.kind,
              custom_details: { ...a.data, opened_at: a.openedAt, reminders: a.reminders },
            },
          },
    );
  return JSON.stringify({
    type: `alert.${notice}`,
    dedup_key: dedupKey,
    subject: a.subject,
    kind: a.kind,
    ledger_key: a.ledgerKey || null,
    message: a.message,
    data: a.data,
    opened_at: a.openedAt,
    last_at: a.lastAt,
    reminders: a.reminders,
    cleared_at: a.clearedAt,
  });
}

/** Why alerts cannot be routed with this configuration; null when they can (or none is set). */
export function alertRouteProblem(c: {
  ALERT_ROUTE_URL?: string | undefined;
  ALERT_ROUTE_FORMAT: AlertRouteFormat;
  ALERT_ROUTE_SECRET?: string | undefined;
}): string | null {
  if (!c.ALERT_ROUTE_URL || c.ALERT_ROUTE_SECRET || c.ALERT_ROUTE_FORMAT === "slack") return null;
  return c.ALERT_ROUTE_FORMAT === "pagerduty"
    ? "ALERT_ROUTE_SECRET (the PagerDuty integration key) is not set"
    : "ALERT_ROUTE_SECRET (the signing secret) is not set";
}
