import { z } from "zod";
import type { Market } from "../../domain/venue-route";
import { type FetchFn, runtimeFetch, withTimeout } from "../http-client";
import type { LegExecution, SpotVenue, VenueOrder, VenueOutcome } from "./types";

/**
 * EXCHANGE_MODE `binance`: Binance spot REST (or its testnet through EXCHANGE_URL). SIGNED calls
 * carry `timestamp` (local clock plus the offset learned from /api/v3/time), `recvWindow` and an
 * HMAC-SHA256 hex signature over the exact query string, with the key in `X-MBX-APIKEY`
 * (binance-spot-api-docs, rest-api.md "SIGNED Endpoint security"). Error classes: docs/venue.md.
 */
export interface BinanceOptions {
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
  fetch?: FetchFn;
  /** ms; Binance's default and recommended maximum is 5000. */
  recvWindow?: number;
  timeoutMs?: number;
  now?: () => number;
}

const ErrorBody = z.object({ code: z.number().int(), msg: z.string() });
const Fill = z.object({
  price: z.string(),
  qty: z.string(),
  commission: z.string(),
  commissionAsset: z.string(),
});
const OrderBody = z.object({
  symbol: z.string(),
  orderId: z.number().int().optional(),
  side: z.enum(["BUY", "SELL"]),
  status: z.string(),
  executedQty: z.string(),
  cummulativeQuoteQty: z.string(),
  fills: z.array(Fill).optional(),
});
const Filter = z.looseObject({ filterType: z.string() });
const SymbolInfo = z.looseObject({
  symbol: z.string(),
  status: z.string(),
  baseAsset: z.string(),
  quoteAsset: z.string(),
  quoteAssetPrecision: z.number().int(),
  quoteOrderQtyMarketAllowed: z.boolean().optional(),
  orderTypes: z.array(z.string()),
  filters: z.array(Filter),
});
const ExchangeInfo = z.looseObject({ symbols: z.array(SymbolInfo) });
const Trades = z.array(Fill.extend({ orderId: z.number().int() }));
const Time = z.object({ serverTime: z.number() });
const Ticker = z.object({ symbol: z.string(), price: z.string() });

/** Venue codes: -1013 filter failure; -2010 with this message: no funds; -2013 no such order; -1021 timestamp. */
const INSUFFICIENT = /insufficient balance/i;
/**
 * -2010 "Duplicate order sent.": the client order id is already in use (errors.md, messages for
 * -2010 NEW_ORDER_REJECTED), so an order under it exists and may fill: not a refusal.
 */
const DUPLICATE = /duplicate order/i;
/**
 * Our own credentials or signature refused (errors.md: -1002 unauthorized, -2014 API-key format,
 * -2015 key, IP or permissions, -1022 signature; HTTP 401, and 403 from the venue's firewall): the
 * venue never read the request, and only the operator can fix it.
 */
const CONFIG_CODES = new Set([-1002, -1022, -2014, -2015]);

/**
 * Classifies an answer to POST (`place`) or GET (`lookup`) /api/v3/order (exported for its unit
 * tests). A lookup asks whether a POST that may have placed did: the only answer that says "not
 * placed" is the venue's own -2013 "Order does not exist" in a 4xx, and even that only counts
 * towards the lost-leg window (src/domain/venue-policy.ts). Every other error on a lookup is
 * `unknown` (ask again) or `config`, never a refusal: a lookup cannot refuse an order.
 */
