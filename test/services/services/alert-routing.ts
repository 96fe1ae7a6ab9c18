import { env } from "cloudflare:workers";
import { HttpResponse, http } from "msw";
import { beforeEach, describe, expect, it } from "vitest";
import { type Config, getConfig } from "../../../src/config";
import { REMINDER_BASE_MS } from "../../../src/domain/alerts";
import { routeAlerts } from "../../../src/services/alert-routing";
import { clearServiceAlert, raiseServiceAlert } from "../../../src/services/service-alerts";
import { openAlertRow, projectAlertRows } from "../../../src/storage/alerts";
import { createMockNetwork } from "../../support/msw";

// Alert routing (docs/operators.md, "Alert routing"): service alerts raised, reminded and cleared
// through their own service; the order objects' alerts reach the same D1 rows by projectAlertRows.
describe("alert routing: one delivery per transition, retried, signed", () => {
  const URL_ = "https://alerts.example.test/hook";
  const SECRET = "alert-signing-secret";
  const received: string[] = [];
  let status = 200;
  const network = createMockNetwork(
    http.post(URL_, async ({ request }) => {
      const body = await request.text();
      if (status !== 200) return new HttpResponse(null, { status });
      received.push(body);
      return HttpResponse.json({ ok: true });
    }),
  );
  const config = (format: Config["ALERT_ROUTE_FORMAT"]): Config => ({
    ...getConfig(env),
    ALERT_ROUTE_URL: URL_,
    ALERT_ROUTE_FORMAT: format,
    ALERT_ROUTE_SECRET: SECRET,
  });
  const route = (at: number, format: Config["ALERT_ROUTE_FORMAT"] = "json") =>
    routeAlerts(env, config(format), at, network.fetch);
  const bodies = () => received.splice(0).map((b) => JSON.parse(b) as Record<string, unknown>);
  const t0 = Date.now();
  let subject = "";
  let n = 0;
  const raise = (at: number) => raiseServiceAlert(env.DB, subject, "pool_low", "pool low", { left: 3 }, at);

  beforeEach(async () => {
    subject = `routing-${++n}`;
    status = 200;
    received.length = 0;
    network.reset();
    // Other modules' alerts in this file's database are not this test's to deliver.
    await env.DB.prepare("UPDATE alerts SET route_due_at = NULL").run();
  });

  it("raise → one signed delivery; raised again while open, or projected again → none", async () => {
    await raise(t0);
    await route(t0);
    expect(network.requests).toHaveLength(1);
    const [sent] = network.requests;
    const [event] = bodies();
    expect(event).toMatchObject({ type: "alert.opened", subject, kind: "pool_low", message: "pool low" });
    expect(event?.dedup_key).toContain(subject);

    // The signature verifies the way a partner's webhook does: HMAC-SHA256 of "<t>.<raw body>".
    const header = sent?.headers.get("x-webhook-signature") ?? "";
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header) ?? [];
    const key = await crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode(SECRET),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["verify"],
    );
    const mac = new Uint8Array((v1 ?? "").match(/../g)?.map((h) => Number.parseInt(h, 16)) ?? []);
    expect(await crypto.subtle.verify("HMAC", key, mac, new TextEncoder().encode(`${t}.${sent?.body}`))).toBe(
      true,
    );

    await raise(t0 + 60_000);
    const row = await openAlertRow(env.DB, subject, "pool_low");
    if (row) await projectAlertRows(env.DB, [row]);
    await route(t0 + 120_000);
    expect(network.requests).toHaveLength(1);
  });

  it("a reminder → one delivery; the clearing → one PagerDuty resolve of the same dedup_key", async () => {
    await raise(t0);
    await route(t0, "pagerduty");
    const [trigger] = bodies();
    expect(trigger).toMatchObject({
      routing_key: SECRET,
      event_action: "trigger",
      payload: { source: subject, severity: "error", component: "pool_low" },
    });

    await raise(t0 + REMINDER_BASE_MS);
    await route(t0 + REMINDER_BASE_MS, "pagerduty");
    expect(bodies()).toEqual([
      expect.objectContaining({ event_action: "trigger", dedup_key: trigger?.dedup_key }),
    ]);

    await clearServiceAlert(env.DB, subject, "pool_low", t0 + REMINDER_BASE_MS + 1);
    await route(t0 + REMINDER_BASE_MS + 1, "pagerduty");
    await route(t0 + REMINDER_BASE_MS + 60_000, "pagerduty");
    expect(bodies()).toEqual([
      { routing_key: SECRET, event_action: "resolve", dedup_key: trigger?.dedup_key },
    ]);
  });

  it("the receiver answers 500 → retried after its backoff, then delivered once (Slack's shape)", async () => {
    await raise(t0);
    status = 500;
    await route(t0, "slack");
    await route(t0 + 1_000, "slack");
    expect(network.requests).toHaveLength(1);
    status = 200;
    await route(t0 + 60_000, "slack");
    await route(t0 + 120_000, "slack");
    expect(network.requests).toHaveLength(2);
    expect(bodies()).toEqual([{ text: `[pool_low] ${subject}: pool low` }]);
  });
});
