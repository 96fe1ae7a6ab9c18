// A test order in the cabinet, in Chromium against `wrangler dev` (docs/test-mode.md): the test
// helper buttons drive one from waiting_deposit to completed and another to expired, the page
// showing each status as it comes; explorer links only where a testnet explorer shows the thing;
// a live order's page has no buttons. axe-core checks the page.
// Screenshots go to test-artifacts/cabinet/.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  admin,
  browserSession,
  inviteUrl,
  landOn,
  ORDER,
  ORIGIN,
  postOrder,
  seriousViolations,
  shot,
  withPasskeys,
} from "./harness";

const suite = browserSession();

interface Order {
  id: string;
  short_id: string;
}

async function createOrder(key: string): Promise<Order> {
  const res = await postOrder(key, ORDER);
  expect(res.status).toBe(201);
  return (await res.json()) as Order;
}

async function keyOf(partnerId: string, mode: "live" | "test"): Promise<string> {
  const res = await admin(`/partners/${partnerId}/keys`, { json: { mode } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { key: string }).key;
}

const badge = (page: Page) => page.locator("h1 [data-testid=status]");
// The machine the suite runs on may be busy: a page load can take seconds.
const SLOW = { timeout: 30_000, interval: 250 };

/** Clicks a test button and waits for the page it posts to (the order after the helper). */
async function press(page: Page, testid: string): Promise<void> {
  await Promise.all([page.waitForURL(/\/cabinet\/orders\/[0-9a-f-]{36}$/), page.getByTestId(testid).click()]);
}

describe("test orders in the cabinet", () => {
  it("the test buttons drive a test order to completed and another to expired; a live order has none", async () => {
    const partner = (await (await admin("/partners", { json: { name: "Test Buttons Wallet" } })).json()) as {
      id: string;
    };
    const testKey = await keyOf(partner.id, "test");
    const liveKey = await keyOf(partner.id, "live");
    const order = await createOrder(testKey);
    const expiring = await createOrder(testKey);
    const live = await createOrder(liveKey);

    const { ctx, page } = await withPasskeys(suite.browser());
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(await inviteUrl(partner.id, "dev@test-buttons.example", "developer"));
    await page.getByRole("button", { name: "Create passkey and sign in" }).click();
    await landOn(page, "/cabinet/keys");

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
    await shot(page, "test-orders-04-expired");

    // A live order: no test buttons (the POST is refused too: test/cabinet/orders.test.ts).
    await page.goto(`${ORIGIN}/cabinet/orders/${live.short_id}?mode=live`);
    await expect.poll(() => badge(page).textContent(), SLOW).toBe("waiting_deposit");
    expect(await page.getByTestId("test-helpers").count()).toBe(0);
    expect(errors).toEqual([]);
    await ctx.close();
  });
});
