// Webhooks and Settings in a real Chromium against `wrangler dev`, with a local receiver: set the
// endpoint, create the secret, send a test event the receiver refuses once, see it failed in the
// log, resend it, see it delivered — the receiver checks both signatures. Then the markup setting.
// Screenshots go to test-artifacts/cabinet/ (10-…).
import type { IncomingHttpHeaders } from "node:http";
import { describe, expect, it } from "vitest";
import { verifyWebhook } from "../../docs/examples/verify-webhook";
import {
  admin,
  browserSession,
  depositedTestOrder,
  landOn,
  localServer,
  newKey,
  newPartner,
  ORIGIN,
  RECEIVER_PORT,
  saveEndpointWithSecret,
  shot,
  signInByInvite,
  withPasskeys,
} from "./harness";

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

const suite = browserSession();

/** The partner's endpoint: records every POST; answers 500 while `failures` is above zero. */
const received: Received[] = [];
let failures = 0;
localServer(
  RECEIVER_PORT,
  (req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.statusCode = failures > 0 ? 500 : 200;
      if (failures > 0) failures--;
      res.end();
    });
  },
  "127.0.0.1",
);

describe("webhooks and settings in Chromium", () => {
  it("endpoint → secret → test event refused once → resend delivered; markup within the cap", async () => {
    const partnerId = await newPartner("Hook Wallet");
    const { ctx, page } = await withPasskeys(suite.browser());
    await signInByInvite(page, partnerId, "dev@hook-wallet.example", "admin");

    await page.getByRole("link", { name: "Webhooks" }).click();
    await landOn(page, "/cabinet/webhooks");
    expect(await page.locator("p.lead").textContent()).toContain("Live mode endpoint.");
    // This `wrangler dev` allows http to localhost (ALLOW_HTTP_WEBHOOKS): the hint says so.
    expect(await page.getByTestId("url-hint").textContent()).toContain("plain http to localhost");
    await shot(page, "10-webhooks-empty");

    // An address inside the operator's network is refused with the reason, on the same page, and
    // what was typed stays in the field to correct.
    const refused = "https://169.254.169.254/latest/meta-data/";
    await page.getByLabel("URL").fill(refused);
    await page.getByRole("button", { name: "Save" }).click();
    await expect
      .poll(() => page.getByTestId("url-error").textContent())
      .toContain("not an IP address (link-local)");
    expect(await page.getByLabel("URL").inputValue()).toBe(refused);
    expect(await page.getByRole("button", { name: "Create secret" }).count()).toBe(1);
    await shot(page, "11-webhooks-ssrf-refused");
    await page.getByLabel("URL").fill("");

    const hook = `http://127.0.0.1:${RECEIVER_PORT}/hook`;
    await page.getByLabel("URL").fill(hook);
    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => page.getByTestId("notice").textContent()).toContain(`Endpoint saved: ${hook}`);

    await page.getByRole("button", { name: "Create secret" }).click();
    const secret = (await page.getByTestId("new-secret").textContent())!.trim();
    expect(secret).toMatch(/^whsec_[\w-]{43}$/);
    await shot(page, "12-webhooks-secret-shown-once");

    // The receiver refuses the first delivery.
    failures = 1;
    await page.getByRole("button", { name: "Send test event" }).click();
    await expect
      .poll(() => page.getByTestId("notice").textContent(), { timeout: 15_000 })
      .toMatch(/failed \(HTTP 500\)/);
    // A failure is not shown in the success box.
    expect(await page.getByTestId("notice").getAttribute("class")).toBe("notice failed");
    const row = page.locator("tr[data-event]").first();
    const eventId = (await row.getAttribute("data-event"))!;
    expect(eventId).toMatch(/^evt_[0-9a-f]{32}$/);
    await expect.poll(() => row.locator(".badge").textContent()).toBe("failed");
    await row.locator("summary", { hasText: "attempt" }).click();
    await expect.poll(() => row.locator("ol.attempts li").first().textContent()).toContain("HTTP 500");
    await shot(page, "13-webhooks-test-failed");

    // Resend: a new attempt, delivered.
    await row.getByRole("button", { name: "Resend" }).click();
    await expect
      .poll(() => page.getByTestId("notice").textContent())
      .toContain(`Resent — ping ${eventId}: delivered (HTTP 200)`);
    expect(await page.getByTestId("notice").getAttribute("class")).toBe("notice");
    const after = page.locator(`tr[data-event="${eventId}"]`);
    await expect.poll(() => after.locator(".badge").textContent()).toBe("delivered");
    await after.locator("summary", { hasText: "attempt" }).click();
    await expect.poll(() => after.locator("ol.attempts li").count()).toBe(2);
    await shot(page, "14-webhooks-resent-delivered");

    // The receiver got the same event twice, each signed so that the docs' verifier accepts it.
    expect(received.map((r) => r.headers["x-webhook-id"])).toEqual([eventId, eventId]);
    expect(received[1]!.body).toBe(received[0]!.body);
    for (const r of received)
      expect(await verifyWebhook(r.body, String(r.headers["x-webhook-signature"]), secret)).toBe(true);

    // Reload: no secret, no re-post.
    await page.reload();
    expect(page.url()).toMatch(/\/cabinet\/webhooks$/);
    expect(await page.content()).not.toContain(secret.slice(6));
    expect(received.length).toBe(2);

    // Settings: the markup within the operator's cap (200 bps by default).
    await page.getByRole("link", { name: "Settings" }).click();
    await landOn(page, "/cabinet/settings");
    await page.getByLabel("Markup (basis points)").fill("150");
    await page.getByRole("button", { name: "Save markup" }).click();
    await expect.poll(() => page.getByTestId("markup").textContent()).toBe("150 bps");
    await page.getByLabel("E-mail").fill("ops@hook-wallet.example");
    await page.getByRole("button", { name: "Save e-mail" }).click();
    await expect.poll(() => page.getByTestId("notice").textContent()).toBe("Saved.");
    await shot(page, "15-settings");
    const p = (await (await admin(`/partners/${partnerId}`)).json()) as Record<string, unknown>;
    expect(p).toMatchObject({
      markup_bps: 150,
      max_markup_bps: 200,
      contact_email: "ops@hook-wallet.example",
    });

    await page.getByRole("link", { name: "Audit log" }).click();
    await expect
      .poll(() => page.locator("td code").allTextContents())
      .toEqual(
        // The URL and the e-mail were each confirmed with the passkey (the virtual one verifies).
        expect.arrayContaining([
          "webhook.resent",
          "webhook.test_sent",
          "settings.markup_changed",
          "step_up.verified",
        ]),
      );
    await shot(page, "16-audit-webhooks-settings");
    await ctx.close();
  });

  it("Test view: its own endpoint; the log filtered by a short_id, and the filter survives a resend", async () => {
    const partnerId = await newPartner("Hook Test Wallet");
    const testKey = await newKey(partnerId, "test");
    const { ctx, page } = await withPasskeys(suite.browser());
    await signInByInvite(page, partnerId, "dev@hook-test-wallet.example", "developer");
    await page.goto(`${ORIGIN}/cabinet/webhooks?mode=test`);
    await shot(page, "17-webhooks-test-view");
    await expect
      .poll(() => page.locator("main p.lead").textContent(), { timeout: 15_000 })
      .toContain("Test mode endpoint.");
    await saveEndpointWithSecret(page, `http://127.0.0.1:${RECEIVER_PORT}/test-hook`);

    // Two test orders, each moved once: an event for each.
    const first = await depositedTestOrder(testKey);
    await depositedTestOrder(testKey);
    await page.goto(`${ORIGIN}/cabinet/webhooks`);
    await page.getByTestId("filter-order").fill(first.short_id.toLowerCase());
    await page.getByRole("button", { name: "Filter" }).click();
    const rows = page.locator("tr[data-event]");
    await expect
      .poll(
        async () => {
          await page.reload();
          return rows.count();
        },
        { timeout: 15_000, interval: 1_000 },
      )
      .toBeGreaterThan(0);
    const shown = await rows.count();
    for (const text of await rows.allTextContents()) expect(text).toContain(first.id);
    await shot(page, "18-webhooks-short-id-filter");

    await rows.first().getByRole("button", { name: "Resend" }).click();
    await expect.poll(() => page.getByTestId("notice").textContent()).toContain("Resent");
    expect(page.url()).toContain(`order_id=${first.id}`);
    expect(await page.getByTestId("filter-order").inputValue()).toBe(first.id);
    expect(await rows.count()).toBe(shown);
    for (const text of await rows.allTextContents()) expect(text).toContain(first.id);

    // Not an order reference: said, not silently ignored.
    await page.goto(`${ORIGIN}/cabinet/webhooks?order_id=nope`);
    expect(await page.locator("main").textContent()).toContain('"nope" is not an order id or short id.');
    await ctx.close();
  });
});
