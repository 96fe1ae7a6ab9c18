import { delay, HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { createHttpPayout } from "../../../src/adapters/payout/http";
import type { PayoutRequest } from "../../../src/adapters/payout/types";
import { hmacSha256Hex } from "../../../src/domain/credentials";
import { createMockNetwork } from "../../support/msw";

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

/** A contract-v2 statement: the key, the outcome and when, signed over the exact body. */
async function statement(
  status: number,
  said: Record<string, unknown>,
  opts: { key?: string; at?: Date; secret?: string } = {},
): Promise<Response> {
  const text = JSON.stringify({
    key: opts.key ?? REQ.idempotencyKey,
    ...said,
    at: (opts.at ?? new Date()).toISOString(),
  });
  return new HttpResponse(text, {
    status,
    headers: {
      "x-signature": await hmacSha256Hex(opts.secret ?? SECRET, new TextEncoder().encode(text)),
    },
  });
}
const TXID = "ab".repeat(32);
const paid = (opts: { key?: string; at?: Date; secret?: string } = {}, amount = REQ.amount, status = 201) =>
  statement(status, { status: "sent", txid: TXID, amount }, opts);
const AN_HOUR_AGO = () => new Date(Date.now() - 3_600_000);
const OTHER_KEY = "0b6d2c1e-0000-4000-8000-000000000002:payout";

describe("HTTP payout gateway (contract v2)", () => {
  it("POSTs the payout signed with HMAC-SHA256 and the idempotency key; a signed statement of the payment → sent", async () => {
    const net = createMockNetwork(http.post(`${BASE}/payouts`, () => paid()));
    const gw = createHttpPayout({ baseUrl: `${BASE}/`, secret: SECRET, fetch: net.fetch });
    expect(await gw.send(REQ)).toEqual({ status: "sent", txid: TXID });
    const [req] = net.requests;
    expect(req?.url).toBe(`${BASE}/payouts`);
    expect(req?.headers.get("idempotency-key")).toBe(REQ.idempotencyKey);
    expect(JSON.parse(req?.body ?? "")).toEqual(REQ);
    expect(req?.headers.get("x-signature")).toBe(
      await hmacSha256Hex(SECRET, new TextEncoder().encode(req?.body ?? "")),
    );
    expect(net.unhandled).toEqual([]);
  });

  it("classifies send answers: only a signed statement on this key, this amount and now ends a send", async () => {
    const cases: [Parameters<typeof http.post>[1], Record<string, unknown>][] = [
      [() => statement(422, { status: "refused", reason: "bad address" }), { status: "refused" }],
      // An unsigned 200 {txid} (a proxy, a forger) never marks an order paid.
      [() => HttpResponse.json({ txid: TXID }, { status: 200 }), { status: "unknown" }],
      // Signed, but for another key, an hour ago, another amount, or with another secret.
      [() => paid({ key: OTHER_KEY }), { status: "unknown" }],
      [() => paid({ at: AN_HOUR_AGO() }), { status: "unknown" }],
      [() => paid({}, "597"), { status: "unknown" }],
      [() => paid({ secret: "another-secret" }), { status: "unknown" }],
      [() => statement(422, { status: "refused" }, { key: OTHER_KEY }), { status: "unknown" }],
      [() => statement(422, { status: "refused" }, { at: AN_HOUR_AGO() }), { status: "unknown" }],
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
          return paid();
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

  it("looks a key up: only signed statements on this key, now, say paid, 'never received' or 'refused'", async () => {
    const key = encodeURIComponent(REQ.idempotencyKey);
    const url = `${BASE}/payouts/${key}`;
    const net = createMockNetwork(http.get(url, () => paid({}, REQ.amount, 200)));
    const gw = createHttpPayout({ baseUrl: BASE, secret: SECRET, fetch: net.fetch });
    expect(await gw.lookup(REQ)).toEqual({ status: "sent", txid: TXID });
    // Signed over the request line, so the signature is good for this key only.
    expect(net.requests[0]?.headers.get("x-signature")).toBe(
      await hmacSha256Hex(SECRET, new TextEncoder().encode(`GET /payouts/${key}`)),
    );
    net.use(http.get(url, () => statement(404, { status: "unknown_key" })));
    expect(await gw.lookup(REQ)).toEqual({ status: "unknown_key" });
    net.use(http.get(url, () => statement(410, { status: "refused", reason: "sanctioned address" })));
    expect(await gw.lookup(REQ)).toEqual({ status: "refused", error: "sanctioned address" });
    // A proxy's 404, an unsigned 200 {txid}, a signed "unknown key" replayed from another key or
    // signed an hour ago, one signed with another secret, a 503: whether money left is unknown.
    for (const answer of [
      () => new HttpResponse("Not Found", { status: 404 }),
      () => HttpResponse.json({ txid: TXID }),
      () => HttpResponse.json({ status: "unknown_key" }, { status: 404 }),
      () => statement(404, { status: "unknown_key" }, { key: OTHER_KEY }),
      () => statement(404, { status: "unknown_key" }, { at: AN_HOUR_AGO() }),
      () => statement(404, { status: "unknown_key" }, { secret: "another-secret" }),
      () => paid({}, "1", 200),
      () => new HttpResponse(null, { status: 503 }),
      () => HttpResponse.json({ status: "in_progress" }),
    ]) {
      net.use(http.get(url, answer));
      expect(await gw.lookup(REQ)).toMatchObject({ status: "error" });
    }
    // Our credentials refused on a lookup: a configuration error, as on a send.
    net.use(http.get(url, () => new HttpResponse("unauthorized", { status: 401 })));
    expect(await gw.lookup(REQ)).toMatchObject({ status: "error", config: true });
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
    expect(await gw.lookup(REQ)).toMatchObject({ status: "error" });
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
