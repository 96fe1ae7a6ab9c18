// The Webhooks page's event browser in Chromium against `wrangler dev`, with a local receiver that
// refuses with an HTML body until told otherwise: two test orders' events, the list filtered by one
// order's short_id, its payload and the receiver's answer read on the page, a resend that keeps the
// filter, and the CSV link downloading exactly the filtered events. axe-core checks the page at
// desktop and phone width. Screenshots go to test-artifacts/cabinet/ (40-…).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  ARTIFACTS,
  browserSession,
  depositedTestOrder,
  localServer,
  newKey,
  newPartner,
  ORIGIN,
  overflowX,
  RECEIVER_PORT,
  saveEndpointWithSecret,
  seriousViolations,
  shot,
  signInByInvite,
  withPasskeys,
} from "./harness";

const REFUSAL = "<b>not yet</b> — try again";

const suite = browserSession();

/** The partner's endpoint: answers 500 with an HTML body while `failing`, then 200 with JSON. */
let failing = true;
localServer(
  RECEIVER_PORT,
  (req, res) => {
    req.resume();
    req.on("end", () => {
      res.statusCode = failing ? 500 : 200;
      res.setHeader("content-type", failing ? "text/html" : "application/json");
      res.end(failing ? REFUSAL : '{"received":true}');
    });
  },
  "127.0.0.1",
);

describe("event browser in Chromium", () => {
  it("payload and answer on the page, short_id filter, resend keeps it, CSV of the filtered set", async () => {
    const partnerId = await newPartner("Event Wallet");
    const testKey = await newKey(partnerId, "test");
    const { ctx, page } = await withPasskeys(suite.browser());
    await signInByInvite(page, partnerId, "dev@event-wallet.example", "developer");
    await page.goto(`${ORIGIN}/cabinet/webhooks?mode=test`);
    await saveEndpointWithSecret(page, `http://127.0.0.1:${RECEIVER_PORT}/events`);

    // Two test orders, each moved once: an event for each, refused by the receiver.
    const first = await depositedTestOrder(testKey);
    const second = await depositedTestOrder(testKey);

    await page.goto(`${ORIGIN}/cabinet/webhooks`);
    await page.getByTestId("filter-order").fill(first.short_id.toLowerCase());
    await page.getByRole("button", { name: "Filter" }).click();
    const rows = page.locator("tr[data-event]");
    // Wait until the queue has made the event's first attempt (its answer is on the page).
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.locator("ol.attempts li").count();
        },
        { timeout: 20_000, interval: 1_000 },
      )
      .toBeGreaterThan(0);
    const shown = await rows.count();
    for (const text of await rows.allTextContents()) {
      expect(text).toContain(first.id);
      expect(text).not.toContain(second.id);
    }

    // The payload, indented JSON; the receiver's answer as text, not markup.
    const row = rows.first();
    await row.locator("summary", { hasText: "Payload" }).click();
    const payload = JSON.parse((await row.getByTestId("payload").textContent()) ?? "") as {
      type: string;
      data: { order: { id: string; short_id: string } };
    };
    expect(payload).toMatchObject({ type: "order.status_changed", data: { order: { id: first.id } } });
    expect(await row.getByTestId("payload").textContent()).toContain('\n  "type": "order.status_changed"');
    await row
      .locator("td summary")
      .filter({ hasText: /attempt/ })
      .click();
    await expect.poll(() => row.locator("ol.attempts").textContent(), { timeout: 15_000 }).toContain(REFUSAL);
    expect(await row.getByTestId("response-body").first().textContent()).toBe(REFUSAL);
    expect(await row.locator("ol.attempts li").first().textContent()).toMatch(/HTTP 500 · \d+ ms/);
    await row.locator("summary", { hasText: "Request headers" }).first().click();
    expect(await row.getByTestId("request-headers").first().textContent()).toMatch(
      /x-webhook-signaturet=\d{6}…x-webhook-id/,
    );
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, "40-event-browser-filtered");

    // Resend from the filtered list: delivered, and the list is still this order's.
    failing = false;
    await row.getByRole("button", { name: "Resend" }).click();
    await expect
      .poll(() => page.getByTestId("notice").textContent())
      .toMatch(/Resent — .*delivered \(HTTP 200\)/);
    expect(page.url()).toContain(`order_id=${first.id}`);
    expect(await page.getByTestId("filter-order").inputValue()).toBe(first.id);
    expect(await rows.count()).toBe(shown);
    for (const text of await rows.allTextContents()) expect(text).toContain(first.id);
    const resent = page.locator("tr[data-event]").first();
    await resent
      .locator("td summary")
      .filter({ hasText: /attempt/ })
      .click();
    await expect
      .poll(() => resent.getByTestId("response-body").allTextContents())
      .toEqual(expect.arrayContaining([REFUSAL, '{"received":true}']));
    await shot(page, "41-event-browser-resent");

    // The CSV link downloads the filtered events, and only them.
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByTestId("export-csv").click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^webhook-events-\d{8}T\d{6}\.csv$/);
    // The browser is remote (one Chromium for all files): the file is copied here to be read.
    const saved = join(ARTIFACTS, "event-browser-export.csv");
    await download.saveAs(saved);
    const lines = (await readFile(saved, "utf8")).trim().split("\r\n");
    expect(lines[0]).toMatch(/^created_at,event_id,type,order_id,/);
    const events = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-event")));
    expect(lines.slice(1).map((l) => l.split(",")[1])).toEqual(events);
    for (const l of lines.slice(1)) expect(l.split(",")[3]).toBe(first.id);

    // Phone width: no sideways scrolling, however long the payload's lines.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.locator("tr[data-event]").first().locator("summary", { hasText: "Payload" }).click();
    expect(await overflowX(page)).toBeLessThanOrEqual(0);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, "42-event-browser-phone");
    await ctx.close();
  });
});
