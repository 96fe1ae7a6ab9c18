// The cabinet's order pages in Chromium against `wrangler dev` (chain polled every second):
// orders made through the API, found by lower-case short_id and by deposit address, one driven
// with SimChain to `completed` while its open detail page follows by itself, the CSV downloaded
// and read, an underpaid order refunded from its detail page with a typed-in address, and the
// overview and earnings pages. Screenshots go to test-artifacts/cabinet/.
import { text } from "node:stream/consumers";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  admin,
  browserSession,
  landOn,
  newKey,
  newOrder,
  newPartner,
  ORDER,
  ORIGIN,
  type Order,
  orderStatus,
  shot,
  signInByInvite,
  withPasskeys,
} from "./harness";

// The shared Worker polls the chain every second (global-setup.ts).
const suite = browserSession();

const TRON = ORDER.recipient_address;
const METADATA = { customer: "u-7731", campaign: "spring-sale", note: "pays in two parts" };
const REFUND_TO = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";

async function deposit(o: Order, amount: string): Promise<void> {
  expect((await admin("/sim/BTC/transfers", { json: { to: o.deposit_address, amount } })).status).toBe(201);
  expect((await admin("/sim/BTC/blocks", { json: { count: 2 } })).status).toBe(200);
}

const rows = (page: Page) => page.locator("tr[data-order-id]");
const badge = (page: Page) => page.locator("h1 [data-testid=status]");

