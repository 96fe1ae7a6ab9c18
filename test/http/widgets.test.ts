/**
 * Widgets and referral links through the HTTP surface (docs/widget.md): the operator's widget API,
 * the widget's pages and their framing rules, orders created through a widget or referral link
 * (attribution, the locked recipient, test mode), the per-IP creation limit, and Turnstile.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { HttpResponse, http } from "msw";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { SITEVERIFY_URL } from "../../src/adapters/turnstile";
import type { WebhookEvent } from "../../src/domain/webhooks";
import worker from "../../src/index";
import {
  admin,
  call,
  createPartner,
  expectError,
  freshIp,
  json,
  setPrices,
  type TestPartner,
} from "../helpers";
import { acceptInvite, cab, invite, partnerWithAdmin, stepUp } from "../support/cabinet";
import { createMockNetwork } from "../support/msw";
import {
  BTC_REFUND,
  BTC_TO_USDT,
  createOrder,
  indexed,
  type Order,
  read,
  simSend,
  startClock,
  step,
  TRON_ADDR,
} from "../support/orders";

const OTHER_TRON = "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7";
const SHOP = "https://shop.example";

interface WidgetBody {
  id: string;
  name: string;
  mode: string;
  allowed_origins: string[];
  embed_url: string;
  referral_url: string;
  locked_recipient: { address: string; network: string } | null;
  revoked_at: string | null;
}

let p: TestPartner;

beforeAll(async () => {
  await setPrices();
  p = await createPartner({ name: "widget-wallet", markup_bps: 100, rate_limit_per_minute: 100_000 });
});

afterEach(() => {
  vi.useRealTimers();
});

async function newWidget(body: Record<string, unknown> = {}, partnerId = p.id): Promise<WidgetBody> {
  const res = await admin(`/partners/${partnerId}/widgets`, {
    method: "POST",
    json: { allowed_origins: [SHOP], ...body },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return json<WidgetBody>(res);
}

const FORM = {
  from: "BTC:BTC",
  to: "USDT:TRX",
  amount_from: "0.01",
  rate_type: "float",
  recipient_address: TRON_ADDR,
};

function post(path: string, fields: Record<string, string>, ip = freshIp()): Promise<Response> {
  return call(path, {
    method: "POST",
    body: new URLSearchParams({ nonce: crypto.randomUUID(), ...fields }),
    headers: { "content-type": "application/x-www-form-urlencoded", "cf-connecting-ip": ip },
    redirect: "manual",
  });
}

/** The order id a successful form post redirects to. */
function createdId(res: Response): string {
  expect(res.status).toBe(303);
  const id = /\/track\/([0-9a-f-]{36})/.exec(res.headers.get("location") ?? "")?.[1];
  expect(id).toBeTruthy();
  return id ?? "";
}

