/**
 * A Binance-like spot venue for lifecycle tests, served over MSW to the real adapter
 * (EXCHANGE_MODE=binance), on the recorded response shapes of test/fixtures/venue. Like the real
 * venue it keeps client order ids unique only among OPEN orders: a POST reusing the id of a filled
 * order trades again. So "never two fills for one leg" is the exchange step's doing (intent, then
 * lookup), and `filledTwice()` shows it when that protection is removed. Faults are scripted per
 * POST or drawn from a seeded PRNG.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { HttpResponse, http } from "msw";
import { vi } from "vitest";
import { type Config, getConfig } from "../../src/config";
import { type Decimal, floorTo, parseDecimal, toDecimalString } from "../../src/domain/money";
import errors from "../fixtures/venue/errors.json";
import symbolInfo from "../fixtures/venue/exchange-info-symbol.json";
import myTrades from "../fixtures/venue/my-trades.json";
import filledFull from "../fixtures/venue/order-full-filled.json";
import orderQuery from "../fixtures/venue/order-query.json";
import { TEST_PRICES } from "../helpers";
import { seededDraws } from "./counting-gateway";
import { createMockNetwork } from "./msw";

export const VENUE_URL = "https://venue.test";
export const TAKER_FEE = "0.001";

/** How the venue answers one POST /api/v3/order. */
export type PlaceFault =
  | "ok"
  /** Trades, then the connection drops: the caller cannot know. */
  | "fill_then_drop"
  /** Trades, then a proxy answers 502. */
  | "fill_then_502"
  /** Fails before booking anything (502): lookups say "does not exist". */
  | "502"
  /** -1007: the venue itself does not know; here it booked nothing. */
  | "unknown_not_booked"
  /** -1007, and the order did trade. */
  | "unknown_booked"
  /** Books the order open (NEW); it trades on a later lookup. */
  | "accept_later"
  /** 429 with Retry-After: refused before the engine. */
  | "429"
  /** -1021 timestamp outside recvWindow: refused before the engine. */
  | "1021"
  /** -2010 insufficient balance. */
  | "insufficient"
  /** -1013 filter failure. */
  | "filter"
  /** Trades, then answers -2010 "Duplicate order sent." (as when a retried POST met the first). */
  | "duplicate"
  /** 401 -2015: our API key refused (rotated, or reached from an IP it is not allowed from). */
  | "2015";

/**
 * How the venue answers one GET /api/v3/order: none of the faults says anything about the order.
 * `hang` answers nothing until the client gives up (the wait shortened to a few ms here).
 */
export type LookupFault = "ok" | "5xx" | "401" | "2015" | "1022" | "1121" | "hang";

interface VenueOrderRow {
  orderId: number;
  clientOrderId: string;
  symbol: string;
  side: "BUY" | "SELL";
  status: "NEW" | "FILLED" | "EXPIRED";
  params: URLSearchParams;
  executedQty: string;
  quoteQty: string;
  fills: { price: string; qty: string; commission: string; commissionAsset: string }[];
}

const MARKETS: [string, string, string, string, string][] = [
  // symbol, base, quote, stepSize, tickSize
  ["BTCUSDT", "BTC", "USDT", "0.00001", "0.01"],
  ["ETHBTC", "ETH", "BTC", "0.0001", "0.000001"],
  ["TRXUSDT", "TRX", "USDT", "0.1", "0.00001"],
  ["XRPUSDT", "XRP", "USDT", "0.1", "0.0001"],
];

const exchangeInfo = () => ({
  timezone: "UTC",
  serverTime: Date.now(),
  rateLimits: [],
  exchangeFilters: [],
  symbols: MARKETS.map(([symbol, base, quote, step, tick]) => ({
    ...symbolInfo,
    symbol,
    baseAsset: base,
    quoteAsset: quote,
    quoteAssetPrecision: 8,
    filters: [
      { filterType: "PRICE_FILTER", minPrice: tick, maxPrice: "1000000", tickSize: tick },
      { filterType: "LOT_SIZE", minQty: step, maxQty: "9000000", stepSize: step },
      {
        filterType: "NOTIONAL",
        minNotional: "5",
        applyMinToMarket: true,
        maxNotional: "9000000",
        applyMaxToMarket: false,
        avgPriceMins: 5,
      },
    ],
  })),
});

