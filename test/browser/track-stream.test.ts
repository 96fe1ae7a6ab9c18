// The tracking page follows its order on the keyless event stream (docs/widget.md, docs/events.md)
// in Chromium against `wrangler dev`, whose streams close after 3 s here (global-setup.ts), as a
// proxy or the maximum connection time would drop them. The test counts the page's requests: no
// status poll while the stream is up, an update from the stream after a drop, polling while the
// stream is refused, and back to the stream after. Screenshots: test-artifacts/cabinet/track-stream-*.png.
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { browserSession, newKey, newOrder, newPartner, ORIGIN, shot } from "./harness";

const suite = browserSession();

const helper = (key: string, id: string, step: string) =>
  fetch(`${ORIGIN}/api/v1/partner/test/orders/${id}/${step}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: "{}",
  }).then((r) => expect(r.status).toBe(200));

const statusOf = (page: Page) => page.getByTestId("status").getAttribute("data-status");

it("updates from the stream with no polling, survives a dropped stream, polls while it is refused and returns to it", async () => {
  const key = await newKey(await newPartner("Stream Wallet"), "test");
  const order = await newOrder(key);
  const ctx = await suite.browser().newContext({ viewport: { width: 390, height: 844 }, locale: "en-US" });
  const page = await ctx.newPage();
  const path = new URL(order.tracking_url).pathname.replace("/track/", "/api/v1/orders/");
  const seen = { polls: 0, streams: 0, opened: 0 };
  page.on("request", (r) => {
    if (r.url().startsWith(`${ORIGIN}${path}/status`)) seen.polls++;
    if (r.url().startsWith(`${ORIGIN}${path}/events`)) seen.streams++;
  });
  page.on("response", (r) => {
    if (r.url().startsWith(`${ORIGIN}${path}/events`) && r.status() === 200) seen.opened++;
  });

  await page.goto(order.tracking_url);
  expect(await statusOf(page)).toBe("waiting_deposit");
  await expect.poll(() => seen.opened).toBe(1);
  // The server drops the stream after 3 s; EventSource comes back by itself.
  await expect.poll(() => seen.opened, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
  await helper(key, order.id, "deposit");
  await expect.poll(() => statusOf(page), { timeout: 10_000 }).toBe("confirming");
  expect(seen.polls).toBe(0);
  await shot(page, "track-stream-confirming-390");

  // Refused streams: the page polls the status API until the stream takes again.
  await page.route(`**${path}/events*`, (route) => route.abort());
  await expect.poll(() => seen.polls, { timeout: 15_000 }).toBeGreaterThan(0);
  await page.unroute(`**${path}/events*`);
  const opened = seen.opened;
  await expect.poll(() => seen.opened, { timeout: 15_000 }).toBeGreaterThan(opened);
  await page.waitForTimeout(300);
  const polls = seen.polls;
  await helper(key, order.id, "confirm");
  await expect.poll(() => statusOf(page), { timeout: 10_000 }).toBe("completed");
  expect(seen.polls).toBe(polls);
  await shot(page, "track-stream-completed-390");
  await ctx.close();
}, 60_000);
