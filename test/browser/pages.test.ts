// Every page at a phone's 390 px and a desktop's 1280 px, in Chromium against `wrangler dev`: no
// sideways scrolling at 390 (a request-log entry's long body wraps), the phone menu keeps the current
// page in sight, times in the viewer's zone (the browser runs in Asia/Tokyo), the Widgets page's
// post/redirect/get, a pending payout-address change in a warning colour; the end user's tracking
// page without JavaScript (it reloads itself, the time left is as rendered), a finished order's
// step times, and the referral page naming the partner; a held test order's page and list in the
// cabinet, and /compliance, axe-clean at both widths. Screenshots: test-artifacts/cabinet/pages-*.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { maskAddress } from "../../src/domain/order-status";
import {
  admin,
  browserSession,
  newKey,
  newOrder,
  newPartner,
  ORIGIN,
  overflowX,
  seriousViolations,
  shot,
  signInByInvite,
  withPasskeys,
} from "./harness";

const suite = browserSession();
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };
const TOKYO = { timezoneId: "Asia/Tokyo" };
const TRON = "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL";
const ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
/** Test mode's listed sanctions address (docs/test-mode.md, "Screening: listed test addresses"). */
const SANCTIONED_BTC = "bc1qt3w9chzut3w9chzut3w9chzut3w9chzufdsq3l";

/** Every cabinet page a partner's admin sees, by the name its screenshot gets. */
const CABINET_PAGES: [string, string][] = [
  ["overview", "/cabinet/overview"],
  ["orders", "/cabinet/orders"],
  ["earnings", "/cabinet/earnings"],
  ["payouts", "/cabinet/payouts"],
  ["keys", "/cabinet/keys"],
  ["webhooks", "/cabinet/webhooks"],
  ["widgets", "/cabinet/widgets"],
  ["logs", "/cabinet/logs"],
  ["team", "/cabinet/team"],
  ["audit", "/cabinet/audit"],
  ["settings", "/cabinet/settings"],
  ["passkeys", "/cabinet/account"],
];

const widgetCount = async (partnerId: string) =>
  ((await (await admin(`/partners/${partnerId}/widgets`)).json()) as { data: unknown[] }).data.length;

/** The page at both widths, a screenshot of each; at 390 no sideways scrolling; axe-clean if asked. */
async function atBothWidths(page: Page, url: string, name: string, axe = false): Promise<void> {
  for (const size of [PHONE, DESKTOP]) {
    await page.setViewportSize(size);
    await page.goto(url);
    await page.waitForLoadState("load");
    if (size === PHONE) expect(await overflowX(page), `${name} at 390 px`).toBeLessThanOrEqual(0);
    if (axe) expect(await seriousViolations(page), `${name} at ${size.width} px`).toEqual([]);
    await shot(page, `pages-${name}-${size.width}`);
  }
}

