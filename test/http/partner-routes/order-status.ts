/**
 * The end user's view of an order without a key (docs/widget.md): GET /api/v1/orders/{ref}/status
 * and the tracking page /track/{ref}, opened only by the order's own links (its UUID and secret
 * token; the bare UUID only for an order from before tokens): masked addresses, never the partner,
 * cacheable for seconds, rate-limited per IP, and the page's timeline, deposit, support contact and
 * CSP.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { getConfig } from "../../../src/config";
import type { OrderRecord } from "../../../src/domain/order";
import { orderIdOf } from "../../../src/domain/order-id";
import { projectOrder } from "../../../src/objects/order/projection";
import { admin, call, createPartner, expectError, json, setPrices, type TestPartner } from "../../helpers";
import { BTC_REFUND, BTC_TO_USDT, createOrder, indexed, type Order, TRON_ADDR } from "../../support/orders";

/** The path of one of an order's links, asserted to be on the service's public origin. */
function pathOf(url: string): string {
  const u = new URL(url);
  expect(u.origin).toBe(new URL(getConfig(env).CABINET_ORIGIN).origin);
  return u.pathname;
}

/** What opens an order keylessly: the last segment of its tracking_url. */
const refOf = (o: Order) => pathOf(o.tracking_url).slice("/track/".length);

/** An order as created before tokens: its record without one, and its index row projected again. */
async function withoutToken(o: Order): Promise<void> {
  const stub = env.ORDERS.getByName(o.id);
  const r = await runInDurableObject(stub, (_obj, state) => {
    const { trackToken: _, ...rest } = state.storage.kv.get<OrderRecord>("order")!;
    state.storage.kv.put("order", rest);
    return rest;
  });
  await indexed(o.id);
  await projectOrder(env.DB, r, 1_000);
}

