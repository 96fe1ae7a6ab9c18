import { delay, HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { createHttpPayout } from "../../src/adapters/payout/http";
import type { PayoutRequest } from "../../src/adapters/payout/types";
import { hmacSha256Hex } from "../../src/domain/credentials";
import { createMockNetwork } from "../support/msw";

const BASE = "https://signer.example.test";
const SECRET = "gateway-shared-secret";
const REQ: PayoutRequest = {
  idempotencyKey: "0b6d2c1e-0000-4000-8000-000000000001:payout",
  orderId: "0b6d2c1e-0000-4000-8000-000000000001",
  kind: "payout",
  network: "TRX",
  coin: "USDT",
  contract: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
  to: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
  tag: null,
  amount: "596",
};

describe("HTTP payout gateway", () => {
  it("POSTs the payout signed with HMAC-SHA256 and the idempotency key; 2xx {txid} → sent", async () => {
    const net = createMockNetwork(
      http.post(`${BASE}/payouts`, () => HttpResponse.json({ txid: "ab".repeat(32) }, { status: 201 })),
    );
    const gw = createHttpPayout({ baseUrl: `${BASE}/`, secret: SECRET, fetch: net.fetch });
    expect(await gw.send(REQ)).toEqual({ status: "sent", txid: "ab".repeat(32) });
    const [req] = net.requests;
    expect(req?.url).toBe(`${BASE}/payouts`);
    expect(req?.headers.get("idempotency-key")).toBe(REQ.idempotencyKey);
    expect(JSON.parse(req?.body ?? "")).toEqual(REQ);
    expect(req?.headers.get("x-signature")).toBe(
      await hmacSha256Hex(SECRET, new TextEncoder().encode(req?.body ?? "")),
    );
    expect(net.unhandled).toEqual([]);
  });

  it("classifies send answers: only a signed refusal is final; 401/403/404 are configuration errors", async () => {
    const signed = async (body: object, status: number) => {
      const text = JSON.stringify(body);
      return new HttpResponse(text, {
        status,
        headers: { "x-signature": await hmacSha256Hex(SECRET, new TextEncoder().encode(text)) },
      });
    };
    const cases: [Parameters<typeof http.post>[1], Record<string, unknown>][] = [
      [() => signed({ status: "refused", reason: "bad address" }, 422), { status: "refused" }],
      // The same refusal unsigned (a proxy, an error page) is no answer: unknown, asked again later.
      [() => HttpResponse.json({ status: "refused" }, { status: 422 }), { status: "unknown" }],
      [() => new HttpResponse("bad address", { status: 422 }), { status: "unknown" }],
      [() => new HttpResponse("oops", { status: 500 }), { status: "unknown" }],
      [() => new HttpResponse("slow down", { status: 429 }), { status: "unknown" }],
      [() => new HttpResponse("in progress", { status: 409 }), { status: "unknown" }],
      [() => new HttpResponse("bad signature", { status: 401 }), { status: "unknown", config: true }],
      [() => new HttpResponse("forbidden", { status: 403 }), { status: "unknown", config: true }],
      [() => new HttpResponse("no such route", { status: 404 }), { status: "unknown", config: true }],
      [() => HttpResponse.error(), { status: "unknown" }],
      [() => HttpResponse.json({ accepted: true }), { status: "unknown" }],
      [
        async () => {
          await delay(200);
          return HttpResponse.json({ txid: "late" });
        },
        { status: "unknown" },
      ],
    ];
    for (const [resolver, expected] of cases) {
      const net = createMockNetwork(http.post(`${BASE}/payouts`, resolver));
      const gw = createHttpPayout({ baseUrl: BASE, secret: SECRET, fetch: net.fetch, timeoutMs: 50 });
      const result = await gw.send(REQ);
      expect(result).toMatchObject(expected);
      if (!("config" in expected)) expect(result).not.toHaveProperty("config", true);
    }
  });

  it("looks a key up: only signed answers say 'never received' or 'refused'; anything else throws", async () => {
    const key = encodeURIComponent(REQ.idempotencyKey);
    const url = `${BASE}/payouts/${key}`;
    const signed = async (body: object, status: number, secret = SECRET) => {
      const text = JSON.stringify(body);
      return new HttpResponse(text, {
        status,
        headers: { "x-signature": await hmacSha256Hex(secret, new TextEncoder().encode(text)) },
      });
    };
    const net = createMockNetwork(http.get(url, () => HttpResponse.json({ txid: "cd".repeat(32) })));
    const gw = createHttpPayout({ baseUrl: BASE, secret: SECRET, fetch: net.fetch });
    expect(await gw.lookup(REQ.idempotencyKey, "TRX")).toEqual({ status: "sent", txid: "cd".repeat(32) });
    // Signed over the request line, so the signature is good for this key only.
    expect(net.requests[0]?.headers.get("x-signature")).toBe(
      await hmacSha256Hex(SECRET, new TextEncoder().encode(`GET /payouts/${key}`)),
    );
    net.use(http.get(url, () => signed({ status: "unknown_key" }, 404)));
    expect(await gw.lookup(REQ.idempotencyKey, "TRX")).toEqual({ status: "unknown_key" });
    net.use(http.get(url, () => signed({ status: "refused", reason: "sanctioned address" }, 410)));
    expect(await gw.lookup(REQ.idempotencyKey, "TRX")).toEqual({
      status: "refused",
      error: "sanctioned address",
    });
    // A proxy's 404, a 404 signed with another secret, a 503: whether money left is unknown.
    for (const answer of [
      () => new HttpResponse("Not Found", { status: 404 }),
      () => HttpResponse.json({ status: "unknown_key" }, { status: 404 }),
      () => signed({ status: "unknown_key" }, 404, "another-secret"),
      () => new HttpResponse(null, { status: 503 }),
      () => HttpResponse.json({ status: "in_progress" }),
    ]) {
      net.use(http.get(url, answer));
      await expect(gw.lookup(REQ.idempotencyKey, "TRX")).rejects.toThrow();
    }
  });
});

describe("HTTP payout gateway under a path prefix (https://gw.example/gw)", () => {
  it("signs lookups and /balances over the path as sent, prefix included", async () => {
    const prefixed = `${BASE}/gw`;
    const key = encodeURIComponent(REQ.idempotencyKey);
    const net = createMockNetwork(
      http.get(`${prefixed}/payouts/${key}`, () => new HttpResponse(null, { status: 503 })),
      http.get(`${prefixed}/balances`, () => new HttpResponse(null, { status: 503 })),
    );
    const gw = createHttpPayout({ baseUrl: `${prefixed}/`, secret: SECRET, fetch: net.fetch });
    await expect(gw.lookup(REQ.idempotencyKey, "TRX")).rejects.toThrow();
    await expect(gw.balances()).rejects.toThrow();
    const sig = (line: string) => hmacSha256Hex(SECRET, new TextEncoder().encode(line));
    expect(net.requests.map((r) => [new URL(r.url).pathname, r.headers.get("x-signature")])).toEqual([
      [`/gw/payouts/${key}`, await sig(`GET /gw/payouts/${key}`)],
      ["/gw/balances", await sig("GET /gw/balances")],
    ]);
  });
});

describe("HTTP payout gateway: GET /balances", () => {
  const signedText = async (text: string) =>
    new HttpResponse(text, {
      headers: { "x-signature": await hmacSha256Hex(SECRET, new TextEncoder().encode(text)) },
    });
  const gatewayAnswering = (answer: () => Response | Promise<Response>) => {
    const net = createMockNetwork(http.get(`${BASE}/balances`, answer));
    return { net, gw: createHttpPayout({ baseUrl: BASE, secret: SECRET, fetch: net.fetch }) };
  };

  it("asks with the request line signed and returns a signed answer's balances", async () => {
    const { net, gw } = gatewayAnswering(() =>
      signedText(JSON.stringify({ balances: [{ coin: "usdt", network: "trx", available: "1200.5" }] })),
    );
    expect(await gw.balances()).toEqual([{ coin: "USDT", network: "TRX", available: "1200.5" }]);
    expect(net.requests[0]?.headers.get("x-signature")).toBe(
      await hmacSha256Hex(SECRET, new TextEncoder().encode("GET /balances")),
    );
  });

  it("never returns an unsigned, wrongly signed, failed or malformed answer", async () => {
    const body = JSON.stringify({ balances: [{ coin: "USDT", network: "TRX", available: "1" }] });
    const answers: (() => Response | Promise<Response>)[] = [
      () => new HttpResponse(body),
      () => new HttpResponse(body, { headers: { "x-signature": "00".repeat(32) } }),
      () => new HttpResponse(body, { status: 503 }),
      () => signedText(JSON.stringify({ balances: [{ coin: "USDT", network: "TRX", available: 1 }] })),
      () => signedText(JSON.stringify({ balances: [{ coin: "USDT", network: "TRX", available: "-1" }] })),
    ];
    for (const answer of answers) await expect(gatewayAnswering(answer).gw.balances()).rejects.toThrow();
  });
});
