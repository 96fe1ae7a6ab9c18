// The cabinet's Webhooks and Settings pages over HTTP: roles (viewer reads, developer manages
// webhooks, admin alone changes settings), the same service as the API, every change audited.
import { env } from "cloudflare:workers";
import { HttpResponse, http } from "msw";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { admin, call, createPartner, json, setPrices } from "../helpers";
import { acceptInvite, cab, csrfOf, invite, partnerWithAdmin } from "../support/cabinet";
import { createMockNetwork, type MockNetwork } from "../support/msw";

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

async function auditActions(partnerId: string): Promise<{ actor: string; action: string; detail: string }[]> {
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
      form: { url: HOOK, enabled: "on" },
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
      form: { contact_email: " Ops@Wallet.Example " },
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
    expect((await auditActions(a.partnerId)).map((r) => [r.actor, r.action, JSON.parse(r.detail)])).toEqual([
      ["admin@wallet.example", "settings.markup_changed", { from: 0, to: 150 }],
      ["admin@wallet.example", "settings.contact_email_changed", { from: null, to: "ops@wallet.example" }],
      ["operator", "settings.markup_cap_changed", { from: 200, to: 300 }],
      ["admin@wallet.example", "settings.markup_changed", { from: 150, to: 250 }],
    ]);
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
    expect(await (await cab("/webhooks", { cookie: a.cookie })).text()).toContain('href="/cabinet/settings"');
  });
});
