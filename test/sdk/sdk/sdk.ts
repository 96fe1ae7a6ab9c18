import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ApiError, createClient, verifyWebhook, WebhookVerificationError } from "../../../sdk/src/index";
import { hmacSha256Hex } from "../../../src/domain/credentials";
import { signatureHeader } from "../../../src/domain/webhooks";
import { admin, createPartner, freshIp, setPrices } from "../../helpers";
import { BTC_TO_USDT, simMine, simSend, step } from "../../support/orders";

/** The SDK's fetch, pointed at the Worker in workerd, from one client address per client. */
function workerFetch(seen?: Request[]): typeof fetch {
  const ip = freshIp();
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    seen?.push(request.clone());
    const headers = new Headers(request.headers);
    headers.set("cf-connecting-ip", ip);
    return exports.default.fetch(new Request(request, { headers }));
  }) as typeof fetch;
}

const noSleep = { sleep: async () => {} };

describe("SDK against the Worker", () => {
  it("runs a whole order: quote, create (signed), follow to completed, list every page", async () => {
    await setPrices();
    const p = await createPartner();
    const client = createClient({
      baseUrl: "http://localhost",
      apiKey: p.key,
      signRequests: true,
      fetch: workerFetch(),
    });
    const currencies = await client.listCurrencies();
    expect(currencies.some((c) => c.coin === "BTC")).toBe(true);
    const quote = await client.getRate({
      coin_from: "BTC",
      coin_to: "USDT",
      network_to: "TRX",
      amount: "0.01",
    });
    expect(quote.amount_to).toBeGreaterThan(0);

    const order = await client.createOrder({ ...BTC_TO_USDT, rate_type: "float" });
    expect(order.status).toBe("waiting_deposit");
    await simSend("BTC", order.deposit_address, "0.01");
    await step(order.id);
    await simMine("BTC", 2);
    for (let i = 0; i < 4; i++) await step(order.id);
    const done = await client.getOrder(order.short_id.toLowerCase());
    expect(done.status).toBe("completed");
    expect(done.payout_txid).toBeTruthy();

    // Five polls later the prices set at the start are as old as PRICE_MAX_AGE allows: refresh
    // them, as the cron does every minute, or a quote answers 503 prices_stale.
    await setPrices();
    for (let i = 0; i < 2; i++) await client.createOrder({ ...BTC_TO_USDT, rate_type: "float" });
    const ids: string[] = [];
    for await (const o of client.listOrders({ limit: 1 })) ids.push(o.id);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
    expect(ids).toContain(order.id);
  });

  it("drives test orders with the test helpers (a test key); a live key gets test_mode_only", async () => {
    await setPrices();
    const p = await createPartner();
    const res = await admin(`/partners/${p.id}/keys`, { method: "POST", json: { mode: "test" } });
    const testKey = (await res.json<{ key: string }>()).key;
    const test = createClient({
      baseUrl: "http://localhost",
      apiKey: testKey,
      signRequests: true,
      fetch: workerFetch(),
    });
    const o = await test.createOrder({ ...BTC_TO_USDT, rate_type: "float" });
    expect(o.livemode).toBe(false);
    expect((await test.test.deposit(o.id)).status).toBe("confirming");
    expect((await test.test.confirm(o.id)).status).toBe("completed");
    const failing = await test.createOrder({ ...BTC_TO_USDT, rate_type: "float" });
    await test.test.fail(failing.id, "payout");
    await test.test.deposit(failing.id, { confirmations: 2 });
    expect(await test.getOrder(failing.id)).toMatchObject({
      status: "failed",
      status_reason: "payout_failed",
    });
    const late = await test.createOrder({ ...BTC_TO_USDT, rate_type: "float" });
    expect((await test.test.expire(late.id)).status).toBe("expired");
    await test.test.deposit(late.id);
    expect((await test.test.dropDeposit(late.id)).status).toBe("expired");
    const abandoned = await test.createOrder({ ...BTC_TO_USDT, rate_type: "float" });
    expect(await test.cancelOrder(abandoned.id)).toMatchObject({
      status: "expired",
      status_reason: "cancelled",
    });

    const live = createClient({ baseUrl: "http://localhost", apiKey: p.key, fetch: workerFetch() });
    const err = await live.test.expire(o.id).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 403, code: "test_mode_only" });
  });

  it("throws typed errors with status, code, detail and request id", async () => {
    const p = await createPartner();
    const client = createClient({ baseUrl: "http://localhost", apiKey: p.key, fetch: workerFetch() });
    const err = await client.getOrder("NOPE-NOT-AN-ORDER").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 404, code: "order_not_found" });
    expect((err as ApiError).requestId).toBeTruthy();
    const bad = createClient({
      baseUrl: "http://localhost",
      apiKey: `${p.keyId}.wrong`,
      fetch: workerFetch(),
    });
    await expect(bad.getOrder("x")).rejects.toMatchObject({ status: 401, code: "invalid_api_key" });
    await setPrices();
    const invalid = await client
      .createOrder({ ...BTC_TO_USDT, rate_type: "float", recipient_address: "not-an-address" })
      .catch((e: unknown) => e);
    expect(invalid).toMatchObject({ status: 422, code: "invalid_address" });
  });

  it("retries a 429 after Retry-After with the same Idempotency-Key, and creates one order", async () => {
    await setPrices();
    const p = await createPartner({ rate_limit_per_minute: 2 });
    const seen: Request[] = [];
    const waits: number[] = [];
    const inner = workerFetch(seen);
    let calls = 0;
    // The first attempt meets a full bucket (simulated by the limiter's own 429), the next passes.
    const fetchWith429: typeof fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      calls++;
      if (calls === 1) {
        seen.push(new Request(input, init));
        return new Response(JSON.stringify({ detail: "Rate limit exceeded.", code: "rate_limited" }), {
          status: 429,
          headers: { "Retry-After": "7", "content-type": "application/json" },
        });
      }
      return inner(input, init);
    }) as typeof fetch;
    const client = createClient({
      baseUrl: "http://localhost",
      apiKey: p.key,
      fetch: fetchWith429,
      retry: { sleep: async (ms) => void waits.push(ms) },
    });
    const order = await client.createOrder({ ...BTC_TO_USDT, rate_type: "float" });
    expect(waits).toEqual([7000]);
    const keys = seen.map((r) => r.headers.get("idempotency-key"));
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBeTruthy();
    expect(keys[1]).toBe(keys[0]);
    const page = await client.listOrdersPage();
    expect(page.data.map((o) => o.id)).toEqual([order.id]);
  });

  it("honours a Retry-After of 60 s (the wait is what the server says); one past maxDelayMs is not retried early", async () => {
    const answer = (retryAfter: string) =>
      (async () =>
        new Response(JSON.stringify({ detail: "Rate limit exceeded.", code: "rate_limited" }), {
          status: 429,
          headers: { "Retry-After": retryAfter, "content-type": "application/json" },
        })) as unknown as typeof fetch;
    const waits: number[] = [];
    const client = createClient({
      baseUrl: "http://localhost",
      apiKey: "pk_x.y",
      fetch: answer("60"),
      retry: { maxRetries: 1, sleep: async (ms) => void waits.push(ms) },
    });
    await expect(client.getOrder("abc")).rejects.toMatchObject({ status: 429 });
    expect(waits).toEqual([60_000]);

    waits.length = 0;
    let calls = 0;
    const short = createClient({
      baseUrl: "http://localhost",
      apiKey: "pk_x.y",
      fetch: (async (...a: Parameters<typeof fetch>) => {
        calls++;
        return answer("60")(...a);
      }) as typeof fetch,
      retry: { maxDelayMs: 10_000, sleep: async (ms) => void waits.push(ms) },
    });
    await expect(short.getOrder("abc")).rejects.toMatchObject({ status: 429 });
    expect({ waits, calls }).toEqual({ waits: [], calls: 1 });
  });

  it("retries the Worker's own 429 until the limit resets, within its bound, then gives the error", async () => {
    const p = await createPartner({ rate_limit_per_minute: 1 });
    const waits: number[] = [];
    const client = createClient({
      baseUrl: "http://localhost",
      apiKey: p.key,
      fetch: workerFetch(),
      retry: { maxRetries: 2, sleep: async (ms) => void waits.push(ms) },
    });
    await client.listOrdersPage();
    const err = await client.listOrdersPage().catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 429, code: "rate_limited" });
    expect(waits).toHaveLength(2);
    for (const w of waits) expect(w).toBeGreaterThan(0);
  });

  it("sends the last X-D1-Bookmark the server answered with, a create's too, on the next request", async () => {
    await setPrices();
    const p = await createPartner();
    const seen: Request[] = [];
    const answered: (string | null)[] = [];
    const base = workerFetch(seen);
    const client = createClient({
      baseUrl: "http://localhost",
      apiKey: p.key,
      fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
        const res = await base(input, init);
        answered.push(res.headers.get("x-d1-bookmark"));
        return res;
      }) as typeof fetch,
    });
    const order = await client.createOrder({ ...BTC_TO_USDT, rate_type: "float" });
    expect((await client.listOrdersPage()).data.map((o) => o.id)).toEqual([order.id]);
    await client.listOrdersPage();
    expect(answered[0]).toBe(`order-${order.id}`);
    expect(answered[1]).toBeTruthy();
    expect(seen.map((r) => r.headers.get("x-d1-bookmark"))).toEqual([null, answered[0], answered[1]]);
  });

  it("never retries a POST without an Idempotency-Key", async () => {
    let calls = 0;
    const client = createClient({
      baseUrl: "http://localhost",
      apiKey: "pk_x.y",
      fetch: (async () => {
        calls++;
        return new Response("{}", { status: 503, headers: { "Retry-After": "1" } });
      }) as typeof fetch,
      retry: noSleep,
    });
    const res = await client.raw.POST("/api/v1/partner/orders", {
      body: { ...BTC_TO_USDT, rate_type: "float" },
      params: { header: {} },
    });
    expect(res.response.status).toBe(503);
    expect(calls).toBe(1);
    calls = 0;
    await expect(client.getOrder("abc")).rejects.toMatchObject({ status: 503 });
    expect(calls).toBe(4);
  });

  it("retries network errors on reads", async () => {
    let calls = 0;
    const inner = workerFetch();
    const client = createClient({
      baseUrl: "http://localhost",
      fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
        if (++calls < 3) throw new TypeError("fetch failed");
        return inner(input, init);
      }) as typeof fetch,
      retry: noSleep,
    });
    expect((await client.listCurrencies()).length).toBeGreaterThan(0);
    expect(calls).toBe(3);
  });

  it("signs bodies the Worker accepts; a wrong secret is refused as invalid_signature", async () => {
    await setPrices();
    const p = await createPartner();
    const seen: Request[] = [];
    const client = createClient({
      baseUrl: "http://localhost",
      apiKey: p.key,
      signRequests: true,
      fetch: workerFetch(seen),
    });
    await client.createOrder({ ...BTC_TO_USDT, rate_type: "float" });
    const sent = seen[0];
    const body = new Uint8Array(await (sent as Request).arrayBuffer());
    expect(sent?.headers.get("x-signature")).toBe(await hmacSha256Hex(p.key.split(".")[1] ?? "", body));
    const forged = createClient({
      baseUrl: "http://localhost",
      apiKey: p.key,
      fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
        const r = new Request(input, init);
        const h = new Headers(r.headers);
        h.set("x-signature", "0".repeat(64));
        return workerFetch()(new Request(r, { headers: h }));
      }) as typeof fetch,
    });
    await expect(forged.createOrder({ ...BTC_TO_USDT, rate_type: "float" })).rejects.toMatchObject({
      status: 401,
      code: "invalid_signature",
    });
  });
});

