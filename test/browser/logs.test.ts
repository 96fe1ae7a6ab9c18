// The cabinet's Logs page in Chromium against `wrangler dev`: requests made with a key show with
// their request ids within seconds; filters (request id, order short id, status) and the detail
// view with the error body. Screenshots in test-artifacts/cabinet/logs-*.png.
import { describe, expect, it } from "vitest";
import {
  browserSession,
  landOn,
  newKey,
  newOrder,
  newPartner,
  ORIGIN,
  shot,
  signInByInvite,
  withPasskeys,
} from "./harness";

const suite = browserSession();

describe("cabinet Logs in Chromium", () => {
  it("shows a keyed request with its request id within seconds; filters and the detail view", async () => {
    const partnerId = await newPartner("Logs Wallet");
    const key = await newKey(partnerId);
    const { ctx, page } = await withPasskeys(suite.browser());
    await signInByInvite(page, partnerId, "dev@logs-wallet.example", "developer");

    const order = await newOrder(key);
    const missing = await fetch(`${ORIGIN}/api/v1/partner/orders/NOPE-NOPE`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(missing.status).toBe(404);
    const requestId = missing.headers.get("x-request-id") ?? "";
    const answered = Date.now();

    await page.getByRole("link", { name: "Logs", exact: true }).click();
    await landOn(page, "/cabinet/logs");
    const row = page.locator(`tr[data-request-id="${requestId}"]`);
    await expect
      .poll(
        async () => {
          if ((await row.count()) === 0) await page.reload();
          return row.count();
        },
        { timeout: 10_000, interval: 500 },
      )
      .toBe(1);
    expect(Date.now() - answered).toBeLessThan(10_000);
    // Both requests, newest first (the creation may land a flush later than the 404 on a busy machine).
    const texts = () => page.locator("table[data-testid=logs] tbody tr").allTextContents();
    await expect
      .poll(
        async () => {
          const now = await texts();
          if (now.length < 2) await page.reload();
          return now.map((t) =>
            /(GET|POST)\/api\/v1\/partner\/orders\S*?(201|404)/.exec(t)?.slice(1, 3).join(" "),
          );
        },
        { timeout: 10_000, interval: 500 },
      )
      .toEqual(["GET 404", "POST 201"]);
    expect(await row.textContent()).toContain("order_not_found");
    await shot(page, "logs-01-list");

    // Filter by the order's short id (lower case, as typed): the creation only.
    await page.getByTestId("filter-order_id").fill(order.short_id.toLowerCase());
    await page.getByRole("button", { name: "Apply" }).click();
    await expect.poll(() => page.locator("table[data-testid=logs] tbody tr").count()).toBe(1);
    expect(await page.locator("table[data-testid=logs]").textContent()).toContain("201");
    expect(page.url()).toContain(`order_id=${order.short_id.toLowerCase()}`);

    // Status class, then the request id; the detail view shows the body we answered.
    await page.goto(`${ORIGIN}/cabinet/logs`);
    await page.getByTestId("filter-status").selectOption("4xx");
    await page.getByTestId("filter-request_id").fill(requestId);
    await page.getByRole("button", { name: "Apply" }).click();
    await expect.poll(() => page.locator("table[data-testid=logs] tbody tr").count()).toBe(1);
    await shot(page, "logs-02-filtered");
    await row.getByRole("link").click();
    await expect
      .poll(() => page.getByTestId("error-body").textContent())
      .toContain('"code":"order_not_found"');
    expect(await page.getByTestId("log-entry").textContent()).toContain(requestId);
    await shot(page, "logs-03-detail");

    // A filter that is not one: said, not silently ignored.
    await page.goto(`${ORIGIN}/cabinet/logs?order_id=not-an-order`);
    expect(await page.locator("p.error").textContent()).toContain("order id or short id");
    await ctx.close();
  });
});