/** The venue's last price of a market, quote per base, from the test's USD prices. */
export function venuePrice(symbol: string): Decimal {
  const [, base, quote] = MARKETS.find(([s]) => s === symbol) ?? [];
  return parseDecimal(TEST_PRICES[base ?? ""]).div(parseDecimal(TEST_PRICES[quote ?? ""]));
}

export interface FakeVenue {
  /** The venue's network, for an adapter built directly (createBinanceVenue({ fetch })). */
  fetch: typeof fetch;
  /** Every order the venue booked, by client order id, in order (a reused id books another). */
  orders: Map<string, VenueOrderRow[]>;
  /** POST /api/v3/order requests received (each one could have traded). */
  posts: URLSearchParams[];
  /** Every request, as "METHOD path". */
  calls: string[];
  placeFaults: PlaceFault[];
  lookupFaults: LookupFault[];
  /** Price moves by market (factor on quote per base): `ticker` moves the last price and the fills, `fill` only the fills (a move after the ticker was read). */
  moves: { ticker: Record<string, string>; fill: Record<string, string> };
  /**
   * When the scripts are empty: faults drawn at these rates (seeded). `laterLegRefusal`: the rate at
   * which the first POST of a leg after the first (its predecessor filled) is refused (-1013).
   */
  random: { placeFault: number; lookupFault: number; seed: number; laterLegRefusal?: number } | null;
  /** Client order ids of later legs refused by `random.laterLegRefusal`. */
  refusedLaterLegs: string[];
  /** How each GET /api/v3/order was answered ("ok" included), scripted or drawn. */
  lookupFaultsServed: Map<LookupFault, number>;
  /** Client order ids that traded more than once (must be empty). */
  filledTwice(): string[];
  /** Points the order's object at this venue (EXCHANGE_MODE=binance). */
  attach(orderId: string): Promise<void>;
  /** Changes the order object's venue settings (a deploy that drops or rotates a secret, …). */
  reconfigure(orderId: string, patch: Partial<Config>): Promise<void>;
  /** Restores every object's configuration. */
  detach(): void;
}

const errorResponse = (name: keyof typeof errors) => {
  const e = errors[name] as { status: number; body: { code: number; msg: string }; retryAfter?: string };
  return HttpResponse.json(e.body, {
    status: e.status,
    headers: e.retryAfter ? { "Retry-After": e.retryAfter } : {},
  });
};

