// The cabinet's Webhooks and Settings pages over HTTP: roles (viewer reads, developer manages
// webhooks, admin alone changes settings), the same service as the API, every change audited.
import { env } from "cloudflare:workers";
import { HttpResponse, http } from "msw";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { orderIdOf } from "../../../src/domain/order-id";
import { admin, call, createPartner, json, setPrices } from "../../helpers";
import { acceptInvite, cab, csrfOf, invite, partnerWithAdmin, stepUp } from "../../support/cabinet";
import { createMockNetwork, type MockNetwork } from "../../support/msw";
import { queueOrderEvent } from "../../support/webhook-events";

describe("Webhooks and Settings pages", () => {
  const HOOK = "https://hooks.wallet.example/in";
  beforeAll(() => setPrices());
  let net: MockNetwork;
  beforeEach(() => {
    net = createMockNetwork(http.post(HOOK, () => new HttpResponse(null, { status: 200 })));
    vi.stubGlobal("fetch", net.fetch);
  });
  afterEach(() => vi.unstubAllGlobals());

  async function member(partnerId: string, email: string, role: string) {
    const m = await acceptInvite(await invite(partnerId, email, role));
    return { ...m, csrf: await csrfOf(m.cookie) };
  }

  async function auditActions(
    partnerId: string,
  ): Promise<{ actor: string; action: string; detail: string }[]> {
    const { results } = await env.DB.prepare(
      "SELECT actor, action, detail FROM cabinet_audit_log WHERE partner_id = ? AND action NOT LIKE 'member.%' AND action NOT LIKE 'invite.%' ORDER BY id",
    )
      .bind(partnerId)
      .all<{ actor: string; action: string; detail: string }>();
    return results;
  }

  describe("Webhooks page", () => {
    it("a developer sets the endpoint, rotates the secret (shown once), sends a test event and resends it", async () => {
      const a = await partnerWithAdmin();
      const dev = await member(a.partnerId, "dev@wallet.example", "developer");
      let res = await cab("/webhooks/endpoint", {
        cookie: dev.cookie,
        csrf: dev.csrf,
        form: { url: HOOK, enabled: "on", step_up: await stepUp(dev) },
      });
      expect(res.status).toBe(200);
      res = await cab("/webhooks/secret", { cookie: dev.cookie, csrf: dev.csrf, form: { overlap: "now" } });
      expect(res.status).toBe(201);
      const html = await res.text();
      const secret = /data-testid="new-secret">([^<]+)</.exec(html)?.[1];
      expect(secret).toMatch(/^whsec_/);
      expect(html).toContain('data-replace-url="/cabinet/webhooks"');
      const page = await (await cab("/webhooks", { cookie: dev.cookie })).text();
      expect(page).not.toContain(secret?.slice(6));
      res = await cab("/webhooks/test", { cookie: dev.cookie, csrf: dev.csrf, form: {} });
      const sent = await res.text();
      expect(sent).toMatch(/Test event sent — ping evt_[0-9a-f]{32}: delivered \(HTTP 200\)/);
      const eventId = /evt_[0-9a-f]{32}/.exec(sent)?.[0] ?? "";
      expect(sent).toContain(`data-event="${eventId}"`);
      res = await cab(`/webhooks/deliveries/${eventId}/resend`, {
        cookie: dev.cookie,
        csrf: dev.csrf,
        form: {},
      });
      expect(await res.text()).toContain(`Resent — ping ${eventId}: delivered (HTTP 200)`);
      expect(net.requests.map((r) => r.headers.get("x-webhook-id"))).toEqual([eventId, eventId]);
      // The API sees what the cabinet set (one endpoint per partner and mode).
      expect(await json(await admin(`/partners/${a.partnerId}`))).toMatchObject({
        webhook_url: HOOK,
        webhook_secret_set: true,
      });
      expect((await auditActions(a.partnerId)).map((r) => [r.actor, r.action])).toEqual([
        ["dev@wallet.example", "step_up.verified"],
        ["dev@wallet.example", "webhook.updated"],
        ["dev@wallet.example", "webhook.secret_rotated"],
        ["dev@wallet.example", "webhook.test_sent"],
        ["dev@wallet.example", "webhook.resent"],
      ]);
    });

    it("refuses hostile URLs with the reason, changing nothing", async () => {
      const a = await partnerWithAdmin();
      const res = await cab("/webhooks/endpoint", {
        cookie: a.cookie,
        csrf: a.csrf,
        form: { url: "https://169.254.169.254/latest", enabled: "on" },
      });
      expect(res.status).toBe(400);
      expect(await res.text()).toContain("not an IP address (link-local)");
      expect(await auditActions(a.partnerId)).toEqual([]);
    });

    it("a viewer reads the log but has no controls and cannot post", async () => {
      const a = await partnerWithAdmin();
      const viewer = await member(a.partnerId, "v@wallet.example", "viewer");
      const page = await cab("/webhooks", { cookie: viewer.cookie });
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain("Delivery log");
      expect(html).not.toContain('action="/cabinet/webhooks/endpoint"');
      expect(html).not.toContain("Send test event");
      for (const path of ["/webhooks/endpoint", "/webhooks/secret", "/webhooks/test"]) {
        const res = await cab(path, { cookie: viewer.cookie, csrf: viewer.csrf, form: { url: HOOK } });
        expect(res.status, path).toBe(403);
      }
      // Without the CSRF token even a developer is refused.
      const dev = await member(a.partnerId, "d@wallet.example", "developer");
      expect((await cab("/webhooks/test", { cookie: dev.cookie, form: {} })).status).toBe(403);
      expect((await call("/cabinet/webhooks", { redirect: "manual" })).status).toBe(303);
    });

    it("another partner's event cannot be resent from this cabinet", async () => {
      const other = await createPartner({ name: "other" });
      const key = { authorization: `Bearer ${other.key}`, "content-type": "application/json" };
      await call("/api/v1/partner/webhook", {
        method: "PUT",
        headers: key,
        body: JSON.stringify({ url: HOOK }),
      });
      await call("/api/v1/partner/webhook/secret", { method: "POST", headers: key });
      const ping = await json<{ event_id: string }>(
        await call("/api/v1/partner/webhook/test", { method: "POST", headers: key }),
      );
      const a = await partnerWithAdmin();
      const res = await cab(`/webhooks/deliveries/${ping.event_id}/resend`, {
        cookie: a.cookie,
        csrf: a.csrf,
        form: {},
      });
      expect(res.status).toBe(404);
      expect(await (await cab("/webhooks", { cookie: a.cookie })).text()).not.toContain(ping.event_id);
    });
  });

  describe("event browser", () => {
    it("shows each payload and the receiver's answer escaped, filters by type and short_id, keeps the filter through a resend, exports the filtered events as CSV", async () => {
      const a = await partnerWithAdmin();
      await cab("/webhooks/endpoint", {
        cookie: a.cookie,
        csrf: a.csrf,
        form: { url: HOOK, enabled: "on", step_up: await stepUp(a) },
      });
      await cab("/webhooks/secret", { cookie: a.cookie, csrf: a.csrf, form: { overlap: "now" } });
      const shortId = "ABCDEFGH12";
      net.use(http.post(HOOK, () => new HttpResponse("<b>refused</b>", { status: 500 })));
      const mine = await queueOrderEvent(a.partnerId, net.fetch, orderIdOf(shortId));
      const signature = net.requests.at(-1)?.headers.get("x-webhook-signature") ?? "";
      net.reset();
      const other = await queueOrderEvent(a.partnerId, net.fetch);
      const sent = await (await cab("/webhooks/test", { cookie: a.cookie, csrf: a.csrf, form: {} })).text();
      const ping = /evt_[0-9a-f]{32}/.exec(sent)?.[0] ?? "";
      const events = (html: string) =>
        [...html.matchAll(/data-event="(evt_[0-9a-f]{32})"/g)].map((m) => m[1]);

      const res = await cab(`/webhooks?order_id=${shortId.toLowerCase()}`, { cookie: a.cookie });
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(events(html)).toEqual([mine]);
      // The payload, indented; the receiver's answer as text, never as markup.
      expect(html).toContain(
        `&quot;id&quot;: &quot;${mine}&quot;,\n  &quot;type&quot;: &quot;order.status_changed&quot;`,
      );
      expect(html).toContain("&lt;b&gt;refused&lt;/b&gt;");
      expect(html).not.toContain("<b>refused</b>");
      expect(html).toContain(`<dt>x-webhook-signature</dt><dd class="mono">${signature.slice(0, 8)}…</dd>`);
      expect(html).not.toContain(signature.slice(8, 40));
      expect(events(await (await cab("/webhooks?type=ping", { cookie: a.cookie })).text())).toEqual([ping]);

      // A resend from the filtered list comes back to the same filter (and the same export).
      const resent = await (
        await cab(`/webhooks/deliveries/${mine}/resend`, {
          cookie: a.cookie,
          csrf: a.csrf,
          form: { type: "order.status_changed", order_id: shortId.toLowerCase() },
        })
      ).text();
      expect(resent).toContain("Resent");
      expect(events(resent)).toEqual([mine]);
      const exportLink = `/cabinet/webhooks/events.csv?type=order.status_changed&amp;order_id=${orderIdOf(shortId)}`;
      expect(resent).toContain(`href="${exportLink}"`);

      const csv = await cab(exportLink.replace("/cabinet", "").replace("&amp;", "&"), { cookie: a.cookie });
      expect(csv.status).toBe(200);
      expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      expect(csv.headers.get("content-disposition")).toMatch(
        /^attachment; filename="webhook-events-\d{8}T\d{6}\.csv"$/,
      );
      const lines = (await csv.text()).trim().split("\r\n");
      expect(lines[0]).toBe(
        "created_at,event_id,type,order_id,sequence,status,attempts,last_status_code,last_error,delivered_at,next_retry_at,payload",
      );
      expect(lines.slice(1).map((l) => l.split(",")[1])).toEqual([mine]);
      expect(lines[1]).toContain(`,order.status_changed,${orderIdOf(shortId)},1,delivered,2,200,`);
      const all = (
        await (await cab("/webhooks/events.csv?type=order.status_changed", { cookie: a.cookie })).text()
      )
        .trim()
        .split("\r\n");
      expect(
        all
          .slice(1)
          .map((l) => l.split(",")[1])
          .sort(),
      ).toEqual([mine, other].sort());
      expect((await cab("/webhooks/events.csv?order_id=nope", { cookie: a.cookie })).status).toBe(400);
    });
  });

  describe("Settings page", () => {
    it("an admin sets the markup within the operator's cap and the contact e-mail; both audited", async () => {
      const a = await partnerWithAdmin();
      let res = await cab("/settings", { cookie: a.cookie, csrf: a.csrf, form: { markup_bps: "150" } });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('data-testid="markup">150 bps');
      res = await cab("/settings", { cookie: a.cookie, csrf: a.csrf, form: { markup_bps: "201" } });
      expect(res.status).toBe(422);
      expect(await res.text()).toContain("from 0 to 200");
      res = await cab("/settings", { cookie: a.cookie, csrf: a.csrf, form: { markup_bps: "-1" } });
      expect(res.status).toBe(400);
      res = await cab("/settings", {
        cookie: a.cookie,
        csrf: a.csrf,
        form: { contact_email: " Ops@Wallet.Example ", step_up: await stepUp(a) },
      });
      expect(res.status).toBe(200);
      // The operator raises the cap; the partner can go higher, the operator's change is audited too.
      await admin(`/partners/${a.partnerId}`, { method: "PATCH", json: { max_markup_bps: 300 } });
      res = await cab("/settings", { cookie: a.cookie, csrf: a.csrf, form: { markup_bps: "250" } });
      expect(res.status).toBe(200);
      expect(await json(await admin(`/partners/${a.partnerId}`))).toMatchObject({
        markup_bps: 250,
        max_markup_bps: 300,
        contact_email: "ops@wallet.example",
      });
      expect((await auditActions(a.partnerId)).map((r) => [r.actor, r.action, JSON.parse(r.detail)])).toEqual(
        [
          ["admin@wallet.example", "settings.markup_changed", { from: 0, to: 150 }],
          [
            "admin@wallet.example",
            "step_up.verified",
            { action: "settings.contact_email", passkey: "Passkey 1" },
          ],
          [
            "admin@wallet.example",
            "settings.contact_email_changed",
            { from: null, to: "ops@wallet.example" },
          ],
          ["operator", "settings.markup_cap_changed", { from: 200, to: 300 }],
          ["admin@wallet.example", "settings.markup_changed", { from: 150, to: 250 }],
        ],
      );
    });

    it("the new markup reaches quotes made with the partner's key", async () => {
      const a = await partnerWithAdmin();
      const issued = await cab("/keys", { cookie: a.cookie, csrf: a.csrf, form: { name: "prod" } });
      const key = /data-testid="new-key">([^<]+)</.exec(await issued.text())?.[1] ?? "";
      const quote = async () => {
        const res = await call("/api/v1/partner/rates?coin_from=BTC&coin_to=USDT&network_to=ETH&amount=0.1", {
          headers: { authorization: `Bearer ${key}` },
        });
        expect(res.status).toBe(200);
        return Number((await json<{ amount_to: string }>(res)).amount_to);
      };
      const before = await quote();
      await cab("/settings", { cookie: a.cookie, csrf: a.csrf, form: { markup_bps: "120" } });
      // This isolate's key cache was cleared by the change: the next quote carries the new markup.
      const after = await quote();
      expect(after / before).toBeCloseTo(1 - 0.012, 3);
    });

    it("developers and viewers have no Settings page", async () => {
      const a = await partnerWithAdmin();
      for (const role of ["developer", "viewer"]) {
        const m = await member(a.partnerId, `${role}@wallet.example`, role);
        expect((await cab("/settings", { cookie: m.cookie })).status, role).toBe(403);
        expect(
          (await cab("/settings", { cookie: m.cookie, csrf: m.csrf, form: { markup_bps: "10" } })).status,
        ).toBe(403);
        expect(await (await cab("/webhooks", { cookie: m.cookie })).text()).not.toContain(
          'href="/cabinet/settings"',
        );
      }
      expect(await (await cab("/webhooks", { cookie: a.cookie })).text()).toContain(
        'href="/cabinet/settings"',
      );
    });
  });
});