export function classify(
  status: number,
  headers: Headers,
  body: unknown,
  call: "place" | "lookup" = "place",
): VenueOutcome {
  if (status === 429 || status === 418) {
    const retry = Number(headers.get("retry-after"));
    return { kind: "rate_limited", retryAfterSeconds: Number.isFinite(retry) && retry > 0 ? retry : 60 };
  }
  if (status >= 200 && status < 300) {
    const order = OrderBody.safeParse(body);
    if (!order.success) return { kind: "unknown", error: "unreadable order answer" };
    return fromOrder(order.data);
  }
  const err = ErrorBody.safeParse(body);
  const error = err.success ? `${err.data.code} ${err.data.msg}` : `HTTP ${status}`;
  if (status === 401 || status === 403 || (err.success && CONFIG_CODES.has(err.data.code)))
    return { kind: "config", error: err.success ? `HTTP ${status}: ${error}` : error };
  // 5xx and -1007 / -1006: the venue itself does not know whether the order was executed.
  if (status >= 500 || !err.success || err.data.code === -1007 || err.data.code === -1006)
    return { kind: "unknown", error };
  const { code, msg } = err.data;
  if (code === -2013) return { kind: "not_found" };
  if (code === -1021) return { kind: "clock_skew" };
  if (call === "lookup" || (code === -2010 && DUPLICATE.test(msg))) return { kind: "unknown", error };
  if (code === -1013) return { kind: "rejected", reason: "filter", code, message: msg };
  if (code === -2010 && INSUFFICIENT.test(msg))
    return { kind: "rejected", reason: "insufficient_balance", code, message: msg };
  return { kind: "rejected", reason: "other", code, message: msg };
}

function fromOrder(o: z.infer<typeof OrderBody>): VenueOutcome {
  const execution: LegExecution = {
    symbol: o.symbol,
    side: o.side,
    ...(o.orderId === undefined ? {} : { orderId: o.orderId }),
    executedQty: o.executedQty,
    quoteQty: o.cummulativeQuoteQty,
    fills: o.fills ?? [],
  };
  if (o.status === "FILLED") return { kind: "filled", execution };
  // A market order the book could not fill completely ends EXPIRED with what it did trade.
  const done = ["EXPIRED", "EXPIRED_IN_MATCH", "CANCELED", "REJECTED"].includes(o.status);
  if (done && Number(o.executedQty) > 0) return { kind: "filled", execution };
  // EXPIRED with nothing traded: a fill-or-kill limit order the book could not fill at its price
  // (enums.md, "Order status": "LIMIT FOK orders with no fill"). Definite: nothing is open under the id.
  if (o.status === "EXPIRED")
    return { kind: "rejected", reason: "expired", code: 0, message: "order EXPIRED unfilled" };
  if (done) return { kind: "rejected", reason: "other", code: 0, message: `order ${o.status}` };
  return { kind: "pending" };
}

function toMarket(s: z.infer<typeof SymbolInfo>): Market {
  const filter = (type: string) => s.filters.find((f) => f.filterType === type);
  const lot = filter("MARKET_LOT_SIZE") ?? filter("LOT_SIZE");
  const notional = filter("NOTIONAL");
  const minNotional = filter("MIN_NOTIONAL");
  const str = (v: unknown, fallback: string) => (typeof v === "string" ? v : fallback);
  const minMarketNotional =
    notional && notional.applyMinToMarket !== false
      ? str(notional.minNotional, "0")
      : minNotional && minNotional.applyToMarket !== false
        ? str(minNotional.minNotional, "0")
        : null;
  return {
    symbol: s.symbol,
    base: s.baseAsset,
    quote: s.quoteAsset,
    trading: s.status === "TRADING" && s.orderTypes.includes("MARKET"),
    minQty: str(lot?.minQty, "0"),
    maxQty: str(lot?.maxQty, "1e30"),
    stepSize: str(lot?.stepSize, "0"),
    minNotional: minMarketNotional,
    quoteOrderQtyMarketAllowed: s.quoteOrderQtyMarketAllowed ?? false,
    quoteAssetPrecision: s.quoteAssetPrecision,
    tickSize: str(filter("PRICE_FILTER")?.tickSize, "0"),
  };
}

const MARKETS_TTL_MS = 10 * 60_000;