describe("cabinet orders in Chromium", () => {
  it("find, follow to completed, export, refund an underpaid order, overview and earnings", async () => {
    const partnerId = await newPartner("Orders Wallet", { markup_bps: 100 });
    const key = await newKey(partnerId);
    const orders = [
      await newOrder(key),
      await newOrder(key, { ...ORDER, rate_type: "fixed" }),
      await newOrder(key, { ...ORDER, partner_order_id: "inv-2026-0042", metadata: METADATA }),
    ];

    const { ctx, page } = await withPasskeys(suite.browser());
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await signInByInvite(page, partnerId, "ops@orders-wallet.example", "admin");

    // The list, then a search by lower-case short_id and one by deposit address.
    await page.getByRole("link", { name: "Orders", exact: true }).click();
    await landOn(page, "/cabinet/orders");
    await expect.poll(() => rows(page).count()).toBe(3);
    await shot(page, "orders-10-orders");
    const target = orders[1]!;
    await page.getByTestId("search").fill(target.short_id.toLowerCase());
    await page.getByRole("button", { name: "Apply" }).click();
    await expect.poll(() => rows(page).count()).toBe(1);
    expect(await rows(page).first().getAttribute("data-order-id")).toBe(target.id);
    await page.getByTestId("search").fill(orders[2]!.deposit_address);
    await page.getByRole("button", { name: "Apply" }).click();
    await expect.poll(() => rows(page).count()).toBe(1);
    expect(await rows(page).first().getAttribute("data-order-id")).toBe(orders[2]!.id);
    await shot(page, "orders-11-orders-search");

    // Open it (two clicks from the list) and drive it to completed: the page follows by itself.
    await rows(page).first().getByRole("link").click();
    await expect.poll(() => badge(page).textContent()).toBe("waiting_deposit");
    await shot(page, "orders-12-order-waiting");
    const url = page.url();
    await deposit(orders[2]!, "0.01");
    await expect.poll(() => badge(page).textContent(), { timeout: 60_000, interval: 500 }).toBe("completed");
    expect(page.url()).toBe(url);
    expect(await page.locator('[data-field="payout_txid"]').textContent()).toMatch(/^[0-9a-f]{64}$/);
    expect(await page.getByTestId("timeline").textContent()).toContain("sending → completed");
    // The partner's reference and metadata, each pair on its own line (issue 28 §8).
    expect(await page.locator('[data-field="partner_order_id"]').textContent()).toBe("inv-2026-0042");
    const pairs = page.getByTestId("metadata");
    expect(await pairs.locator("dt").allTextContents()).toEqual(Object.keys(METADATA));
    expect(await pairs.locator("dd").allTextContents()).toEqual(Object.values(METADATA));
    await shot(page, "orders-13-order-completed");

    // The CSV of every order, downloaded.
    await page.goto(`${ORIGIN}/cabinet/orders`);
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByTestId("export-csv").click(),
    ]);
    // Read through the connection: the file lives with the shared browser (global-setup.ts).
    const csv = (await text(await download.createReadStream())).trimEnd().split("\r\n");
    expect(csv[0]).toMatch(/^id,short_id,status,/);
    expect(csv.slice(1).map((l) => l.split(",")[0])).toEqual(orders.map((o) => o.id).reverse());
    // 1 % of 0.01 BTC, valued at the (simulated) BTC price of the completion moment.
    const completed = csv.find((l) => l.startsWith(orders[2]!.id))!;
    // …, markup, markup in USD, the public view's columns, then the order's tracking_url and status_url.
    const row = /,completed,.*,0\.0001,(\d+(?:\.\d+)?),.*,http[^,]+\/track\/[^,]+,http[^,]+\/status$/.exec(
      completed,
    );
    expect(row, completed).not.toBeNull();
    const earned = `$${Number(row?.[1]).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

    // An underpaid order waits in failed with a refund to decide: type an address, confirm, refunded.
    const under = await newOrder(key);
    await deposit(under, "0.0003");
    await expect.poll(() => orderStatus(key, under.id), { timeout: 60_000, interval: 500 }).toBe("failed");
    await page.goto(`${ORIGIN}/cabinet/orders/${under.short_id}`);
    const address = page.getByTestId("refund-address");
    await address.fill(TRON);
    await expect.poll(() => page.locator("[data-check]").textContent()).toMatch(/not a valid BTC address/);
    await shot(page, "orders-14-refund-invalid-address");
    await address.fill(REFUND_TO);
    await expect.poll(() => page.locator("[data-check]").textContent()).toBe("Valid address.");
    await shot(page, "orders-15-refund-ready");
    let asked = "";
    page.removeAllListeners("dialog");
    page.on("dialog", (d) => {
      asked = d.message();
      void d.accept();
    });
    await page.getByTestId("refund").click();
    await expect.poll(() => badge(page).textContent(), { timeout: 60_000, interval: 500 }).toBe("refunded");
    expect(asked).toMatch(/^Refund 0\.0002 BTC\?/);
    expect(await page.locator('[data-field="refund_address"]').textContent()).toBe(REFUND_TO);
    expect(await page.getByTestId("actions").count()).toBe(0);
    await shot(page, "orders-16-order-refunded");

    await page.getByRole("link", { name: "Overview" }).click();
    await landOn(page, "/cabinet/overview");
    await expect.poll(() => page.locator("[data-testid=chart] canvas").count()).toBe(1);
    expect(await page.locator('[data-window="Today"] [data-testid=earnings]').textContent()).toBe(earned);
    await shot(page, "orders-17-overview");
    await page.getByRole("link", { name: "Earnings" }).click();
    await landOn(page, "/cabinet/earnings");
    expect(await page.getByTestId("total-usd").textContent()).toBe(earned);
    await shot(page, "orders-18-earnings");

    // Phone width: list, detail, overview.
    await page.setViewportSize({ width: 390, height: 800 });
    await page.goto(`${ORIGIN}/cabinet/orders`);
    await shot(page, "orders-19-orders-phone");
    await page.goto(`${ORIGIN}/cabinet/orders/${orders[2]!.short_id}`);
    await shot(page, "orders-20-order-phone");
    await page.goto(`${ORIGIN}/cabinet/overview`);
    await expect.poll(() => page.locator("[data-testid=chart] canvas").count()).toBe(1);
    await shot(page, "orders-21-overview-phone");
    expect(errors).toEqual([]);
    await ctx.close();
  });
});
