import { delay, HttpResponse, http } from "msw";
import { beforeEach, describe, expect, it } from "vitest";
import { classify, createBinanceVenue } from "../../../src/adapters/exchange/binance";
import type { VenueOrder } from "../../../src/adapters/exchange/types";
import { stepLeg } from "../../../src/adapters/exchange/venue-legs";
import { parseDecimal } from "../../../src/domain/money";
import { type LegState, LOOKUP_INTERVAL_MS, LOST_WINDOW_MS } from "../../../src/domain/venue-policy";
import { legClientOrderId, routeLegs, sizeLeg } from "../../../src/domain/venue-route";
import errors from "../../fixtures/venue/errors.json";
import symbolInfo from "../../fixtures/venue/exchange-info-symbol.json";
import myTrades from "../../fixtures/venue/my-trades.json";
import filledFull from "../../fixtures/venue/order-full-filled.json";
import orderQuery from "../../fixtures/venue/order-query.json";
import serverTime from "../../fixtures/venue/time.json";
import { createMockNetwork } from "../../support/msw";

describe("Binance venue", () => {
  // Binance spot on recorded response shapes (test/fixtures/venue/README.md), served by MSW. A tiny
  // book of orders by client id stands in for the venue's memory, so lookups answer what was placed.
  const BASE = "https://testnet.binance.vision";
  const ORDER_ID = "0b8e7c52-3f1d-4a8e-9c4b-2d6f0e1a9b7c";
  type Err = keyof typeof errors;

  const market = (symbol: string, base: string, quote: string) => ({
    ...symbolInfo,
    symbol,
    baseAsset: base,
    quoteAsset: quote,
    quoteAssetPrecision: 8,
  });
  const INFO = {
    timezone: "UTC",
    serverTime: serverTime.serverTime,
    rateLimits: [],
    exchangeFilters: [],
    symbols: [
      market("ETHBTC", "ETH", "BTC"),
      market("BTCUSDT", "BTC", "USDT"),
      market("SOLUSDT", "SOL", "USDT"),
      // The recorded NOTIONAL filter exempts market orders; this one applies its minimum to them.
      {
        ...market("XRPUSDT", "XRP", "USDT"),
        filters: symbolInfo.filters.map((f) =>
          f.filterType === "NOTIONAL" ? { ...f, applyMinToMarket: true } : f,
        ),
      },
    ],
  };

  let book: Map<string, Record<string, unknown>>;
  /** What the next POSTs answer, in turn; "fill" books the order and answers FULL. */
  let script: (Err | "fill" | "fill-then-timeout" | "accept-then-500")[];
  let clock: number;

  function filled(q: URLSearchParams) {
    const qty = q.get("quantity") ?? "1.00000000";
    return {
      ...filledFull,
      symbol: q.get("symbol"),
      side: q.get("side"),
      clientOrderId: q.get("newClientOrderId"),
      executedQty: qty,
      cummulativeQuoteQty: q.get("quoteOrderQty") ?? "4000.00000000",
      fills: [filledFull.fills[0]],
    };
  }
  const errorResponse = (name: Err) => {
    const e = errors[name] as { status: number; body: { code: number; msg: string }; retryAfter?: string };
    return HttpResponse.json(e.body, {
      status: e.status,
      headers: e.retryAfter ? { "Retry-After": e.retryAfter } : {},
    });
  };

  const network = createMockNetwork(
    http.get(`${BASE}/api/v3/myTrades`, ({ request }) => {
      const q = new URL(request.url).searchParams;
      if (q.get("orderId") === "500")
        return HttpResponse.json({ code: -1000, msg: "An unknown error occurred" }, { status: 503 });
      // The recorded trade, plus one of another order (the venue filters by orderId; the adapter checks).
      return HttpResponse.json([myTrades[0], { ...myTrades[0], id: 28458, orderId: 999 }]);
    }),
    http.get(`${BASE}/api/v3/exchangeInfo`, () => HttpResponse.json(INFO)),
    http.get(`${BASE}/api/v3/time`, () => HttpResponse.json({ serverTime: clock + 3_000 })),
    http.post(`${BASE}/api/v3/order`, async ({ request }) => {
      const q = new URL(request.url).searchParams;
      const next = script.shift() ?? "fill";
      if (next === "fill" || next === "fill-then-timeout" || next === "accept-then-500") {
        const body = filled(q);
        book.set(String(q.get("newClientOrderId")), body);
        if (next === "fill-then-timeout") await delay(200);
        if (next === "accept-then-500") return new HttpResponse("upstream error", { status: 502 });
        return HttpResponse.json(body);
      }
      return errorResponse(next);
    }),
    http.get(`${BASE}/api/v3/order`, ({ request }) => {
      const q = new URL(request.url).searchParams;
      const found = book.get(String(q.get("origClientOrderId")));
      if (!found) return errorResponse("no_such_order");
      const { fills: _omitted, ...rest } = found;
      return HttpResponse.json({ ...orderQuery, ...rest, status: "FILLED" });
    }),
  );

  const venue = (timeoutMs = 10_000) =>
    createBinanceVenue({
      baseUrl: BASE,
      apiKey: "vmPUZE6mv9SD5VNHk4HlWFsOr6aKE2zvsw0MuIgwCIPy6utIco14y7Ju91duEh8A",
      apiSecret: "NhqPtmdSJYdKjVHjA7PZj4Mge3R5YNiP1e3UZjInClVN65XAbvqqM6A7H5fATj0j",
      fetch: network.fetch,
      now: () => clock,
      timeoutMs,
    });

  const posts = () => network.requests.filter((r) => r.method === "POST" && r.url.includes("/api/v3/order"));

  /** Drives one leg to a final state as the order object's alarms would, moving the clock to each next step. */
  async function runLeg(
    v: ReturnType<typeof venue>,
    order: VenueOrder,
    clientOrderId: string,
    maxSteps = 30,
  ) {
    let state: LegState = { phase: "ready" };
    const stored: LegState[] = [];
    for (let i = 0; i < maxSteps; i++) {
      const step = await stepLeg(v, order, clientOrderId, state, clock, (s) => {
        stored.push(s);
      });
      if (!step) break;
      state = step.state;
      if (step.next.do === "none") return { state, stored, outcome: step.outcome };
      clock = Math.max(clock, step.next.notBefore);
    }
    return { state, stored, outcome: null };
  }

  beforeEach(() => {
    book = new Map();
    script = [];
    clock = 1_700_000_000_000;
    network.reset();
  });

  describe("Binance venue: signing", () => {
    it("signs the exact query with HMAC-SHA256 (the docs' example vector), key header, recvWindow", async () => {
      clock = 1499827319559;
      await venue().lookup("LTCBTC", "myOrder1");
      const req = network.requests.find((r) => r.method === "GET" && r.url.includes("/api/v3/order"));
      const url = new URL(req!.url);
      expect(url.searchParams.get("recvWindow")).toBe("5000");
      expect(url.searchParams.get("timestamp")).toBe("1499827319559");
      expect(req!.headers.get("x-mbx-apikey")).toMatch(/^vmPUZE6/);
      // Same secret, the docs' payload: rest-api.md prints this signature for it.
      const key = await crypto.subtle.importKey(
        "raw",
        new TextEncoder().encode("NhqPtmdSJYdKjVHjA7PZj4Mge3R5YNiP1e3UZjInClVN65XAbvqqM6A7H5fATj0j"),
        { name: "HMAC", hash: "SHA-256" },
        false,
        ["sign"],
      );
      const payload = url.search.slice(1).replace(/&signature=.*$/, "");
      const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(payload));
      expect(url.searchParams.get("signature")).toBe(Buffer.from(mac).toString("hex"));
      const docs = await crypto.subtle.sign(
        "HMAC",
        key,
        new TextEncoder().encode(
          "symbol=LTCBTC&side=BUY&type=LIMIT&timeInForce=GTC&quantity=1&price=0.1&recvWindow=5000&timestamp=1499827319559",
        ),
      );
      expect(Buffer.from(docs).toString("hex")).toBe(
        "c8db56825ae71d6d79447849e617115f4a920fa2acdcab2b053c4b2838bd6b71",
      );
    });
  });

  describe("Binance venue: routing and fills", () => {
    it("direct market: ETH→BTC is one SELL on ETHBTC, sized to LOT_SIZE; one POST", async () => {
      const v = venue();
      const legs = routeLegs(await v.markets(), "ETH", "BTC");
      expect(legs?.map((l) => [l.market.symbol, l.side])).toEqual([["ETHBTC", "SELL"]]);
      const size = sizeLeg(legs![0]!, parseDecimal("1.23456"), parseDecimal("0.05"));
      expect(size).toMatchObject({ ok: true, params: { quantity: "1.234" } });
      if (!size.ok) throw new Error(size.reason);
      const r = await runLeg(
        v,
        { symbol: "ETHBTC", side: "SELL", params: size.params },
        legClientOrderId(ORDER_ID, 0),
      );
      expect(r.state).toEqual({ phase: "filled" });
      expect(r.outcome).toMatchObject({
        kind: "filled",
        execution: { executedQty: "1.234", fills: [{ commissionAsset: "USDT" }] },
      });
      expect(posts()).toHaveLength(1);
      expect(new URL(posts()[0]!.url).searchParams.get("newClientOrderId")).toBe(
        "0b8e7c523f1d4a8e9c4b2d6f0e1a9b7c-1",
      );
    });

    it("no direct market: BTC→SOL is SELL BTCUSDT then BUY SOLUSDT with quoteOrderQty; two POSTs", async () => {
      const v = venue();
      const legs = routeLegs(await v.markets(), "BTC", "SOL");
      expect(legs?.map((l) => [l.market.symbol, l.side])).toEqual([
        ["BTCUSDT", "SELL"],
        ["SOLUSDT", "BUY"],
      ]);
      const first = await runLeg(
        v,
        { symbol: "BTCUSDT", side: "SELL", params: { quantity: "0.01" } },
        legClientOrderId(ORDER_ID, 0),
      );
      expect(first.outcome).toMatchObject({ kind: "filled" });
      const got = first.outcome?.kind === "filled" ? first.outcome.execution.quoteQty : "0";
      const size = sizeLeg(legs![1]!, parseDecimal(got), parseDecimal("150"));
      expect(size).toMatchObject({ ok: true, params: { quoteOrderQty: "4000" } });
      if (!size.ok) throw new Error(size.reason);
      const second = await runLeg(
        v,
        { symbol: "SOLUSDT", side: "BUY", params: size.params },
        legClientOrderId(ORDER_ID, 1),
      );
      expect(second.state).toEqual({ phase: "filled" });
      expect(posts().map((p) => new URL(p.url).searchParams.get("newClientOrderId"))).toEqual([
        "0b8e7c523f1d4a8e9c4b2d6f0e1a9b7c-1",
        "0b8e7c523f1d4a8e9c4b2d6f0e1a9b7c-2",
      ]);
    });

    it("refuses to size an order below the market's filters (never sends it)", async () => {
      const markets = await venue().markets();
      const [eth] = routeLegs(markets, "ETH", "BTC")!;
      expect(sizeLeg(eth!, parseDecimal("0.0009"), parseDecimal("0.05"))).toMatchObject({
        ok: false,
        reason: /minQty/,
      });
      // applyMinToMarket false: a small ETHBTC market order passes the notional rule.
      expect(sizeLeg(eth!, parseDecimal("0.5"), parseDecimal("0.05"))).toMatchObject({ ok: true });
      const [xrp] = routeLegs(markets, "XRP", "USDT")!;
      expect(sizeLeg(xrp!, parseDecimal("19"), parseDecimal("0.5"))).toMatchObject({
        ok: false,
        reason: /notional/,
      });
      expect(sizeLeg(xrp!, parseDecimal("21"), parseDecimal("0.5"))).toMatchObject({
        ok: true,
        params: { quantity: "21" },
      });
      expect(routeLegs(markets, "XRP", "DOGE")).toBeNull();
      expect(posts()).toHaveLength(0);
    });
  });

  describe("Binance venue: intent, then lookup — never two fills for one leg", () => {
    const order: VenueOrder = { symbol: "BTCUSDT", side: "SELL", params: { quantity: "0.01" } };
    const id = legClientOrderId(ORDER_ID, 0);

    it("timeout after the venue accepted: the lookup finds the fill, nothing is placed again", async () => {
      script = ["fill-then-timeout"];
      const r = await runLeg(venue(50), order, id);
      expect(r.stored[0]).toEqual({ phase: "sending" });
      expect(r.state).toEqual({ phase: "filled" });
      expect(r.outcome).toMatchObject({ kind: "filled", execution: { executedQty: "0.01", fills: [] } });
      expect(posts()).toHaveLength(1);
    });

    it("a 5xx after the venue booked it: found by lookup, one POST", async () => {
      script = ["accept-then-500"];
      expect((await runLeg(venue(), order, id)).state).toEqual({ phase: "filled" });
      expect(posts()).toHaveLength(1);
    });

    it("5xx then not found ×N over the window: placed again exactly once, with the same client order id", async () => {
      script = ["backend_timeout", "fill"];
      const start = clock;
      const r = await runLeg(venue(), order, id);
      expect(r.state).toEqual({ phase: "filled" });
      expect(posts()).toHaveLength(2);
      expect(posts().map((p) => new URL(p.url).searchParams.get("newClientOrderId"))).toEqual([id, id]);
      const lookups = network.requests.filter((x) => x.method === "GET" && x.url.includes("/api/v3/order"));
      expect(lookups.length).toBeGreaterThanOrEqual(3);
      expect(clock - start).toBeGreaterThanOrEqual(LOST_WINDOW_MS);
      expect(clock - start).toBeLessThan(LOST_WINDOW_MS + 2 * LOOKUP_INTERVAL_MS);
    });

    it("-1021: resyncs with /api/v3/time and sends once more, with the server's clock", async () => {
      script = ["invalid_timestamp", "fill"];
      const r = await runLeg(venue(), order, id);
      expect(r.state).toEqual({ phase: "filled" });
      expect(network.requests.some((x) => x.url.endsWith("/api/v3/time"))).toBe(true);
      expect(posts()).toHaveLength(2);
      const [a, b] = posts().map((p) => Number(new URL(p.url).searchParams.get("timestamp")));
      expect(b! - a!).toBeGreaterThanOrEqual(2_900);
    });

    it("insufficient balance and filter failures are definite rejections: classified, not retried", async () => {
      script = ["insufficient_balance"];
      const r = await runLeg(venue(), order, id);
      expect(r.state).toEqual({ phase: "rejected", reason: "insufficient_balance" });
      expect(r.outcome).toMatchObject({ kind: "rejected", code: -2010 });
      expect(posts()).toHaveLength(1);
      script = ["filter_failure"];
      expect((await runLeg(venue(), order, legClientOrderId(ORDER_ID, 1))).state).toEqual({
        phase: "rejected",
        reason: "filter",
      });
      expect(posts()).toHaveLength(2);
    });

    it("429 / 418: waits Retry-After, then places (the venue refused it before the engine)", async () => {
      script = ["rate_limited", "fill"];
      const start = clock;
      expect((await runLeg(venue(), order, id)).state).toEqual({ phase: "filled" });
      expect(clock - start).toBe(7_000);
      expect(posts()).toHaveLength(2);
      expect(classify(418, new Headers({ "Retry-After": "120" }), errors.ip_banned.body)).toEqual({
        kind: "rate_limited",
        retryAfterSeconds: 120,
      });
    });
  });

  describe("Binance venue: what a lookup answer means", () => {
    const none = new Headers();
    const lookup = (status: number, body: unknown) => classify(status, none, body, "lookup");

    it("only -2013 in a 4xx says the order is not there; every other error asks again", () => {
      expect(lookup(400, errors.no_such_order.body)).toEqual({ kind: "not_found" });
      expect(lookup(503, errors.no_such_order.body)).toMatchObject({ kind: "unknown" });
      expect(lookup(400, errors.bad_symbol.body)).toEqual({
        kind: "unknown",
        error: "-1121 Invalid symbol.",
      });
      expect(lookup(400, errors.filter_failure.body)).toMatchObject({ kind: "unknown" });
      expect(lookup(400, { code: -2010, msg: "Account has insufficient balance" })).toMatchObject({
        kind: "unknown",
      });
      expect(lookup(500, null)).toMatchObject({ kind: "unknown" });
    });

    it("-2010 'Duplicate order sent.' on a placement: an order under that client id exists, so unknown (looked up), never a refusal", () => {
      expect(classify(400, none, errors.duplicate_order.body, "place")).toEqual({
        kind: "unknown",
        error: "-2010 Duplicate order sent.",
      });
      // The same code with another message is still the refusal it says.
      expect(classify(400, none, errors.insufficient_balance.body, "place")).toMatchObject({
        kind: "rejected",
        reason: "insufficient_balance",
      });
    });

    it("401, 403, -2014, -2015, -1022 are configuration errors, on a lookup and on a placement", () => {
      for (const call of ["lookup", "place"] as const) {
        expect(classify(401, none, errors.rejected_key.body, call)).toMatchObject({ kind: "config" });
        expect(classify(400, none, errors.invalid_signature.body, call)).toMatchObject({ kind: "config" });
        expect(classify(400, none, { code: -2014, msg: "API-key format invalid." }, call)).toMatchObject({
          kind: "config",
        });
        expect(classify(401, none, null, call)).toEqual({ kind: "config", error: "HTTP 401" });
        expect(classify(403, none, null, call)).toMatchObject({ kind: "config" });
      }
      // A placement's definite refusals stay refusals.
      expect(classify(400, none, errors.bad_symbol.body, "place")).toMatchObject({
        kind: "rejected",
        code: -1121,
      });
    });
  });

  describe("Binance venue: trades of an order found by lookup", () => {
    it("signed GET /api/v3/myTrades by orderId: price, qty, commission and its asset per trade", async () => {
      expect(await venue().trades("BNBBTC", 100234)).toEqual([
        { price: "4.00000100", qty: "12.00000000", commission: "10.10000000", commissionAsset: "BNB" },
      ]);
      const url = new URL(network.requests.find((r) => r.url.includes("/myTrades"))!.url);
      expect(url.searchParams.get("orderId")).toBe("100234");
      expect(url.searchParams.get("signature")).toMatch(/^[0-9a-f]{64}$/);
    });

    it("an error answer throws (the exchange step then waits) rather than reading as no trades", async () => {
      await expect(venue().trades("BNBBTC", 500)).rejects.toThrow(/HTTP 503/);
    });
  });
});