/** A request to the Worker under other settings (config is read from the env it is given). */
async function callWith(customEnv: Env, path: string, init: RequestInit = {}, ip = freshIp()) {
  const ctx = createExecutionContext();
  const headers = new Headers(init.headers);
  headers.set("cf-connecting-ip", ip);
  const res = await worker.fetch(
    new Request(`http://localhost${path}`, { ...init, headers }),
    customEnv,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

const countOrders = async (widgetId: string) =>
  (
    await env.DB.prepare("SELECT COUNT(*) AS n FROM orders WHERE widget_id = ?")
      .bind(widgetId)
      .first<{ n: number }>()
  )?.n ?? 0;

describe("the operator's widget API", () => {
  it("creates, lists and revokes a partner's widgets; bad settings are refused with nothing created", async () => {
    const w = await newWidget({
      mode: "test",
      name: "Shop",
      allowed_origins: ["https://Shop.example/", "http://localhost:3000"],
      theme: { accent: "#aa3300", scheme: "dark" },
      default_pair: { coin_from: "btc", network_from: "btc", coin_to: "usdt", network_to: "trx" },
      default_amount: "0.05",
      coins: ["BTC", "USDT"],
    });
    expect(w.id).toMatch(/^wid_[A-Za-z0-9]{20}$/);
    expect(w).toMatchObject({ mode: "test", allowed_origins: [SHOP, "http://localhost:3000"] });
    expect(w.embed_url).toBe(`http://localhost/widget/${w.id}`);
    expect(w.referral_url).toBe(`http://localhost/swap?ref=${w.id}`);

    const bad: [Record<string, unknown>, number, string][] = [
      [{ allowed_origins: ["http://shop.example"] }, 400, "invalid_origin"],
      [{ allowed_origins: ["https://shop.example/path"] }, 400, "invalid_origin"],
      [{ allowed_origins: ["https://*.example.com"] }, 400, "invalid_origin"],
      [{ allowed_origins: [] }, 400, "invalid_request"],
      [{ theme: { accent: "red" } }, 400, "invalid_request"],
      [{ coins: ["NOPE"] }, 422, "invalid_widget"],
      [{ locked_recipient: { address: "not-an-address", network: "TRX" } }, 422, "invalid_address"],
    ];
    const before = (await json<{ data: unknown[] }>(await admin(`/partners/${p.id}/widgets`))).data.length;
    for (const [body, status, code] of bad)
      await expectError(
        await admin(`/partners/${p.id}/widgets`, {
          method: "POST",
          json: { allowed_origins: [SHOP], ...body },
        }),
        status,
        code,
      );
    const listed = (await json<{ data: WidgetBody[] }>(await admin(`/partners/${p.id}/widgets`))).data;
    expect(listed.length).toBe(before);
    expect(listed.map((x) => x.id)).toContain(w.id);

    expect((await admin(`/partners/${p.id}/widgets/${w.id}`, { method: "DELETE" })).status).toBe(204);
    await expectError(
      await admin(`/partners/${p.id}/widgets/${w.id}`, { method: "DELETE" }),
      404,
      "widget_not_found",
    );
    const after = (await json<{ data: WidgetBody[] }>(await admin(`/partners/${p.id}/widgets`))).data;
    expect(after.find((x) => x.id === w.id)?.revoked_at).toBeTruthy();
  });
});

describe("the cabinet's Widgets page", () => {
  it("refuses bad settings with the API's statuses and creates nothing", async () => {
    const m = await partnerWithAdmin("dev@widget-page.example");
    const submit = (fields: Record<string, string>) =>
      cab("/widgets", { cookie: m.cookie, csrf: m.csrf, form: { allowed_origins: SHOP, ...fields } });
    // Post/redirect/get: the page that says "Created" is a GET, so a reload creates nothing.
    const created = await submit({ name: "Checkout" });
    expect(created.status).toBe(303);
    const location = created.headers.get("location") ?? "";
    expect(location).toMatch(/^\/cabinet\/widgets\?created=wid_\w{20}$/);
    const shown = await cab(location.replace("/cabinet", ""), { cookie: m.cookie });
    expect(await shown.text()).toContain(`Created ${location.split("=")[1]}.`);
    const bad: [Record<string, string>, number][] = [
      [{ allowed_origins: "http://shop.example" }, 400],
      [{ coins: "NOPE" }, 422],
      [{ pair_from: "BTC:BTC" }, 422],
      [{ locked_address: "not-an-address", locked_network: "TRX", step_up: await stepUp(m) }, 422],
    ];
    for (const [fields, status] of bad) {
      const res = await submit(fields);
      expect(res.status, JSON.stringify(fields)).toBe(status);
      expect(await res.text()).toContain('role="alert"');
    }
    const listed = (await json<{ data: WidgetBody[] }>(await admin(`/partners/${m.partnerId}/widgets`))).data;
    expect(listed.map((w) => w.name)).toEqual(["Checkout"]);
  });
});

describe("the widget's pages", () => {
  it("only the allowed origins (and this host's preview) may frame it; the height goes only to an allowed parent", async () => {
    const w = await newWidget({ allowed_origins: [SHOP, "https://blog.example"] });
    const res = await call(`/widget/${w.id}?origin=${encodeURIComponent(SHOP)}`);
    expect(res.status).toBe(200);
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toMatch(/frame-ancestors 'self' https:\/\/shop\.example https:\/\/blog\.example$/);
    expect(csp).toContain("script-src 'self';");
    const html = await res.text();
    expect(html).toContain(`data-parent-origin="${SHOP}"`);
    expect(html).toContain(`action="/widget/${w.id}/orders?origin=${encodeURIComponent(SHOP)}"`);
    const stranger = await (
      await call(`/widget/${w.id}?origin=${encodeURIComponent("https://evil.example")}`)
    ).text();
    expect(stranger).not.toContain("data-parent-origin");

    const loader = await call("/widget.js");
    expect(loader.status).toBe(200);
    expect(loader.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(await loader.text()).toContain("swap-widget:height");
    const theme = await call(`/widget/${w.id}/theme.css`);
    expect(await theme.text()).toBe(":root{--accent:#1f4fd1}");
  });

  it("unknown and revoked widget ids are 404 everywhere: page, referral link, quote, order", async () => {
    const w = await newWidget();
    expect((await admin(`/partners/${p.id}/widgets/${w.id}`, { method: "DELETE" })).status).toBe(204);
    for (const id of [w.id, "wid_AAAAAAAAAAAAAAAAAAAA", "nope"]) {
      expect((await call(`/widget/${id}`)).status).toBe(404);
      expect((await call(`/swap?ref=${id}`)).status).toBe(404);
      await expectError(
        await call(`/widget/${id}/quote?from=BTC:BTC&to=USDT:TRX&amount=0.01`),
        404,
        "widget_not_found",
      );
      expect((await post(`/widget/${id}/orders`, FORM)).status).toBe(404);
      expect((await post(`/swap/orders?ref=${id}`, FORM)).status).toBe(404);
    }
    expect((await call("/swap")).status).toBe(404);
    expect(await countOrders(w.id)).toBe(0);
  });

  it("quotes with the partner's markup, and a fixed quote carries a quote id and its lifetime", async () => {
    const w = await newWidget();
    const q = (rate: string) =>
      call(`/widget/${w.id}/quote?from=BTC:BTC&to=USDT:TRX&amount=0.01&rate_type=${rate}`).then((r) =>
        json<{ amount_to: number; quote_id: string | null; expires_in: number | null }>(r),
      );
    const pub = await json<{ amount_to: number }>(
      await call(
        "/api/v1/partner/rates?coin_from=BTC&network_from=BTC&coin_to=USDT&network_to=TRX&amount=0.01",
      ),
    );
    const float = await q("float");
    expect(float.amount_to).toBeLessThan(pub.amount_to);
    expect(float.quote_id).toBeNull();
    const fixed = await q("fixed");
    expect(fixed.quote_id).toBeTruthy();
    expect(fixed.expires_in).toBe(60);
  });
});

describe("orders through a widget or a referral link", () => {
  it("carry source widget and the widget id, in the API and the index; the partner's markup applies", async () => {
    const w = await newWidget();
    const id = createdId(await post(`/widget/${w.id}/orders?origin=${encodeURIComponent(SHOP)}`, FORM));
    const order = await read(p, id);
    expect(order).toMatchObject({
      source: "widget",
      widget_id: w.id,
      livemode: true,
      recipient_address: TRON_ADDR,
    });
    await indexed(id);
    const row = await env.DB.prepare("SELECT widget_id, markup_bps FROM orders WHERE id = ?")
      .bind(id)
      .first<{ widget_id: string; markup_bps: number }>();
    expect(row).toEqual({ widget_id: w.id, markup_bps: 100 });
    // An API order says so.
    const api = await json<Order & { source: string; widget_id: null }>(
      await call("/api/v1/partner/orders", {
        method: "POST",
        body: JSON.stringify({ ...BTC_TO_USDT, amount_from: "0.01" }),
        headers: { Authorization: `Bearer ${p.key}`, "content-type": "application/json" },
      }),
    );
    expect([api.source, api.widget_id]).toEqual(["api", null]);
  });

  it("source and widget_id reach the partner API's order, the cabinet's CSV and the webhook payload", async () => {
    const own = await createPartner({ name: "widget-attribution", rate_limit_per_minute: 100_000 });
    const w = await newWidget({}, own.id);
    const member = await acceptInvite(await invite(own.id, "ops@widget-attribution.example"));
    startClock();
    const id = createdId(await post(`/widget/${w.id}/orders`, FORM));
    const api = await createOrder(own, BTC_TO_USDT);

    const order = await read(own, id);
    expect(order).toMatchObject({ source: "widget", widget_id: w.id });

    await indexed(id);
    await indexed(api.id);
    const csv = (await (await cab("/orders.csv", { cookie: member.cookie })).text()).trimEnd().split("\r\n");
    const header = csv[0]?.split(",") ?? [];
    const column = header.indexOf("widget_id");
    expect(column).toBeGreaterThan(0);
    const cell = (orderId: string) => csv.find((l) => l.startsWith(orderId))?.split(",")[column];
    expect(cell(id)).toBe(w.id);
    expect(cell(api.id)).toBe("");

    // The first transition's event, exactly as the queue consumer POSTs it.
    await simSend("BTC", order.deposit_address, "0.01");
    await step(id);
    const [event] = await env.ORDERS.getByName(id).webhookEvents();
    const body = JSON.parse(event?.message.body ?? "{}") as WebhookEvent;
    expect(body.data.order).toMatchObject({ id, status: "confirming", source: "widget", widget_id: w.id });
  });

  it("an amount on the 'you get' side: a reverse quote, and the order is created with its amount_from", async () => {
    const w = await newWidget();
    const reverse = await json<{ amount_from: number; amount_to: number }>(
      await call(`/widget/${w.id}/quote?from=BTC:BTC&to=USDT:TRX&amount_to=500&rate_type=float`),
    );
    expect(reverse.amount_from).toBeGreaterThan(0);
    expect(reverse.amount_to).toBeCloseTo(500, 0);
    const forward = await json<{ amount_from: number; amount_to: number }>(
      await call(`/widget/${w.id}/quote?from=BTC:BTC&to=USDT:TRX&amount=${reverse.amount_from}`),
    );
    expect(forward.amount_to).toBeCloseTo(500, 0);

    // Without the script: only the "you get" amount filled in.
    const { amount_from: _, ...rest } = FORM;
    const id = createdId(await post(`/swap/orders?ref=${w.id}`, { ...rest, amount_to: "500" }));
    const order = await read(p, id);
    expect(order.amount_from_expected).toBe(reverse.amount_from);
    expect(order.amount_to_expected).toBeCloseTo(500, 0);
    // With it: side says which amount the visitor typed, whatever the other field holds.
    const typed = createdId(
      await post(`/widget/${w.id}/orders`, { ...FORM, amount_from: "0.5", amount_to: "500", side: "to" }),
    );
    expect((await read(p, typed)).amount_from_expected).toBe(reverse.amount_from);
    const bad = await post(`/widget/${w.id}/orders`, { ...rest, amount_to: "five", side: "to" });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('value="five"');
  });

  it("a fixed reverse order whose quoted amount_from is not a number is refused (400), nothing created", async () => {
    const w = await newWidget();
    const fixed = await json<{ quote_id: string }>(
      await call(`/widget/${w.id}/quote?from=BTC:BTC&to=USDT:TRX&amount_to=500&rate_type=fixed`),
    );
    const { amount_from: _, ...rest } = FORM;
    const res = await post(`/widget/${w.id}/orders`, {
      ...rest,
      rate_type: "fixed",
      quote_id: fixed.quote_id,
      side: "to",
      amount_to: "500",
      amount_from: "lots",
    });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('data-testid="form-error"');
    expect(html).toContain("Enter the amount as a number");
    expect(await countOrders(w.id)).toBe(0);
  });

  it("a referral-link order belongs to the widget's partner and lands on the tracking page", async () => {
    const w = await newWidget();
    const page = await call(`/swap?ref=${w.id}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    // A page of its own says whose swap it is; inside the partner's site the frame needs not.
    expect(await page.text()).toContain("A swap offered by <strong>widget-wallet</strong>.");
    expect(await (await call(`/widget/${w.id}`)).text()).not.toContain("offered-by");
    const res = await post(`/swap/orders?ref=${w.id}`, { ...FORM, refund_address: BTC_REFUND });
    const id = createdId(res);
    const order = await read(p, id);
    // The order's own tracking link, on this host: its UUID alone would not open it.
    expect(res.headers.get("location")).toBe(new URL(order.tracking_url).pathname);
    expect(order).toMatchObject({
      source: "widget",
      widget_id: w.id,
      refund_address: BTC_REFUND,
    });
    const views = await env.DB.prepare("SELECT SUM(views) AS n FROM widget_views WHERE widget_id = ?")
      .bind(w.id)
      .first<{ n: number }>();
    expect(views?.n).toBeGreaterThanOrEqual(1);
  });

  it("the funnel counts a visitor once a day, not every page load (widget frame or referral link)", async () => {
    const w = await newWidget();
    const visitor = "2001:db8:42:7::1";
    const views = async () =>
      (
        await env.DB.prepare("SELECT SUM(views) AS n FROM widget_views WHERE widget_id = ?")
          .bind(w.id)
          .first<{ n: number | null }>()
      )?.n ?? 0;
    // Waits for the background count, unlike `call`.
    const open = (path: string, ip: string) => callWith(env, path, {}, ip);
    for (let i = 0; i < 3; i++) expect((await open(`/widget/${w.id}`, visitor)).status).toBe(200);
    expect((await open(`/swap?ref=${w.id}`, visitor)).status).toBe(200);
    // The same /64 is the same visitor.
    expect((await open(`/widget/${w.id}`, "2001:db8:42:7::2")).status).toBe(200);
    expect(await views()).toBe(1);
    await open(`/widget/${w.id}`, freshIp());
    expect(await views()).toBe(2);
  });

  it("the locked recipient wins over whatever the form sends; another payout network is refused", async () => {
    const w = await newWidget({ locked_recipient: { address: TRON_ADDR, network: "TRX" } });
    const html = await (await call(`/widget/${w.id}`)).text();
    expect(html).toMatch(/<input id="recipient_address" value="TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t" readonly/);
    expect(html).not.toContain('name="recipient_address"');
    const id = createdId(await post(`/widget/${w.id}/orders`, { ...FORM, recipient_address: OTHER_TRON }));
    expect((await read(p, id)).recipient_address).toBe(TRON_ADDR);
    const refused = await post(`/widget/${w.id}/orders`, { ...FORM, to: "ETH:ETH" });
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain("pays out on TRX only");
  });

  it("a test widget creates test orders", async () => {
    const w = await newWidget({ mode: "test" });
    // The tracking page it lands on opens the status without a key.
    const tracked = /\/track\/([^?]+)/.exec(
      (await post(`/widget/${w.id}/orders`, FORM)).headers.get("location") ?? "",
    );
    const res = await call(`/api/v1/orders/${tracked?.[1]}/status`);
    expect((await json<{ livemode: boolean }>(res)).livemode).toBe(false);
  });

  it("a refused form (bad address) shows why, keeps what was typed, and creates nothing", async () => {
    const w = await newWidget();
    const res = await post(`/widget/${w.id}/orders`, { ...FORM, recipient_address: "TNotAnAddress" });
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain('data-testid="form-error"');
    expect(html).toContain('value="TNotAnAddress"');
    expect(await countOrders(w.id)).toBe(0);
  });

  it("per end-user IP: the 11th order in an hour is 429 with Retry-After, and nothing is created", async () => {
    const w = await newWidget();
    const ip = "203.0.113.50";
    for (let i = 0; i < 10; i++) createdId(await post(`/widget/${w.id}/orders`, FORM, ip));
    const refused = await post(`/widget/${w.id}/orders`, FORM, ip);
    expect(refused.status).toBe(429);
    const wait = Number(refused.headers.get("retry-after"));
    expect(wait).toBeGreaterThan(3500);
    expect(wait).toBeLessThanOrEqual(3600);
    expect(await refused.text()).toContain("At most 10 orders per hour from one address");
    expect(await countOrders(w.id)).toBe(10);
    // The same limit holds on the referral link; another address is not affected.
    expect((await post(`/swap/orders?ref=${w.id}`, FORM, ip)).status).toBe(429);
    createdId(await post(`/widget/${w.id}/orders`, FORM));
  });

  it("per widget: past WIDGET_ORDERS_PER_WIDGET_PER_HOUR (from any address) is 429 with Retry-After, nothing created", async () => {
    const lowEnv = { ...env, WIDGET_ORDERS_PER_WIDGET_PER_HOUR: "2" } as Env;
    const submit = (path: string) =>
      callWith(lowEnv, path, {
        method: "POST",
        body: new URLSearchParams({ nonce: crypto.randomUUID(), ...FORM }),
        headers: { "content-type": "application/x-www-form-urlencoded" },
        redirect: "manual",
      });
    const w = await newWidget();
    // Each from a fresh address: only the widget's own limit can refuse.
    for (let i = 0; i < 2; i++) createdId(await submit(`/widget/${w.id}/orders`));
    const refused = await submit(`/widget/${w.id}/orders`);
    expect(refused.status).toBe(429);
    const wait = Number(refused.headers.get("retry-after"));
    expect(wait).toBeGreaterThan(3500);
    expect(wait).toBeLessThanOrEqual(3600);
    expect(await refused.text()).toContain("At most 2 orders per hour through this widget");
    expect((await submit(`/swap/orders?ref=${w.id}`)).status).toBe(429);
    expect(await countOrders(w.id)).toBe(2);
    // Another widget of the same partner has its own hour.
    const other = await newWidget();
    createdId(await submit(`/widget/${other.id}/orders`));
  });
});

describe("Turnstile", () => {
  const network = createMockNetwork(
    http.post(SITEVERIFY_URL, async ({ request }) => {
      const form = await request.formData();
      // Solved on this host for the widget's form; or a real token solved on another site or form.
      const solved: Record<string, { hostname: string; action: string }> = {
        "good-token": { hostname: "localhost", action: "widget-order" },
        "other-site-token": { hostname: "evil.example", action: "widget-order" },
        "other-form-token": { hostname: "localhost", action: "login" },
      };
      const at = form.get("secret") === "ts-secret" ? solved[String(form.get("response"))] : undefined;
      return HttpResponse.json(
        at
          ? { success: true, "error-codes": [], ...at }
          : { success: false, "error-codes": ["invalid-input-response"] },
      );
    }),
  );
  const turnstileEnv = { ...env, TURNSTILE_SITE_KEY: "ts-site", TURNSTILE_SECRET: "ts-secret" } as Env;

  afterEach(() => {
    vi.unstubAllGlobals();
  });

  const request = (path: string, init: RequestInit = {}) => callWith(turnstileEnv, path, init);
  const submit = (wid: string, extra: Record<string, string>) =>
    request(`/widget/${wid}/orders`, {
      method: "POST",
      body: new URLSearchParams({ nonce: crypto.randomUUID(), ...FORM, ...extra }),
      headers: { "content-type": "application/x-www-form-urlencoded" },
      redirect: "manual",
    });

  it("when configured, the page loads it and creation needs a valid token, checked server-side", async () => {
    vi.stubGlobal("fetch", network.fetch);
    const w = await newWidget();
    const page = await request(`/widget/${w.id}`);
    expect(page.headers.get("content-security-policy")).toContain(
      "script-src 'self' https://challenges.cloudflare.com",
    );
    expect(await page.text()).toContain('data-sitekey="ts-site" data-action="widget-order"');

    expect((await submit(w.id, {})).status).toBe(403);
    expect((await submit(w.id, { "cf-turnstile-response": "bad-token" })).status).toBe(403);
    // Valid tokens, but solved on another hostname or for another action (Cloudflare's advice).
    expect((await submit(w.id, { "cf-turnstile-response": "other-site-token" })).status).toBe(403);
    expect((await submit(w.id, { "cf-turnstile-response": "other-form-token" })).status).toBe(403);
    expect(await countOrders(w.id)).toBe(0);
    expect((await submit(w.id, { "cf-turnstile-response": "good-token" })).status).toBe(303);
    expect(await countOrders(w.id)).toBe(1);
    expect(network.requests.map((r) => r.url)).toEqual(Array(4).fill(SITEVERIFY_URL));
  });

  it("unconfigured, the widget says nothing about it and needs no token", async () => {
    const w = await newWidget();
    const page = await call(`/widget/${w.id}`);
    expect(page.headers.get("content-security-policy")).not.toContain("challenges.cloudflare.com");
    expect(await page.text()).not.toContain("cf-turnstile");
  });
});
