/**
 * Cron: operator alerts delivered to a person (docs/operators.md, "Alert routing"). Every alert of
 * an order, a partner's payouts or the service reaches D1's `alerts` table, and its opening,
 * reminders and clearing make it due there (src/storage/alerts.ts); this step delivers what each
 * due alert's destination has not heard yet, once per transition, and retries a failure with
 * backoff until it is delivered.
 */
import { withTimeout } from "../adapters/http-client";
import type { Config } from "../config";
import {
  afterDelivery,
  alertDeliveryBody,
  alertRouteProblem,
  nextRouteNotice,
  ROUTE_RETRY_BASE_MS,
  type RoutedAlert,
} from "../domain/alert-routing";
import { backoffMs, RETRY_CAP_MS } from "../domain/retry";
import { SIGNATURE_HEADER, signatureHeader } from "../domain/webhooks";
import { type AlertRouteRow, claimAlertsToRoute, markAlertRouted } from "../storage/alerts";

/** Alerts delivered per cron run; more wait for the next minute. */
const ROUTE_BATCH = 25;

const alertOf = (r: AlertRouteRow): RoutedAlert => ({
  subject: r.order_id,
  kind: r.kind,
  ledgerKey: r.ledger_key,
  openedAt: r.opened_at,
  message: r.message,
  data: JSON.parse(r.data) as Record<string, unknown>,
  lastAt: r.last_at,
  reminders: r.reminders,
  clearedAt: r.cleared_at,
  routedReminders: r.routed_reminders,
  routedCleared: r.routed_cleared === 1,
});

/** Posts one body; null when the destination took it (2xx), else why not. */
async function post(config: Config, url: string, body: string, now: number, fetchImpl: typeof fetch) {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": "swap-partner-api-alerts/1",
  };
  if (config.ALERT_ROUTE_FORMAT === "json" && config.ALERT_ROUTE_SECRET)
    headers[SIGNATURE_HEADER] = await signatureHeader(
      [config.ALERT_ROUTE_SECRET],
      body,
      Math.floor(now / 1000),
    );
  try {
    return await withTimeout(config.WEBHOOK_TIMEOUT_SECONDS * 1000, async (signal) => {
      const res = await fetchImpl(url, { method: "POST", body, headers, signal, redirect: "manual" });
      await res.body?.cancel();
      return res.ok ? null : `HTTP ${res.status}`;
    });
  } catch (err) {
    return String(err);
  }
}

/** Delivers what is due at `now`; returns how many deliveries were made. */
export async function routeAlerts(
  env: Env,
  config: Config,
  now: number,
  fetchImpl: typeof fetch = fetch,
): Promise<number> {
  const url = config.ALERT_ROUTE_URL;
  if (!url) return 0;
  const problem = alertRouteProblem(config);
  if (problem) {
    // Nothing is claimed: the alerts wait, due, for the configuration to be fixed.
    console.error(JSON.stringify({ level: "error", msg: `alert routing is off: ${problem}` }));
    return 0;
  }
  // Held for longer than a run can take on them, so an overlapping run leaves them alone.
  const leaseUntil = now + ROUTE_BATCH * config.WEBHOOK_TIMEOUT_SECONDS * 1000 * 2;
  const rows = await claimAlertsToRoute(env.DB, now, leaseUntil, ROUTE_BATCH);
  let delivered = 0;
  for (const row of rows) {
    let alert = alertOf(row);
    let told = false;
    let failure: string | null = null;
    // An alert with two things to tell (an opening and its clearing) tells both in one run.
    for (let notice = nextRouteNotice(alert); notice !== null; notice = nextRouteNotice(alert)) {
      const body = alertDeliveryBody(
        config.ALERT_ROUTE_FORMAT,
        alert,
        notice,
        config.ALERT_ROUTE_SECRET ?? "",
      );
      failure = await post(config, url, body, now, fetchImpl);
      if (failure !== null) break;
      delivered++;
      told = true;
      alert = afterDelivery(alert, notice);
    }
    const attempts = row.route_attempts + 1;
    await markAlertRouted(
      env.DB,
      row,
      row,
      told ? { reminders: alert.routedReminders ?? 0, cleared: alert.routedCleared } : null,
      failure === null
        ? null
        : { attempts, retryAt: now + backoffMs(attempts, ROUTE_RETRY_BASE_MS, RETRY_CAP_MS) },
    );
    if (failure !== null)
      console.error(
        JSON.stringify({
          level: "warn",
          subject: row.order_id,
          kind: row.kind,
          msg: "alert delivery failed; will retry",
          attempts,
          error: failure,
        }),
      );
  }
  return delivered;
}