describe("verifyWebhook", () => {
  const secret = "whsec_test_secret";
  const event = {
    id: "evt_1",
    type: "order.status_changed",
    created_at: "2026-11-21T12:00:00.000Z",
    sequence: 2,
    data: { order: { id: "o" }, previous_status: "confirming" },
  };
  const body = JSON.stringify(event);
  const now = 1_763_726_400;

  it("accepts the service's own signature and returns the typed event", async () => {
    const header = await signatureHeader([secret], body, now);
    const verified = await verifyWebhook(body, header, secret, { nowSeconds: now + 10 });
    expect(verified.id).toBe("evt_1");
    expect(verified.data.previous_status).toBe("confirming");
  });

  it("refuses a tampered body, a wrong secret, a stale timestamp and a malformed header", async () => {
    const header = await signatureHeader([secret], body, now);
    const fails = async (p: Promise<unknown>) => expect(p).rejects.toBeInstanceOf(WebhookVerificationError);
    await fails(
      verifyWebhook(body.replace('"sequence":2', '"sequence":3'), header, secret, { nowSeconds: now }),
    );
    await fails(verifyWebhook(body, header, "whsec_other", { nowSeconds: now }));
    await fails(verifyWebhook(body, header, secret, { nowSeconds: now + 301 }));
    await fails(verifyWebhook(body, header, secret, { nowSeconds: now - 301 }));
    await fails(verifyWebhook(body, "v1=abc", secret, { nowSeconds: now }));
    await fails(verifyWebhook(body, null, secret, { nowSeconds: now }));
    expect(
      await verifyWebhook(body, header, secret, { nowSeconds: now + 600, toleranceSeconds: 900 }),
    ).toBeTruthy();
  });

  it("accepts any of several v1 signatures (secret rotation overlap)", async () => {
    const oldSig = (await signatureHeader(["whsec_old"], body, now)).split(",")[1];
    const newSig = (await signatureHeader([secret], body, now)).split(",")[1];
    const header = `t=${now},${oldSig},${newSig}`;
    expect((await verifyWebhook(body, header, secret, { nowSeconds: now })).id).toBe("evt_1");
    expect((await verifyWebhook(body, header, "whsec_old", { nowSeconds: now })).id).toBe("evt_1");
    await expect(verifyWebhook(body, header, "whsec_third", { nowSeconds: now })).rejects.toBeInstanceOf(
      WebhookVerificationError,
    );
  });
});
