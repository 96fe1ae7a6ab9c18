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

  it("classifies failures: 4xx final, 5xx/429/timeout/network retryable, 2xx without txid unknown (retryable)", async () => {
    const cases: [Parameters<typeof http.post>[1], boolean][] = [
      [() => new HttpResponse("bad address", { status: 422 }), false],
      [() => new HttpResponse("oops", { status: 500 }), true],
      [() => new HttpResponse("slow down", { status: 429 }), true],
      [() => new HttpResponse("in progress", { status: 409 }), true],
      [() => new HttpResponse("bad signature", { status: 401 }), false],
      [() => HttpResponse.error(), true],
      [() => HttpResponse.json({ accepted: true }), true],
      [
        async () => {
          await delay(200);
          return HttpResponse.json({ txid: "late" });
        },
        true,
      ],
    ];
    for (const [resolver, retryable] of cases) {
      const net = createMockNetwork(http.post(`${BASE}/payouts`, resolver));
      const gw = createHttpPayout({ baseUrl: BASE, secret: SECRET, fetch: net.fetch, timeoutMs: 50 });
      expect(await gw.send(REQ)).toMatchObject({ status: "failed", retryable });
    }
  });

  it("looks a key up: 404/410 → not paid, 200 → the txid, anything else → error (outcome still unknown)", async () => {
    const key = encodeURIComponent(REQ.idempotencyKey);
    const net = createMockNetwork(
      http.get(`${BASE}/payouts/${key}`, () => HttpResponse.json({ txid: "cd".repeat(32) })),
    );
    const gw = createHttpPayout({ baseUrl: BASE, secret: SECRET, fetch: net.fetch });
    expect(await gw.lookup(REQ.idempotencyKey, "TRX")).toEqual({ txid: "cd".repeat(32) });
    // Signed over the request line, so the signature is good for this key only.
    expect(net.requests[0]?.headers.get("x-signature")).toBe(
      await hmacSha256Hex(SECRET, new TextEncoder().encode(`GET /payouts/${key}`)),
    );
    net.use(http.get(`${BASE}/payouts/${key}`, () => new HttpResponse(null, { status: 404 })));
    expect(await gw.lookup(REQ.idempotencyKey, "TRX")).toBeNull();
    // 410: received and refused for good; nothing was sent either.
    net.use(http.get(`${BASE}/payouts/${key}`, () => new HttpResponse(null, { status: 410 })));
    expect(await gw.lookup(REQ.idempotencyKey, "TRX")).toBeNull();
    net.use(http.get(`${BASE}/payouts/${key}`, () => new HttpResponse(null, { status: 503 })));
    await expect(gw.lookup(REQ.idempotencyKey, "TRX")).rejects.toThrow(/503/);
  });
});