export function createBinanceVenue(options: BinanceOptions): SpotVenue {
  const base = options.baseUrl.replace(/\/+$/, "");
  const fetchFn = options.fetch ?? runtimeFetch;
  const now = options.now ?? Date.now;
  const recvWindow = options.recvWindow ?? 5000;
  const timeoutMs = options.timeoutMs ?? 10_000;
  let offsetMs = 0;
  let markets: { at: number; value: Promise<ReadonlyMap<string, Market>> } | null = null;
  let key: Promise<CryptoKey> | null = null;

  const hmacKey = () => {
    key ??= crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode(options.apiSecret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    return key;
  };

  function publicGet(path: string): Promise<unknown> {
    return withTimeout(timeoutMs, async (signal) => {
      const res = await fetchFn(`${base}${path}`, { signal });
      if (!res.ok) throw new Error(`venue ${path}: HTTP ${res.status}`);
      return res.json();
    });
  }

  async function resync(): Promise<void> {
    const sent = now();
    const { serverTime } = Time.parse(await publicGet("/api/v3/time"));
    // The server stamped its time somewhere in the round trip: take the midpoint.
    offsetMs = serverTime - Math.round((sent + now()) / 2);
  }

  type Answer = { status: number; headers: Headers; body: unknown } | { error: string };

  async function signedOnce(method: "GET" | "POST", path: string, params: Record<string, string>) {
    const query = new URLSearchParams({
      ...params,
      recvWindow: String(recvWindow),
      timestamp: String(now() + offsetMs),
    }).toString();
    const mac = await crypto.subtle.sign("HMAC", await hmacKey(), new TextEncoder().encode(query));
    const signature = [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, "0")).join("");
    return withTimeout(timeoutMs, async (signal): Promise<Answer> => {
      let res: Response;
      try {
        res = await fetchFn(`${base}${path}?${query}&signature=${signature}`, {
          method,
          headers: { "X-MBX-APIKEY": options.apiKey },
          signal,
        });
      } catch (err) {
        return { error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) };
      }
      const body: unknown = await res.json().catch(() => null);
      return { status: res.status, headers: res.headers, body };
    });
  }

  const outcomeOf = (a: Answer, call: "place" | "lookup" = "place"): VenueOutcome =>
    "error" in a ? { kind: "unknown", error: a.error } : classify(a.status, a.headers, a.body, call);

  async function signed(method: "GET" | "POST", path: string, params: Record<string, string>) {
    const first = await signedOnce(method, path, params);
    if (outcomeOf(first).kind !== "clock_skew") return first;
    // -1021 is refused before the matching engine: resync and send once more.
    try {
      await resync();
    } catch {
      return first;
    }
    return signedOnce(method, path, params);
  }

  return {
    markets() {
      const t = now();
      if (!markets || t - markets.at > MARKETS_TTL_MS) {
        const value = publicGet("/api/v3/exchangeInfo?permissions=SPOT").then((body) => {
          const info = ExchangeInfo.parse(body);
          return new Map(info.symbols.map((s) => [s.symbol, toMarket(s)] as const));
        });
        markets = { at: t, value };
        value.catch(() => {
          if (markets?.value === value) markets = null;
        });
      }
      return markets.value;
    },
    async price(symbol) {
      return Ticker.parse(await publicGet(`/api/v3/ticker/price?symbol=${encodeURIComponent(symbol)}`)).price;
    },
    async place(order: VenueOrder, clientOrderId: string) {
      return outcomeOf(
        await signed("POST", "/api/v3/order", {
          symbol: order.symbol,
          side: order.side,
          // A limit order takes timeInForce, quantity and price (rest-api.md, "New order": mandatory
          // parameters by type); FOK fills all of it at the price or better, or expires with nothing.
          type: "price" in order.params ? "LIMIT" : "MARKET",
          ...order.params,
          newClientOrderId: clientOrderId,
          newOrderRespType: "FULL",
        }),
      );
    },
    async lookup(symbol: string, clientOrderId: string) {
      return outcomeOf(
        await signed("GET", "/api/v3/order", { symbol, origClientOrderId: clientOrderId }),
        "lookup",
      );
    },
    async trades(symbol: string, orderId: number) {
      const answer = await signed("GET", "/api/v3/myTrades", { symbol, orderId: String(orderId) });
      if ("error" in answer) throw new Error(`venue /api/v3/myTrades: ${answer.error}`);
      if (answer.status !== 200) throw new Error(`venue /api/v3/myTrades: HTTP ${answer.status}`);
      return Trades.parse(answer.body)
        .filter((t) => t.orderId === orderId)
        .map(({ price, qty, commission, commissionAsset }) => ({ price, qty, commission, commissionAsset }));
    },
  };
}
