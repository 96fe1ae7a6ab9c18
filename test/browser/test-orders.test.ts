// A new partner's first test orders in the cabinet, in Chromium against `wrangler dev`
// (docs/test-mode.md): a test key created in the cabinet with its quickstart; the test helper
// buttons drive one order from waiting_deposit to completed and another to expired, the page
// showing each status as it comes; explorer links only where a testnet explorer shows the thing;
// the expired order's events in real time with the simulated clock marked; a live order's page has
// no buttons; the overview's whole-number orders axis and its 0 bps hint; the header at phone
// width. axe-core checks the pages. Screenshots go to test-artifacts/cabinet/.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  ARTIFACTS,
  browserSession,
  newKey,
  newOrder,
  newPartner,
  ORIGIN,
  seriousViolations,
  shot,
  signInByInvite,
  withPasskeys,
} from "./harness";

const suite = browserSession();

const badge = (page: Page) => page.locator("h1 [data-testid=status]");
// The machine the suite runs on may be busy: a page load can take seconds.
const SLOW = { timeout: 30_000, interval: 250 };

/** Clicks a test button and waits for the page it posts to (the order after the helper). */
async function press(page: Page, testid: string): Promise<void> {
  await Promise.all([page.waitForURL(/\/cabinet\/orders\/[0-9a-f-]{36}$/), page.getByTestId(testid).click()]);
}

describe("test orders in the cabinet", () => {
  it("the test buttons drive a test order to completed and another to expired; a live order has none", async () => {
    const partnerId = await newPartner("Test Buttons Wallet");
    const live = await newOrder(await newKey(partnerId));

    const { ctx, page } = await withPasskeys(suite.browser());
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await signInByInvite(page, partnerId, "dev@test-buttons.example", "admin");

    // A test key from the cabinet: the quickstart shows next to it, with the key filled in.
    await page.goto(`${ORIGIN}/cabinet/keys?mode=test`);
    await page.locator("input[name=name]").fill("ci");
    await page.getByTestId("create-key").click();
    const testKey = (await page.getByTestId("new-key").textContent())!.trim();
    expect(testKey).toMatch(/^pk_test_/);
    expect(await page.getByTestId("quickstart-curl").textContent()).toContain(`KEY=${testKey}`);
    expect(await page.getByTestId("quickstart-sdk").textContent()).toContain(`apiKey: "${testKey}"`);
    expect(await page.getByRole("link", { name: "test helpers" }).last().getAttribute("href")).toBe(
      `${ORIGIN}/docs#tag/Test-mode`,
    );
    expect(await page.locator("body").textContent()).not.toMatch(/docs\/[a-z-]+\.md/);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, "test-orders-00-quickstart");

    const order = await newOrder(testKey);
    const expiring = await newOrder(testKey);

    await page.goto(`${ORIGIN}/cabinet/orders/${order.short_id}?mode=test`);
    await expect.poll(() => badge(page).textContent(), SLOW).toBe("waiting_deposit");
    expect(await page.getByTestId("test-helpers").isVisible()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, "test-orders-01-waiting");

    await page.getByTestId("test-amount").fill("0.01");
    await press(page, "test-deposit");
    await expect.poll(() => badge(page).textContent(), SLOW).toBe("confirming");
    expect(await page.locator('[data-field="amount_from_received"]').textContent()).toBe("0.01");
    await shot(page, "test-orders-02-confirming");

    await press(page, "test-confirm");
    await expect.poll(() => badge(page).textContent(), SLOW).toBe("completed");
    const timeline = await page.getByTestId("timeline").textContent();
    for (const step of [
      "waiting_deposit → confirming",
      "confirming → exchanging",
      "exchanging → sending",
      "sending → completed",
    ])
      expect(timeline).toContain(step);
    // Explorer links: the tb1 deposit address on the testnet explorer; simulated txids and the
    // never-paid recipient have none.
    expect(await page.locator('[data-field="deposit_address"] a').getAttribute("href")).toMatch(
      /^https:\/\/mempool\.space\/testnet4\/address\/tb1/,
    );
    for (const field of ["deposit_txid", "payout_txid", "recipient_address"])
      expect(await page.locator(`[data-field="${field}"] a`).count()).toBe(0);
    await shot(page, "test-orders-03-completed");

    await page.goto(`${ORIGIN}/cabinet/orders/${expiring.short_id}`);
    await press(page, "test-expire");
    await expect.poll(() => badge(page).textContent(), SLOW).toBe("expired");
    // The expiry is logged on the order's own clock, 30 minutes ahead: shown at the real time it
    // happened, marked simulated.
    const times = await page
      .getByTestId("timeline")
      .locator("time")
      .evaluateAll((els) => els.map((e) => Date.parse(e.getAttribute("datetime") ?? "")));
    expect(times.length).toBeGreaterThanOrEqual(2);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    for (const t of times) expect(t).toBeLessThanOrEqual(Date.now() + 5_000);
    const marks = page.getByTestId("timeline").getByTestId("simulated");
    expect(await marks.count()).toBe(1);
    expect(await marks.textContent()).toMatch(/^simulated: \+(29|30) min$/);
    await shot(page, "test-orders-04-expired");

    // A live order: no test buttons (the POST is refused too: test/cabinet/orders.test.ts).
    await page.goto(`${ORIGIN}/cabinet/orders/${live.short_id}?mode=live`);
    await expect.poll(() => badge(page).textContent(), SLOW).toBe("waiting_deposit");
    expect(await page.getByTestId("test-helpers").count()).toBe(0);

    // The overview of test mode: the orders axis counts whole orders; $0.00 says why.
    await page.goto(`${ORIGIN}/cabinet/overview?mode=test`);
    await expect.poll(() => page.getByTestId("chart").getAttribute("data-order-ticks"), SLOW).toBeTruthy();
    const ticks = (await page.getByTestId("chart").getAttribute("data-order-ticks"))!.split(" ");
    expect(ticks.length).toBeGreaterThan(1);
    for (const t of ticks) expect(t).toMatch(/^\d+$/);
    const hint = page.locator('[data-window="Today"] [data-testid=markup-hint]');
    expect(await hint.textContent()).toContain("0 bps");
    expect(await hint.getByRole("link").getAttribute("href")).toBe("/cabinet/settings#markup");
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, "test-orders-05-overview");

    // Phone width: the header leaves the screen to the content.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    const top = await page.locator("main").evaluate((m) => m.getBoundingClientRect().top);
    expect(top).toBeLessThanOrEqual(120);
    expect(await page.locator("header.top nav >> text=Settings").count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${ARTIFACTS}/test-orders-06-overview-phone.png` });
    await page.goto(`${ORIGIN}/cabinet/orders/${order.short_id}`);
    await shot(page, "test-orders-07-order-phone");
    expect(errors).toEqual([]);
    await ctx.close();
  });
});
