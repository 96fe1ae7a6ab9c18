// The end user's side in Chromium against `wrangler dev` (docs/widget.md): a shop page on another
// local origin embeds a test widget with widget.js, a visitor at phone width swaps through it (the
// test helpers drive the deposit) and watches the tracking page reach completed inside the frame;
// the QR code decodes to exactly the deposit address; another origin is refused framing; a locked
// recipient cannot be changed; a referral-link order is the partner's; the cabinet's Widgets page.
// axe-core checks the widget, tracking and referral pages. Screenshots go to test-artifacts/cabinet/.
import jsQR from "jsqr";
import type { Frame, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  admin,
  browserSession,
  landOn,
  localServer,
  newKey,
  newPartner,
  ORIGIN,
  overflowX,
  PORT,
  seriousViolations,
  shot,
  signInByInvite,
  withPasskeys,
} from "./harness";

const suite = browserSession();
const TRON = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
const OTHER_TRON = "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7";
const PHONE = { width: 390, height: 844 };

// The shop: a page on another origin of this machine (a port of the test's range), which pastes
// the snippet. 127.0.0.1 is the allowed origin; localhost on the same port is another origin.
const SHOP_PORT = PORT + 5;
const SHOP = `http://127.0.0.1:${SHOP_PORT}`;
const STRANGER = `http://localhost:${SHOP_PORT}`;
localServer(SHOP_PORT, (req, res) => {
  const wid = new URL(req.url ?? "/", SHOP).searchParams.get("wid") ?? "";
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
  res.end(`<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width, initial-scale=1"><title>Shop</title></head>
<body style="margin:0;font-family:sans-serif"><h1 style="padding:0 12px">Shop</h1><p style="padding:0 12px">Top up your wallet:</p>
<script src="${ORIGIN}/widget.js" data-widget="${wid}" async></script></body></html>`);
});

/** Draws the page's QR code (an inline SVG) on a canvas and decodes it with jsQR. */
async function decodeQr(target: Page | Frame, page: Page): Promise<string | null> {
  const svg = await target.locator("[data-testid=qr] svg").evaluate((el) => el.outerHTML);
  // Drawn in the shop page (no CSP there), from the SVG's markup.
  const pixels = (await page.evaluate(`(async (markup) => {
    const img = new Image();
    img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(markup);
    await img.decode();
    const canvas = document.createElement("canvas");
    canvas.width = 400;
    canvas.height = 400;
    const ctx = canvas.getContext("2d");
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, 400, 400);
    ctx.drawImage(img, 0, 0, 400, 400);
    return Array.from(ctx.getImageData(0, 0, 400, 400).data);
  })(${JSON.stringify(svg)})`)) as number[];
  return jsQR(Uint8ClampedArray.from(pixels), 400, 400)?.data ?? null;
}

async function partnerWithKeys(name: string) {
  const id = await newPartner(name, { markup_bps: 100 });
  return { id, live: await newKey(id), test: await newKey(id, "test") };
}

async function widget(partnerId: string, body: Record<string, unknown>): Promise<string> {
  const res = await admin(`/partners/${partnerId}/widgets`, { json: body });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function testHelper(key: string, orderId: string, name: string) {
  const res = await fetch(`${ORIGIN}/api/v1/partner/test/orders/${orderId}/${name}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}` },
  });
  expect(res.status).toBe(200);
}