export function createFakeVenue(): FakeVenue {
  const orders = new Map<string, VenueOrderRow[]>();
  const posts: URLSearchParams[] = [];
  const calls: string[] = [];
  const patched = new Map<Config, Partial<Config>>();
  let nextId = 1000;
  const draws = seededDraws();

  const moved = (symbol: string, ...factors: Record<string, string>[]) =>
    factors.reduce((p, f) => p.mul(parseDecimal(f[symbol] ?? "1")), venuePrice(symbol));
  const lastPrice = (symbol: string) => moved(symbol, venue.moves.ticker);

  /**
   * Trades at the last price (one fill, taker fee in the asset received): a market order, or a
   * fill-or-kill limit order whose price the last price meets (else it expires with nothing traded).
   */
  const trade = (row: VenueOrderRow) => {
    const price = moved(row.symbol, venue.moves.ticker, venue.moves.fill);
    const [, base, quote, step] = MARKETS.find(([s]) => s === row.symbol) ?? [];
    const fee = parseDecimal(TAKER_FEE);
    const limit = row.params.get("price");
    if (limit !== null) {
      const worse = row.side === "SELL" ? price.lt(parseDecimal(limit)) : price.gt(parseDecimal(limit));
      if (row.params.get("type") !== "LIMIT" || row.params.get("timeInForce") !== "FOK")
        throw new Error("the fake venue takes a price only on a LIMIT FOK order");
      if (worse) {
        row.status = "EXPIRED";
        return;
      }
    }
    let qty: Decimal;
    if (row.side === "SELL" || limit !== null) qty = parseDecimal(row.params.get("quantity"));
    else {
      const spend = parseDecimal(row.params.get("quoteOrderQty"));
      qty = spend.div(price).div(parseDecimal(step)).floor().mul(parseDecimal(step));
    }
    const quoteQty = floorTo(qty.mul(price), 8);
    const commission = row.side === "SELL" ? floorTo(quoteQty.mul(fee), 8) : floorTo(qty.mul(fee), 8);
    row.status = "FILLED";
    row.executedQty = toDecimalString(qty);
    row.quoteQty = toDecimalString(quoteQty);
    row.fills = [
      {
        price: toDecimalString(price),
        qty: toDecimalString(qty),
        commission: toDecimalString(commission),
        commissionAsset: (row.side === "SELL" ? quote : base) ?? "",
      },
    ];
  };

  const book = (q: URLSearchParams, fill: boolean): VenueOrderRow => {
    const id = q.get("newClientOrderId") ?? "";
    const row: VenueOrderRow = {
      orderId: nextId++,
      clientOrderId: id,
      symbol: q.get("symbol") ?? "",
      side: q.get("side") === "BUY" ? "BUY" : "SELL",
      status: "NEW",
      params: q,
      executedQty: "0",
      quoteQty: "0",
      fills: [],
    };
    if (fill) trade(row);
    orders.set(id, [...(orders.get(id) ?? []), row]);
    return row;
  };

  const view = (row: VenueOrderRow) => ({
    ...filledFull,
    symbol: row.symbol,
    orderId: row.orderId,
    clientOrderId: row.clientOrderId,
    side: row.side,
    status: row.status,
    origQty: row.executedQty,
    executedQty: row.executedQty,
    cummulativeQuoteQty: row.quoteQty,
    fills: row.fills.map((f, i) => ({ ...f, tradeId: row.orderId * 10 + i })),
  });

  const venue: FakeVenue = {
    fetch: (input, init) => net.fetch(input, init),
    orders,
    posts,
    calls,
    placeFaults: [],
    lookupFaults: [],
    moves: { ticker: {}, fill: {} },
    random: null,
    refusedLaterLegs: [],
    lookupFaultsServed: new Map(),
    filledTwice: () =>
      [...orders]
        .filter(([, rows]) => rows.filter((r) => r.status === "FILLED").length > 1)
        .map(([id]) => id),
    async attach(orderId) {
      await venue.reconfigure(orderId, {
        EXCHANGE_MODE: "binance",
        EXCHANGE_URL: VENUE_URL,
        EXCHANGE_API_KEY: "fake-venue-key",
        EXCHANGE_API_SECRET: "fake-venue-secret",
      });
      vi.stubGlobal("fetch", net.fetch);
    },
    async reconfigure(orderId, patch) {
      const config = await runInDurableObject(env.ORDERS.getByName(orderId), (obj) =>
        getConfig((obj as unknown as { env: Env }).env),
      );
      if (!patched.has(config))
        patched.set(config, {
          EXCHANGE_MODE: config.EXCHANGE_MODE,
          EXCHANGE_URL: config.EXCHANGE_URL,
          EXCHANGE_API_KEY: config.EXCHANGE_API_KEY,
          EXCHANGE_API_SECRET: config.EXCHANGE_API_SECRET,
        });
      Object.assign(config, patch);
    },
    detach() {
      for (const [config, saved] of patched) Object.assign(config, saved);
      patched.clear();
      vi.unstubAllGlobals();
    },
  };

  const nextPlace = (): PlaceFault => {
    const scripted = venue.placeFaults.shift();
    if (scripted) return scripted;
    if (!venue.random || !draws.draw(venue.random.placeFault, venue.random.seed)) return "ok";
    const kinds: PlaceFault[] = [
      "fill_then_drop",
      "fill_then_502",
      "502",
      "unknown_not_booked",
      "unknown_booked",
      "accept_later",
      "429",
      "1021",
    ];
    return kinds[draws.count % kinds.length] ?? "ok";
  };
  /** Later legs' client ids already posted once: each may be refused on its first POST only. */
  const postedLaterLegs = new Set<string>();
  const refusesLaterLeg = (id: string): boolean => {
    const rate = venue.random?.laterLegRefusal;
    // Leg ids end "-<leg><exchange number>" (src/domain/venue-route.ts): leg 1 is never refused here.
    if (!venue.random || !rate || /-1[0-9a-z]*$/.test(id) || postedLaterLegs.has(id)) return false;
    postedLaterLegs.add(id);
    if (!draws.draw(rate, venue.random.seed)) return false;
    venue.refusedLaterLegs.push(id);
    return true;
  };
  const nextLookup = (): LookupFault => {
    const scripted = venue.lookupFaults.shift();
    if (scripted) return scripted;
    if (!venue.random || !draws.draw(venue.random.lookupFault, venue.random.seed)) return "ok";
    const kinds: LookupFault[] = ["5xx", "401", "2015", "1022", "1121", "hang"];
    return kinds[draws.count % kinds.length] ?? "5xx";
  };

  const net = createMockNetwork(
    http.get(`${VENUE_URL}/api/v3/exchangeInfo`, () => {
      calls.push("GET /api/v3/exchangeInfo");
      return HttpResponse.json(exchangeInfo());
    }),
    http.get(`${VENUE_URL}/api/v3/ticker/price`, ({ request }) => {
      const symbol = new URL(request.url).searchParams.get("symbol") ?? "";
      calls.push("GET /api/v3/ticker/price");
      return HttpResponse.json({ symbol, price: toDecimalString(lastPrice(symbol)) });
    }),
    http.get(`${VENUE_URL}/api/v3/time`, () => {
      calls.push("GET /api/v3/time");
      return HttpResponse.json({ serverTime: Date.now() });
    }),
    http.post(`${VENUE_URL}/api/v3/order`, ({ request }) => {
      const q = new URL(request.url).searchParams;
      calls.push("POST /api/v3/order");
      posts.push(q);
      if (refusesLaterLeg(q.get("newClientOrderId") ?? "")) return errorResponse("filter_failure");
      switch (nextPlace()) {
        case "ok":
          return HttpResponse.json(view(book(q, true)));
        case "fill_then_drop":
          book(q, true);
          return HttpResponse.error();
        case "fill_then_502":
          book(q, true);
          return new HttpResponse("bad gateway", { status: 502 });
        case "502":
          return new HttpResponse("bad gateway", { status: 502 });
        case "unknown_not_booked":
          return errorResponse("backend_timeout");
        case "unknown_booked":
          book(q, true);
          return errorResponse("backend_timeout");
        case "accept_later":
          return HttpResponse.json(view(book(q, false)));
        case "429":
          return errorResponse("rate_limited");
        case "1021":
          return errorResponse("invalid_timestamp");
        case "insufficient":
          return errorResponse("insufficient_balance");
        case "filter":
          return errorResponse("filter_failure");
        case "duplicate":
          book(q, true);
          return errorResponse("duplicate_order");
        case "2015":
          return errorResponse("rejected_key");
      }
    }),
    http.get(`${VENUE_URL}/api/v3/order`, async ({ request }) => {
      const q = new URL(request.url).searchParams;
      calls.push("GET /api/v3/order");
      const fault = nextLookup();
      venue.lookupFaultsServed.set(fault, (venue.lookupFaultsServed.get(fault) ?? 0) + 1);
      switch (fault) {
        case "5xx":
          return new HttpResponse(null, { status: 503 });
        case "401":
          return new HttpResponse("Unauthorized", { status: 401 });
        case "2015":
          return errorResponse("rejected_key");
        case "1022":
          return errorResponse("invalid_signature");
        case "1121":
          return errorResponse("bad_symbol");
        case "hang":
          await new Promise((resolve) => setTimeout(resolve, 5));
          return HttpResponse.error();
        case "ok":
          break;
      }
      const row = orders.get(q.get("origClientOrderId") ?? "")?.at(-1);
      if (!row || row.symbol !== q.get("symbol")) return errorResponse("no_such_order");
      // An order accepted open trades by the time it is looked up.
      if (row.status === "NEW") trade(row);
      const { fills: _none, ...rest } = view(row);
      return HttpResponse.json({ ...orderQuery, ...rest, type: row.params.get("type") ?? "MARKET" });
    }),
    http.get(`${VENUE_URL}/api/v3/myTrades`, ({ request }) => {
      const q = new URL(request.url).searchParams;
      calls.push("GET /api/v3/myTrades");
      const id = Number(q.get("orderId"));
      const row = [...orders.values()].flat().find((r) => r.orderId === id);
      return HttpResponse.json(
        (row?.fills ?? []).map((f, i) => ({
          ...myTrades[0],
          ...f,
          symbol: row?.symbol,
          id: id * 10 + i,
          orderId: id,
          quoteQty: toDecimalString(parseDecimal(f.price).mul(parseDecimal(f.qty))),
        })),
      );
    }),
  );
  return venue;
}