describe("order-status", () => {
  let p: TestPartner;
  let testKey: string;

  beforeAll(async () => {
    await setPrices();
    p = await createPartner({ name: "status-wallet", rate_limit_per_minute: 100_000 });
    const k = await json<{ key: string }>(
      await admin(`/partners/${p.id}/keys`, { method: "POST", json: { mode: "test" } }),
    );
    testKey = k.key;
    expect(
      (
        await admin(`/partners/${p.id}`, {
          method: "PATCH",
          json: { contact_email: "help@status-wallet.example" },
        })
      ).status,
    ).toBe(200);
  });

  const asTest = (): TestPartner => ({ ...p, key: testKey });

  async function helper(orderId: string, name: string, body?: unknown): Promise<Order> {
    const res = await call(`/api/v1/partner/test/orders/${orderId}/${name}`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${testKey}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    return json<Order>(res);
  }

  const page = async (ref: string) => {
    const res = await call(`/track/${ref}`);
    return { res, html: await res.text() };
  };

  const status = (ref: string, headers: Record<string, string> = {}) =>
    call(`/api/v1/orders/${ref}/status`, { headers });

  const listedBy = async (partnerOrderId: string) =>
    json<{ data: Record<string, unknown>[] }>(
      await call(`/api/v1/partner/orders?partner_order_id=${partnerOrderId}`, {
        headers: { "X-API-Key": p.key },
      }),
    );

  describe("GET /api/v1/orders/{ref}/status", () => {
    it("answers without a key: the order's progress, addresses masked, no partner, short cache, any origin", async () => {
      const o = await createOrder(p, { ...BTC_TO_USDT, refund_address: BTC_REFUND });
      const res = await call(pathOf(o.status_url), { headers: { Origin: "https://wallet.example" } });
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("public, max-age=5");
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("ratelimit-limit")).toBe("60");
      const body = await json<Record<string, unknown>>(res);
      expect(body).toMatchObject({
        id: o.id,
        status: "waiting_deposit",
        coin_from: "BTC",
        coin_to: "USDT",
        deposit_address: o.deposit_address,
        amount_from_expected: o.amount_from_expected,
        recipient_address: `${TRON_ADDR.slice(0, 6)}…${TRON_ADDR.slice(-4)}`,
        refund_address: `${BTC_REFUND.slice(0, 6)}…${BTC_REFUND.slice(-4)}`,
        expires_at: o.expires_at,
        livemode: true,
      });
      const text = JSON.stringify(body);
      expect(text).not.toContain(TRON_ADDR);
      expect(text).not.toContain(BTC_REFUND);
      expect(text).not.toContain(p.id);
      for (const hidden of [
        "partner_id",
        "short_id",
        "actions",
        "recipient_address_tag",
        "refund_address_tag",
      ])
        expect(body).not.toHaveProperty(hidden);
      // The upper-case form names the same order.
      expect((await status(refOf(o).toUpperCase())).status).toBe(200);
    });

    it("404 order_not_found for an unknown UUID of either layout, a short_id, or junk", async () => {
      const o = await createOrder(p, BTC_TO_USDT);
      const token = refOf(o).split(".")[1];
      for (const id of [
        orderIdOf("0000000000"),
        `${orderIdOf("0000000000")}.${token}`,
        "6f1c1f2e-3b7a-4c55-9d2e-8a1b2c3d4e5f",
        o.short_id,
        o.short_id.toLowerCase(),
        `${o.short_id}.${token}`,
        "not-an-order",
      ])
        await expectError(await status(id), 404, "order_not_found");
    });

    it("nothing a third party sees opens a new order: not its UUID, derived from its short_id, nor another order's token", async () => {
      const o = await createOrder(p, BTC_TO_USDT);
      const other = await createOrder(p, BTC_TO_USDT);
      const ref = refOf(o);
      expect(ref).toMatch(new RegExp(`^${o.id}\\.[0-9a-f]{32}$`));
      expect(pathOf(o.status_url)).toBe(`/api/v1/orders/${ref}/status`);
      // The UUID as anyone who saw the short_id works it out (src/domain/order-id.ts), in either case.
      const derived = orderIdOf(o.short_id);
      expect(derived).toBe(o.id);
      const unknown = await expectError(await status(orderIdOf("0000000000")), 404, "order_not_found");
      for (const guess of [
        derived,
        derived.toUpperCase(),
        `${derived}.${refOf(other).split(".")[1]}`,
        // Its own token with the last digit changed.
        ref.replace(/.$/, (d) => (d === "0" ? "1" : "0")),
        `${derived}.`,
      ]) {
        const refused = await expectError(await status(guess), 404, "order_not_found");
        expect(refused).toEqual(unknown);
        expect((await page(guess)).res.status).toBe(404);
      }
      expect((await status(ref)).status).toBe(200);
      expect((await page(ref)).res.status).toBe(200);
    });

    it("an order's list row carries the same links as the order", async () => {
      const ref = `links-${crypto.randomUUID()}`;
      const o = await createOrder(p, { ...BTC_TO_USDT, partner_order_id: ref });
      await indexed(o.id);
      const [row] = (await listedBy(ref)).data;
      expect(row).toMatchObject({ id: o.id, tracking_url: o.tracking_url, status_url: o.status_url });
      expect(row).not.toHaveProperty("track_token");
    });

    it("an order created before tokens opens by its UUID alone, and its links (order and list row) are that UUID's", async () => {
      const ref = `legacy-${crypto.randomUUID()}`;
      const o = await createOrder(p, { ...BTC_TO_USDT, partner_order_id: ref });
      await withoutToken(o);
      const read = await json<Order>(
        await call(`/api/v1/partner/orders/${o.id}`, { headers: { "X-API-Key": p.key } }),
      );
      expect(pathOf(read.tracking_url)).toBe(`/track/${o.id}`);
      expect(pathOf(read.status_url)).toBe(`/api/v1/orders/${o.id}/status`);
      expect((await listedBy(ref)).data[0]).toMatchObject({
        tracking_url: read.tracking_url,
        status_url: read.status_url,
      });
      expect((await call(pathOf(read.status_url))).status).toBe(200);
      expect((await page(o.id)).res.status).toBe(200);
      // It has no token, so none opens it.
      await expectError(await status(`${o.id}.${"0".repeat(32)}`), 404, "order_not_found");
    });

    it("counts against the client's IP like every public route: 429 with Retry-After past the limit", async () => {
      const o = await createOrder(p, BTC_TO_USDT);
      const ip = { "cf-connecting-ip": "198.51.100.77" };
      for (let i = 0; i < 60; i++) expect((await status(refOf(o), ip)).status).toBe(200);
      const refused = await status(refOf(o), ip);
      await expectError(refused, 429, "rate_limited");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      // Another address is not affected.
      expect((await status(refOf(o))).status).toBe(200);
    });
  });

  describe("the tracking page /track/{ref}", () => {
    it("shows the deposit with its QR code and countdown, masks the payout address, and may not be framed", async () => {
      const o = await createOrder(p, BTC_TO_USDT);
      const { res, html } = await page(refOf(o));
      expect(res.status).toBe(200);
      // It polls the status API with what opened it (the UUID alone would be 404).
      expect(html).toContain(`data-track="${refOf(o)}"`);
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toMatch(/unsafe-inline|https:/);
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(html).toContain("Waiting for your deposit");
      expect(html).toContain(o.deposit_address);
      expect(html).toMatch(/<svg[^>]*viewBox/);
      expect(html).toContain(`data-countdown="${o.expires_at}"`);
      // Without the script both stay true: the time left as of this render, and a reload every 30 s.
      expect(html).toMatch(/data-countdown="[^"]+">in (29|30) min</);
      expect(html).toContain("This page updates by itself.");
      expect(html).toContain('<noscript><meta http-equiv="refresh" content="30"/></noscript>');
      expect(html).toContain(`${TRON_ADDR.slice(0, 6)}…${TRON_ADDR.slice(-4)}`);
      expect(html).not.toContain(TRON_ADDR);
      expect(html).not.toContain(p.id);
      expect(html).not.toContain("help@status-wallet.example");
      // No inline script or style: everything the page runs is a 'self' file.
      expect(html).not.toMatch(/<script>|<script [^>]*>[^<]|style=/);
    });

    it("follows a test order to Sent, with no explorer links for test orders", async () => {
      const o = await createOrder(asTest(), BTC_TO_USDT);
      expect((await page(refOf(o))).html).toContain("Test order: nothing real moves.");
      await helper(o.id, "deposit");
      const confirming = await page(refOf(o));
      expect(confirming.html).toContain("Confirming 0/2");
      // The deposit is seen: no QR code asks for another one.
      expect(confirming.html).not.toContain('data-testid="qr"');
      const done = await helper(o.id, "confirm");
      expect(done.status).toBe("completed");
      const { html } = await page(refOf(o));
      expect(html).toContain('data-status="completed"');
      expect(html).toContain('data-final="true"');
      expect(html).not.toContain("http-equiv");
      // When each step happened, to the minute in UTC (the script shows the viewer's zone).
      const steps = [
        ...html.matchAll(
          /<li data-state="done"[^>]*>([^<]+)<span[^>]*> · <time datetime="([^"]+)" data-local="minutes">/g,
        ),
      ];
      expect(steps.map((m) => m[1])).toEqual([
        "Waiting for your deposit",
        "Confirming",
        "Exchanging",
        "Sending",
        "Sent",
      ]);
      expect(steps.every((m) => Number.isFinite(Date.parse(m[2] ?? "")))).toBe(true);
      expect(html).toContain(done.payout_txid ?? "missing payout txid");
      expect(html).not.toContain('<a href="http');
    });

    it("an order on hold says what happens next with the partner's support contact", async () => {
      // No refund address: a failed exchange holds the funds for a decision.
      const o = await createOrder(asTest(), BTC_TO_USDT);
      await helper(o.id, "deposit");
      await helper(o.id, "fail", { step: "exchange" });
      expect((await helper(o.id, "confirm")).status).toBe("failed");
      const { html } = await page(refOf(o));
      expect(html).toContain("What happens next");
      expect(html).toContain("mailto:help@status-wallet.example");
    });

    it("404 page for an unknown id and for a short_id", async () => {
      const o = await createOrder(p, BTC_TO_USDT);
      for (const id of [orderIdOf("0000000000"), o.short_id]) {
        const { res, html } = await page(id);
        expect(res.status).toBe(404);
        expect(html).toContain("Order not found");
      }
    });
  });
});