describe("every page at 390 and 1280 px", () => {
  it("the cabinet: no sideways scrolling, the current page in the phone menu, local times, Widgets PRG, the pending payout change", async () => {
    const partnerId = await newPartner("Pages Wallet");
    const key = await newKey(partnerId);
    const { ctx, page } = await withPasskeys(suite.browser(), PHONE, TOKYO);
    await signInByInvite(page, partnerId, "admin@pages-wallet.example", "admin");
    const order = await newOrder(key);

    // Widgets: "Create widget" answers with a redirect to a GET; reloading it creates nothing.
    await page.goto(`${ORIGIN}/cabinet/widgets`);
    await page.fill("textarea[name=allowed_origins]", "https://shop.example");
    await page.fill("input[name=name]", "Checkout");
    await page.getByRole("button", { name: "Create widget" }).click();
    await page.waitForURL(/\/cabinet\/widgets\?created=wid_\w{20}$/);
    expect(await page.getByTestId("notice").textContent()).toMatch(/Created wid_\w{20}\./);
    expect(await widgetCount(partnerId)).toBe(1);
    await page.reload();
    await page.waitForLoadState("load");
    expect(await widgetCount(partnerId)).toBe(1);

    // A pending payout-address change (step-up with the passkey) is a warning, not a success.
    await page.goto(`${ORIGIN}/cabinet/payouts`);
    const form = page.locator("#payout-address-form");
    await form.getByLabel("Asset").selectOption("USDT/TRX");
    await form.getByLabel("New payout address").fill(TRON);
    await form.getByRole("button", { name: /Change address/ }).click();
    const pending = page.getByTestId("pending-change");
    await expect.poll(() => pending.count(), { timeout: 15_000 }).toBe(1);
    // The page's DOM, evaluated as text (the test's types are Node's): the box and a plain notice.
    const colours = (await page.evaluate(`(() => {
      const style = (el) => { const s = getComputedStyle(el); return { color: s.color, background: s.backgroundColor }; };
      const probe = document.createElement("p");
      probe.className = "notice";
      document.body.append(probe);
      const success = style(probe);
      probe.remove();
      return { pending: style(document.querySelector("[data-testid=pending-change]")), success };
    })()`)) as Record<"pending" | "success", { color: string; background: string }>;
    expect(colours.pending).not.toEqual(colours.success);
    expect(colours.pending.background).toBe("rgb(253, 246, 227)");
    // Its time in the viewer's zone, with the zone's name; no raw ISO string anywhere in the text.
    const effective = await pending.locator("time").textContent();
    expect(effective).toMatch(/GMT\+9/);
    expect(await page.locator("main").textContent()).not.toMatch(ISO);
    await shot(page, "pages-payouts-pending-390");

    // A request-log entry with a long path and body wraps at 390 px.
    const long = `NOPE-${"X".repeat(400)}`;
    const missing = await fetch(`${ORIGIN}/api/v1/partner/orders/${long}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(missing.status).toBe(404);
    const requestId = missing.headers.get("x-request-id") ?? "";
    const row = page.locator(`tr[data-request-id="${requestId}"]`);
    await page.goto(`${ORIGIN}/cabinet/logs?request_id=${requestId}`);
    await expect
      .poll(
        async () => {
          if ((await row.count()) === 0) await page.reload();
          return row.count();
        },
        { timeout: 15_000, interval: 500 },
      )
      .toBe(1);
    await row.getByRole("link").click();
    await expect.poll(() => page.getByTestId("error-body").count()).toBe(1);
    const entryUrl = page.url();
    expect(await overflowX(page)).toBeLessThanOrEqual(0);
    const body = await page.getByTestId("error-body").boundingBox();
    expect(body?.width).toBeLessThan(390);
    expect(await page.getByTestId("log-entry").locator("time").textContent()).toMatch(/GMT\+9/);
    await atBothWidths(page, entryUrl, "log-entry");

    // Every page of the navigation, and an order's page.
    for (const [name, path] of CABINET_PAGES) {
      await atBothWidths(page, `${ORIGIN}${path}`, name);
      // Still 1280 wide: back to the phone for the menu's check.
      await page.setViewportSize(PHONE);
      const current = page.locator('header.top nav a[aria-current="page"]');
      expect(await current.count(), name).toBe(1);
      expect(await current.getAttribute("href")).toBe(path);
      const nav = await page.locator("header.top nav:not(.mode-switch)").boundingBox();
      const link = await current.boundingBox();
      if (!nav || !link) throw new Error(`${name}: no navigation`);
      // In sight on the scrolling line: within the menu's visible box, not scrolled off either edge.
      expect(link.x, name).toBeGreaterThanOrEqual(nav.x - 0.5);
      expect(link.x + link.width, name).toBeLessThanOrEqual(nav.x + nav.width + 0.5);
    }
    await page.setViewportSize(PHONE);
    await page.goto(`${ORIGIN}/cabinet/settings`);
    await shot(page, "pages-phone-menu-settings-390");
    await atBothWidths(page, `${ORIGIN}/cabinet/orders/${order.id}`, "order");
    expect(await page.locator("main").textContent()).not.toMatch(ISO);
    const times = await page.locator("main time[data-local]").allTextContents();
    expect(times.length).toBeGreaterThan(0);
    for (const t of times) expect(t).toMatch(/GMT\+9/);

    // A test order whose deposit came from a listed address: its page says the hold in plain words,
    // why, since when, the deadline (in the viewer's zone), what happens then and why the deadline
    // moved, linking the policy; the list marks it Held.
    const testKey = await newKey(partnerId, "test");
    const held = await newOrder(testKey);
    const deposit = await fetch(`${ORIGIN}/api/v1/partner/test/orders/${held.id}/deposit`, {
      method: "POST",
      headers: { authorization: `Bearer ${testKey}`, "content-type": "application/json" },
      body: JSON.stringify({ from: SANCTIONED_BTC }),
    });
    expect(deposit.status).toBe(200);
    // The operator moved its deadline once, with a reason the partner sees.
    const extended = await admin(`/orders/${held.id}/hold/extend`, {
      json: { hours: 24, reason: "waiting for the sender's documents" },
    });
    expect(extended.status).toBe(200);
    const hold = ((await extended.json()) as { hold: { reason: string; since: string; deadline_at: string } })
      .hold;
    await atBothWidths(page, `${ORIGIN}/cabinet/orders/${held.short_id}?mode=test`, "order-held", true);
    const card = page.getByTestId("hold");
    expect(await card.locator("h2").textContent()).toBe("This order is on hold");
    expect(hold.reason).toContain(`${maskAddress(SANCTIONED_BTC)} (sanctions)`);
    expect(await card.textContent()).toContain(`Why: ${hold.reason}.`);
    expect(await card.textContent()).toContain("the service's operators decide what happens to the deposit");
    const deadline = card.getByTestId("hold-deadline").locator("time");
    expect(await deadline.getAttribute("datetime")).toBe(hold.deadline_at);
    expect(await deadline.textContent()).toMatch(/GMT\+9/);
    expect(await card.locator(`time[datetime="${hold.since}"]`).count()).toBe(1);
    expect(await card.getByTestId("hold-extended").textContent()).toMatch(
      /^The deadline was moved once, on .*GMT\+9: waiting for the sender's documents$/,
    );
    expect(await card.getByRole("link", { name: "How screening and holds work" }).getAttribute("href")).toBe(
      "/compliance",
    );
    expect(await card.textContent()).not.toMatch(ISO);
    expect(await page.locator("h1 [data-testid=held]").textContent()).toBe("Held");
    // The list reads the order index, which the hold reaches moments after the deposit.
    await page.goto(`${ORIGIN}/cabinet/orders`);
    const heldBadge = page.locator(`[data-order-id="${held.id}"] [data-testid=held]`);
    await expect
      .poll(
        async () => {
          if ((await heldBadge.count()) > 0) return heldBadge.textContent();
          await page.reload();
          return null;
        },
        { timeout: 15_000, interval: 500 },
      )
      .toBe("Held");
    await shot(page, "pages-orders-held-1280");
    await ctx.close();
  });

  it("the end user's pages: tracking without JavaScript, a finished order's step times, the referral page's partner, /compliance", async () => {
    const partnerId = await newPartner("Referral Wallet");
    const testKey = await newKey(partnerId, "test");
    const browser = suite.browser();

    // Without JavaScript: the time left as rendered, and the page reloads itself.
    const noJs = await browser.newContext({ viewport: PHONE, locale: "en-US", javaScriptEnabled: false });
    const plain = await noJs.newPage();
    const waiting = await newOrder(testKey);
    await plain.goto(waiting.tracking_url);
    expect(await plain.locator("[data-countdown]").textContent()).toMatch(/^in (29|30) min$/);
    expect(await plain.locator("main").textContent()).toContain("This page updates by itself.");
    expect(await overflowX(plain)).toBeLessThanOrEqual(0);
    await shot(plain, "pages-track-no-js-390");
    const reloaded = plain.waitForEvent("framenavigated", { timeout: 40_000 });
    await reloaded;
    await noJs.close();

    // A finished order: each step with when it happened, in the viewer's zone.
    const ctx = await browser.newContext({ viewport: PHONE, locale: "en-US", ...TOKYO });
    const page = await ctx.newPage();
    const done = await newOrder(testKey);
    for (const helper of ["deposit", "confirm"]) {
      const res = await fetch(`${ORIGIN}/api/v1/partner/test/orders/${done.id}/${helper}`, {
        method: "POST",
        headers: { authorization: `Bearer ${testKey}`, "content-type": "application/json" },
        body: "{}",
      });
      expect(res.status).toBe(200);
    }
    await page.goto(done.tracking_url);
    await expect.poll(() => page.getByTestId("status").getAttribute("data-status")).toBe("completed");
    const steps = page.locator("ol.timeline li");
    expect(await steps.count()).toBe(5);
    for (const text of await steps.allTextContents()) expect(text).toMatch(/ · .*GMT\+9$/);
    expect(await page.locator("main").textContent()).not.toMatch(ISO);
    await atBothWidths(page, done.tracking_url, "track-completed");

    // The referral page says whose swap it is.
    const res = await admin(`/partners/${partnerId}/widgets`, {
      method: "POST",
      json: { mode: "test", allowed_origins: ["https://shop.example"] },
    });
    const wid = ((await res.json()) as { id: string }).id;
    await page.goto(`${ORIGIN}/swap?ref=${wid}`);
    expect(await page.getByTestId("offered-by").textContent()).toBe("A swap offered by Referral Wallet.");
    await atBothWidths(page, `${ORIGIN}/swap?ref=${wid}`, "referral");
    await atBothWidths(page, waiting.tracking_url, "track-waiting");
    // The policy a held order's pages link to.
    await atBothWidths(page, `${ORIGIN}/compliance`, "compliance", true);
    expect(await page.getByTestId("hold-policy").locator("tbody tr").count()).toBe(4);
    await ctx.close();
  });
});