async function orderOf(key: string, id: string) {
  const res = await fetch(`${ORIGIN}/api/v1/partner/orders/${id}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as {
    status: string;
    source: string;
    widget_id: string;
    recipient_address: string;
    livemode: boolean;
    tracking_url: string;
  };
}

/** The widget's frame once its form is there; on failure, what the frame shows instead. */
async function widgetFrame(page: Page, wid: string): Promise<Frame> {
  await page.waitForSelector(`iframe[src*="/widget/${wid}"]`);
  const find = () => page.frames().find((f) => f.url().startsWith(`${ORIGIN}/widget/${wid}`));
  try {
    await expect
      .poll(async () => (await find()?.locator("form[data-swap-form]").count()) ?? 0, { timeout: 15_000 })
      .toBe(1);
  } catch (err) {
    await shot(page, `failed-widget-frame-${wid}`).catch(() => undefined);
    const text = await find()
      ?.locator("body")
      .textContent()
      .catch(() => null);
    throw new Error(
      `no widget form in the frame (${find()?.url() ?? "no frame"}; it shows: ${text}): ${err}`,
    );
  }
  const frame = find();
  if (!frame) throw new Error("no widget frame");
  return frame;
}

describe("the end user's side in Chromium", () => {
  it("a test swap through the embedded widget, from the form to the tracking page showing completed", async () => {
    const p = await partnerWithKeys("Widget Shop");
    const wid = await widget(p.id, {
      mode: "test",
      allowed_origins: [SHOP],
      theme: { accent: "#0f766e", scheme: "light" },
      default_pair: { coin_from: "BTC", network_from: "BTC", coin_to: "USDT", network_to: "TRX" },
      default_amount: "0.01",
    });
    const ctx = await suite.browser().newContext({ viewport: PHONE, locale: "en-US" });
    const page = await ctx.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${SHOP}/?wid=${wid}`);
    const frame = await widgetFrame(page, wid);

    // The quote with the partner's markup appears by itself; the frame grows to its content.
    await expect
      .poll(() => frame.locator("[data-quote-out]").textContent(), { timeout: 15_000 })
      .toMatch(/≈ [\d,.]+ USDT/);
    await expect
      .poll(() => page.locator("iframe").getAttribute("style"), { timeout: 10_000 })
      .not.toContain("height: 620px");
    // The address is checked as it is typed, with the API's rules.
    const recipient = frame.locator("#recipient_address");
    await recipient.fill("TNotAnAddress");
    await expect
      .poll(() => frame.locator("#recipient-hint").textContent(), { timeout: 10_000 })
      .toMatch(/Not a valid TRX address/);
    await recipient.fill(TRON);
    await expect
      .poll(() => frame.locator("#recipient-hint").textContent(), { timeout: 10_000 })
      .toBe("Valid TRX address.");
    expect(await overflowX(page)).toBeLessThanOrEqual(0);
    expect(await overflowX(frame)).toBeLessThanOrEqual(0);
    expect(await seriousViolations(frame)).toEqual([]);
    await shot(page, "widget-01-embedded-form-390");

    await frame.getByRole("button", { name: "Exchange" }).click();
    await expect
      .poll(() => frame.url(), { timeout: 15_000 })
      .toMatch(/\/widget\/wid_\w+\/track\/[0-9a-f-]{36}/);
    await frame.waitForSelector("[data-testid=deposit-address]");
    const orderId = /track\/([0-9a-f-]{36})/.exec(frame.url())?.[1] ?? "";
    const order = await orderOf(p.test, orderId);
    expect(order).toMatchObject({
      source: "widget",
      widget_id: wid,
      livemode: false,
      recipient_address: TRON,
    });
    const address = (await frame.getByTestId("deposit-address").textContent())?.trim() ?? "";
    expect(address.length).toBeGreaterThan(20);
    expect(await decodeQr(frame, page)).toBe(address);
    expect(await overflowX(frame)).toBeLessThanOrEqual(0);
    expect(await seriousViolations(frame)).toEqual([]);
    await shot(page, "widget-02-deposit-screen-390");

    // The test helpers send and confirm the deposit; the tracking page follows by itself.
    await testHelper(p.test, orderId, "deposit");
    await testHelper(p.test, orderId, "confirm");
    await expect
      .poll(() => frame.getByTestId("status").getAttribute("data-status"), { timeout: 30_000, interval: 500 })
      .toBe("completed");
    expect(await frame.locator("ol.timeline").textContent()).toContain("Sent");
    expect(await seriousViolations(frame)).toEqual([]);
    await shot(page, "widget-03-tracking-completed-390");

    // The same tracking page on its own, as the order's tracking_url: the one the frame shows.
    expect(new URL(frame.url()).pathname).toBe(`/widget/${wid}${new URL(order.tracking_url).pathname}`);
    const own = await ctx.newPage();
    await own.goto(order.tracking_url);
    expect(await own.getByTestId("status").getAttribute("data-status")).toBe("completed");
    expect(await overflowX(own)).toBeLessThanOrEqual(0);
    expect(await seriousViolations(own)).toEqual([]);
    await shot(own, "widget-04-track-page-390");
    expect(errors).toEqual([]);
    await ctx.close();
  }, 300_000);

  it("a page on an origin the widget does not allow is refused framing", async () => {
    const p = await partnerWithKeys("Widget Stranger");
    const wid = await widget(p.id, { mode: "test", allowed_origins: [SHOP] });
    const ctx = await suite.browser().newContext({ viewport: PHONE, locale: "en-US" });
    const page = await ctx.newPage();
    const refusals: string[] = [];
    page.on("console", (m) => {
      if (/frame-ancestors/.test(m.text())) refusals.push(m.text());
    });
    await page.goto(`${STRANGER}/?wid=${wid}`);
    await page.waitForSelector(`iframe[src*="/widget/${wid}"]`);
    await expect.poll(() => refusals.length, { timeout: 15_000 }).toBeGreaterThan(0);
    expect(refusals[0]).toContain(`Framing '${ORIGIN}/' violates`);
    expect(refusals[0]).toContain(`"frame-ancestors 'self' ${SHOP}"`);
    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(frame ? await frame.locator("form[data-swap-form]").count() : 0).toBe(0);
    await shot(page, "widget-05-stranger-refused");
    await ctx.close();
  });

  it("a locked recipient cannot be changed; a referral-link order is the partner's", async () => {
    const p = await partnerWithKeys("Widget Wallet");
    const locked = await widget(p.id, {
      mode: "test",
      allowed_origins: [SHOP],
      theme: { accent: "#7c3aed", scheme: "dark" },
      default_pair: { coin_from: "BTC", network_from: "BTC", coin_to: "USDT", network_to: "TRX" },
      default_amount: "0.02",
      locked_recipient: { address: TRON, network: "TRX" },
    });
    const ctx = await suite.browser().newContext({ viewport: PHONE, locale: "en-US" });
    const page = await ctx.newPage();
    await page.goto(`${SHOP}/?wid=${locked}`);
    const frame = await widgetFrame(page, locked);
    const field = frame.getByTestId("locked-recipient");
    expect(await field.getAttribute("readonly")).not.toBeNull();
    await field.click();
    await page.keyboard.type(OTHER_TRON);
    expect(await field.inputValue()).toBe(TRON);
    // Only payout coins on the locked network are offered.
    const networks: string[] = [];
    for (const o of await frame.locator("select[name=to] option").all())
      networks.push(((await o.getAttribute("value")) ?? "").split(":")[1] ?? "");
    expect(new Set(networks)).toEqual(new Set(["TRX"]));
    expect(await seriousViolations(frame)).toEqual([]);
    await shot(page, "widget-06-locked-recipient-dark-390");
    await frame.getByRole("button", { name: "Exchange" }).click();
    await expect.poll(() => frame.url(), { timeout: 15_000 }).toMatch(/\/track\//);
    const lockedOrder = /track\/([0-9a-f-]{36})/.exec(frame.url())?.[1] ?? "";
    expect((await orderOf(p.test, lockedOrder)).recipient_address).toBe(TRON);

    // The referral link: the same flow as a page; the order is the partner's, through this link.
    const referral = await widget(p.id, { mode: "test", allowed_origins: [SHOP] });
    await page.goto(`${ORIGIN}/swap?ref=${referral}`);
    await page.selectOption("select[name=from]", "BTC:BTC");
    await page.selectOption("select[name=to]", "USDT:TRX");
    await page.fill("#amount_from", "0.01");
    await page.fill("#recipient_address", TRON);
    await expect
      .poll(() => page.locator("[data-quote-out]").textContent(), { timeout: 15_000 })
      .toMatch(/USDT/);
    expect(await overflowX(page)).toBeLessThanOrEqual(0);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, "widget-07-referral-page-390");
    await page.getByRole("button", { name: "Exchange" }).click();
    await page.waitForURL(/\/track\/[0-9a-f-]{36}\.[0-9a-f]{32}$/);
    const refOrder = /track\/([0-9a-f-]{36})/.exec(page.url())?.[1] ?? "";
    expect(await orderOf(p.test, refOrder)).toMatchObject({ source: "widget", widget_id: referral });
    await ctx.close();
  });

  it("the cabinet's Widgets page: create one, see its snippet, preview and 30-day counts", async () => {
    const p = await partnerWithKeys("Widget Cabinet");
    const { ctx, page } = await withPasskeys(suite.browser());
    await signInByInvite(page, p.id, "dev@widget-cabinet.example", "admin");
    await page.getByRole("link", { name: "Widgets", exact: true }).click();
    await landOn(page, "/cabinet/widgets");
    await page.fill("textarea[name=allowed_origins]", SHOP);
    await page.fill("input[name=name]", "Checkout");
    await page.selectOption("select[name=pair_from]", "BTC:BTC");
    await page.selectOption("select[name=pair_to]", "USDT:TRX");
    await page.getByRole("button", { name: "Create widget" }).click();
    await expect
      .poll(() => page.getByTestId("notice").textContent(), { timeout: 10_000 })
      .toMatch(/Created wid_/);
    const wid = /(wid_\w{20})/.exec((await page.getByTestId("notice").textContent()) ?? "")?.[1] ?? "";
    expect(await page.getByTestId("snippet").inputValue()).toBe(
      `<script src="${ORIGIN}/widget.js" data-widget="${wid}" async></script>`,
    );
    // A view of the referral link and an order through it show in the counts.
    const visitor = await ctx.newPage();
    await visitor.goto(`${ORIGIN}/swap?ref=${wid}`);
    await visitor.fill("#amount_from", "0.01");
    await visitor.fill("#recipient_address", TRON);
    await visitor.getByRole("button", { name: "Exchange" }).click();
    await visitor.waitForURL(/\/track\//);
    await page.goto(`${ORIGIN}/cabinet/widgets`);
    await expect
      .poll(async () => page.locator(`[data-widget=${wid}] [data-testid=funnel]`).textContent(), {
        timeout: 10_000,
      })
      .toMatch(/1 view → 1 order → 0 completed/);
    await page.locator(`[data-widget=${wid}] summary`).click();
    await page.waitForTimeout(1500);
    await shot(page, "widget-08-cabinet-widgets");
    await ctx.close();
  });
});
