import { env } from "cloudflare:workers";
import { delay, HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import {
  BUCKET_MS,
  createBinanceSource,
  createCoinbaseSource,
  createHttpPriceSource,
  createPriceSource,
  createSimulatedSource,
  MAX_DEVIATION,
  type PriceSource,
  PriceSourceError,
  SEED_USD_PRICES,
  withFallback,
  withPinnedStablecoins,
} from "../../src/adapters/prices";
import { Dec } from "../../src/domain/money";
import { type PriceQuote, parsePositivePrice } from "../../src/domain/prices";
import binanceFixture from "../fixtures/prices/binance-ticker-price.json";
import coinbaseFixture from "../fixtures/prices/coinbase-exchange-rates-usd.json";
import { createMockNetwork, type MockNetwork } from "../support/msw";

const STORED = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;
const ALL_COINS = [
  "BTC",
  "ETH",
  "USDT",
  "USDC",
  "LTC",
  "DOGE",
  "BNB",
  "TRX",
  "SOL",
  "XRP",
  "XLM",
  "TON",
  "DASH",
  "BCH",
];
const NON_STABLE = ALL_COINS.filter((c) => c !== "USDT" && c !== "USDC");
const T0 = Date.UTC(2026, 10, 5, 12, 0, 0);

const BINANCE_URL = "https://api.binance.com/api/v3/ticker/price";
const COINBASE_URL = "https://api.coinbase.com/v2/exchange-rates";
const COINBASE_REQUEST = `${COINBASE_URL}?currency=USD`;

function binanceRequest(symbols: readonly string[], base = BINANCE_URL): string {
  return `${base}?symbols=${encodeURIComponent(JSON.stringify(symbols))}`;
}

function asMap(quotes: readonly PriceQuote[]): Record<string, string> {
  return Object.fromEntries(quotes.map((q) => [q.coin, q.usd]));
}

/** Binance and Coinbase answering with the recorded-format fixtures. */
function marketNetwork(): MockNetwork {
  return createMockNetwork(
    http.get(BINANCE_URL, () => HttpResponse.json(binanceFixture)),
    http.get(COINBASE_URL, () => HttpResponse.json(coinbaseFixture)),
  );
}

const urls = (net: MockNetwork) => net.requests.map((r) => r.url);

describe("simulated source", () => {
  it("is a pure function of (coin, minute): same t, same prices; same minute, same prices", async () => {
    const a = createSimulatedSource(SEED_USD_PRICES);
    const b = createSimulatedSource(SEED_USD_PRICES);
    const first = await a.fetchPrices(ALL_COINS, T0);
    expect(first.map((q) => q.coin)).toEqual(ALL_COINS);
    expect(await a.fetchPrices(ALL_COINS, T0)).toEqual(first);
    expect(await b.fetchPrices(ALL_COINS, T0)).toEqual(first);
    expect(await b.fetchPrices(ALL_COINS, T0 + BUCKET_MS - 1)).toEqual(first);
    // Asking for fewer coins, in another order and case, gives the same prices for those coins.
    expect(asMap(await b.fetchPrices(["sol", "btc"], T0 + 30_000))).toEqual({
      SOL: asMap(first).SOL,
      BTC: asMap(first).BTC,
    });
    for (const q of first) expect(q.usd).toMatch(STORED);
  });

  it("moves every minute, smoothly, and never leaves ±5% of the seed", async () => {
    const source = createSimulatedSource(SEED_USD_PRICES);
    const coins = ["BTC", "DOGE", "TON", "USDT"];
    const minutes = 5_000;
    let previous: Record<string, string> | undefined;
    const seen = new Map<string, Set<string>>(coins.map((c) => [c, new Set()]));
    for (let m = 0; m < minutes; m++) {
      const prices = asMap(await source.fetchPrices(coins, T0 + m * BUCKET_MS + 17_000));
      for (const coin of coins) {
        const seed = new Dec(SEED_USD_PRICES[coin]!);
        const price = new Dec(prices[coin]!);
        const deviation = price.div(seed).minus(1).abs();
        expect(deviation.lte(MAX_DEVIATION), `${coin} at minute ${m}: ${prices[coin]}`).toBe(true);
        if (previous) {
          const before = new Dec(previous[coin]!);
          expect(price.eq(before), `${coin} unchanged at minute ${m}`).toBe(false);
          // One minute moves less than half a percent.
          expect(price.minus(before).abs().div(seed).lt(0.005)).toBe(true);
        }
        seen.get(coin)!.add(prices[coin]!);
      }
      previous = prices;
    }
    // It is a walk, not noise around one value: over ~3.5 days it spans a good part of the band.
    for (const coin of coins) {
      const values = [...seen.get(coin)!].map((v) => new Dec(v));
      const seed = new Dec(SEED_USD_PRICES[coin]!);
      const span = Dec.max(...values)
        .minus(Dec.min(...values))
        .div(seed);
      expect(span.gt(0.02), `${coin} span ${span.toString()}`).toBe(true);
    }
  });

  it("prices each coin independently (different coins do not move in lockstep)", async () => {
    const source = createSimulatedSource({ AAA: "100", BBB: "100" });
    const a = await source.fetchPrices(["AAA", "BBB"], T0);
    expect(a[0]!.usd).not.toBe(a[1]!.usd);
  });

  it("pins stablecoins at exactly 1 through createPriceSource", async () => {
    const source = createPriceSource({ PRICE_SOURCE: "simulated", STABLECOINS_PINNED: ["USDT", "USDC"] });
    expect(source).not.toBeNull();
    for (let m = 0; m < 120; m += 7) {
      const prices = asMap(await source!.fetchPrices(ALL_COINS, T0 + m * BUCKET_MS));
      expect(prices.USDT).toBe("1");
      expect(prices.USDC).toBe("1");
      expect(Object.keys(prices)).toEqual(ALL_COINS);
    }
    // Unpinned, a stablecoin's seed walks like any coin.
    const unpinned = createPriceSource({ PRICE_SOURCE: "simulated", STABLECOINS_PINNED: [] });
    const walked = asMap(await unpinned!.fetchPrices(["USDT"], T0));
    expect(walked.USDT).not.toBe("1");
  });

  it("has a realistic seed price for every coin in the catalog", async () => {
    const { results } = await env.DB.prepare("SELECT DISTINCT coin FROM currencies ORDER BY coin").all<{
      coin: string;
    }>();
    const catalog = results.map((r) => r.coin);
    expect(catalog.length).toBeGreaterThan(0);
    for (const coin of catalog) {
      expect(SEED_USD_PRICES[coin], coin).toBeDefined();
      expect(parsePositivePrice(SEED_USD_PRICES[coin])).toBeDefined();
    }
    expect(SEED_USD_PRICES.USDT).toBe("1");
    expect(new Dec(SEED_USD_PRICES.BTC!).gt(new Dec(SEED_USD_PRICES.ETH!))).toBe(true);
  });

  it("leaves out coins without a seed and refuses bad seeds or times", async () => {
    const source = createSimulatedSource({ BTC: "100" });
    expect(await source.fetchPrices(["BTC", "NOPE", " ", "btc"], T0)).toHaveLength(1);
    expect(() => createSimulatedSource({ BTC: "0" })).toThrow(RangeError);
    expect(() => createSimulatedSource({ BTC: "-1" })).toThrow(RangeError);
    expect(() => createSimulatedSource({ BTC: "lots" })).toThrow(RangeError);
    await expect(source.fetchPrices(["BTC"], Number.NaN)).rejects.toThrow(RangeError);
  });
});

describe("withPinnedStablecoins", () => {
  it("answers pinned coins itself and asks the source only for the rest", async () => {
    const asked: string[][] = [];
    const inner: PriceSource = {
      name: "inner",
      async fetchPrices(coins) {
        asked.push([...coins]);
        return coins.map((coin) => ({ coin, usd: "2" }));
      },
    };
    const source = withPinnedStablecoins(inner, ["usdt", "USDC"]);
    expect(await source.fetchPrices(["BTC", "USDT", "eth", "USDC"], T0)).toEqual([
      { coin: "BTC", usd: "2" },
      { coin: "USDT", usd: "1" },
      { coin: "ETH", usd: "2" },
      { coin: "USDC", usd: "1" },
    ]);
    expect(asked).toEqual([["BTC", "ETH"]]);
    expect(await source.fetchPrices(["USDT", "USDC"], T0)).toHaveLength(2);
    expect(asked).toHaveLength(1);
  });
});

describe("http source: Binance, Coinbase as fallback", () => {
  it("parses the primary's recorded-format response and asks exactly one URL", async () => {
    const net = marketNetwork();
    const source = createHttpPriceSource({ fetch: net.fetch });
    const quotes = await source.fetchPrices(NON_STABLE, T0);
    expect(quotes.map((q) => q.coin)).toEqual(NON_STABLE);
    expect(asMap(quotes)).toMatchObject({
      BTC: "64000.01",
      ETH: "3120.45",
      DOGE: "0.15873",
      TON: "6.912",
      BCH: "451.8",
    });
    expect(urls(net)).toEqual([binanceRequest(NON_STABLE.map((c) => `${c}USDT`))]);
    expect(net.requests[0]!.method).toBe("GET");
    expect(net.requests[0]!.headers.get("accept")).toBe("application/json");
    expect(net.unhandled).toEqual([]);
  });

  it("the exact Binance query: symbols as a JSON array, pinned stablecoins never asked", async () => {
    const net = marketNetwork();
    const source = createPriceSource(
      { PRICE_SOURCE: "http", STABLECOINS_PINNED: ["USDT", "USDC"] },
      { fetch: net.fetch },
    );
    const prices = asMap(await source!.fetchPrices(["BTC", "USDT", "ETH", "USDC"], T0));
    expect(prices).toEqual({ BTC: "64000.01", USDT: "1", ETH: "3120.45", USDC: "1" });
    expect(urls(net)).toEqual([
      "https://api.binance.com/api/v3/ticker/price?symbols=%5B%22BTCUSDT%22%2C%22ETHUSDT%22%5D",
    ]);
    expect(new URL(urls(net)[0]!).searchParams.get("symbols")).toBe('["BTCUSDT","ETHUSDT"]');
  });

  it("with EXCHANGE_URL the Binance ticker comes from the venue itself (its testnet here)", async () => {
    const net = marketNetwork();
    net.use(
      http.get("https://testnet.binance.vision/api/v3/ticker/price", () =>
        HttpResponse.json([{ symbol: "BTCUSDT", price: "63000.5" }]),
      ),
    );
    const source = createPriceSource(
      { PRICE_SOURCE: "http", STABLECOINS_PINNED: ["USDT"], EXCHANGE_URL: "https://testnet.binance.vision" },
      { fetch: net.fetch },
    );
    expect(asMap(await source!.fetchPrices(["BTC", "USDT"], T0))).toEqual({ BTC: "63000.5", USDT: "1" });
    expect(urls(net)).toEqual([
      "https://testnet.binance.vision/api/v3/ticker/price?symbols=%5B%22BTCUSDT%22%5D",
    ]);
  });

  it("primary HTTP 500 → fallback prices everything (price = 1 / rate)", async () => {
    const net = marketNetwork();
    net.use(
      http.get(BINANCE_URL, () => HttpResponse.json({ code: -1000, msg: "Internal error" }, { status: 500 })),
    );
    const source = createHttpPriceSource({ fetch: net.fetch });
    const prices = asMap(await source.fetchPrices(["BTC", "ETH", "DASH", "TRX"], T0));
    expect(prices).toEqual({ BTC: "64102.5641025", ETH: "3125", DASH: "28.1690140845", TRX: "0.1221001221" });
    expect(urls(net)).toEqual([
      binanceRequest(["BTCUSDT", "ETHUSDT", "DASHUSDT", "TRXUSDT"]),
      COINBASE_REQUEST,
    ]);
    expect(net.unhandled).toEqual([]);
  });

  it("primary timeout → fallback used", async () => {
    const net = marketNetwork();
    net.use(
      http.get(BINANCE_URL, async () => {
        await delay(500);
        return HttpResponse.json(binanceFixture);
      }),
    );
    const source = createHttpPriceSource({ fetch: net.fetch, timeoutMs: 30 });
    const started = Date.now();
    const prices = asMap(await source.fetchPrices(["BTC"], T0));
    expect(prices).toEqual({ BTC: "64102.5641025" });
    expect(Date.now() - started).toBeLessThan(400);
    expect(urls(net)).toEqual([binanceRequest(["BTCUSDT"]), COINBASE_REQUEST]);

    const err = await createBinanceSource({ fetch: net.fetch, timeoutMs: 30 })
      .fetchPrices(["BTC"], T0)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PriceSourceError);
    expect(err).toMatchObject({ source: "binance", kind: "timeout" });
  });

  it.each([
    ["an HTML error page", () => new HttpResponse("<html>502 Bad Gateway</html>", { status: 200 })],
    ["truncated JSON", () => new HttpResponse('[{"symbol":"BTCUSDT","pri', { status: 200 })],
    ["JSON of the wrong shape", () => HttpResponse.json({ code: -1121, msg: "Invalid symbol." })],
    ["rows of the wrong shape", () => HttpResponse.json([{ s: "BTCUSDT", p: "1" }])],
    ["a network error", () => HttpResponse.error()],
  ])("primary answers with %s → fallback used", async (_label, resolver) => {
    const net = marketNetwork();
    net.use(http.get(BINANCE_URL, resolver));
    const source = createHttpPriceSource({ fetch: net.fetch });
    expect(asMap(await source.fetchPrices(["ETH", "DOGE"], T0))).toEqual({
      ETH: "3125",
      DOGE: "0.15873015873",
    });
    expect(urls(net)).toEqual([binanceRequest(["ETHUSDT", "DOGEUSDT"]), COINBASE_REQUEST]);
  });

  it.each([
    ["http_status", () => new HttpResponse("busy", { status: 503 })],
    ["network", () => HttpResponse.error()],
    ["invalid_body", () => new HttpResponse("<html></html>", { status: 200 })],
  ] as const)("a single source reports %s", async (kind, resolver) => {
    const net = createMockNetwork(http.get(BINANCE_URL, resolver));
    const err = await createBinanceSource({ fetch: net.fetch })
      .fetchPrices(["BTC"], T0)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PriceSourceError);
    expect(err).toMatchObject({ source: "binance", kind });
  });

  it("both failing → PriceSourceError 'all_failed' listing each source's failure", async () => {
    const net = createMockNetwork(
      http.get(BINANCE_URL, () => new HttpResponse(null, { status: 451 })),
      http.get(COINBASE_URL, () => new HttpResponse("not json", { status: 200 })),
    );
    const source = createHttpPriceSource({ fetch: net.fetch });
    const err = await source.fetchPrices(["BTC", "ETH"], T0).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PriceSourceError);
    const e = err as PriceSourceError;
    expect(e.kind).toBe("all_failed");
    expect(e.source).toBe("binance>coinbase");
    expect(e.failures.map((f) => [f.source, f.kind, f.status])).toEqual([
      ["binance", "http_status", 451],
      ["coinbase", "invalid_body", undefined],
    ]);
    expect(e.message).toContain("HTTP 451");
    expect(urls(net)).toEqual([binanceRequest(["BTCUSDT", "ETHUSDT"]), COINBASE_REQUEST]);
  });

  it("a coin missing from the primary's answer is filled by the fallback", async () => {
    const net = marketNetwork();
    net.use(
      http.get(BINANCE_URL, () => HttpResponse.json(binanceFixture.filter((r) => r.symbol !== "DASHUSDT"))),
    );
    const source = createHttpPriceSource({ fetch: net.fetch });
    const quotes = await source.fetchPrices(["BTC", "DASH", "ETH"], T0);
    expect(quotes).toEqual([
      { coin: "BTC", usd: "64000.01" },
      { coin: "DASH", usd: "28.1690140845" },
      { coin: "ETH", usd: "3120.45" },
    ]);
    expect(urls(net)).toEqual([binanceRequest(["BTCUSDT", "DASHUSDT", "ETHUSDT"]), COINBASE_REQUEST]);
  });

  it("USDT, when not pinned, is priced by the fallback (Binance has no USDTUSDT)", async () => {
    const net = marketNetwork();
    const source = createPriceSource({ PRICE_SOURCE: "http", STABLECOINS_PINNED: [] }, { fetch: net.fetch });
    expect(asMap(await source!.fetchPrices(["USDT", "BTC"], T0))).toEqual({
      USDT: "0.9997",
      BTC: "64000.01",
    });
    expect(urls(net)).toEqual([binanceRequest(["BTCUSDT"]), COINBASE_REQUEST]);
  });

  it("rejects zero, negative and non-numeric prices from either source", async () => {
    const net = createMockNetwork(
      http.get(BINANCE_URL, () =>
        HttpResponse.json([
          { symbol: "BTCUSDT", price: "0.00000000" },
          { symbol: "ETHUSDT", price: "-3120.45" },
          { symbol: "LTCUSDT", price: "abc" },
          { symbol: "DOGEUSDT", price: "NaN" },
          { symbol: "SOLUSDT", price: "1e400" },
          { symbol: "XRPUSDT", price: " 0.5" },
          { symbol: "TONUSDT", price: "6.912" },
        ]),
      ),
      http.get(COINBASE_URL, () =>
        HttpResponse.json({
          data: {
            currency: "USD",
            rates: { BTC: "0", ETH: "-0.00032", LTC: "Infinity", DOGE: 6.3, SOL: null, XRP: "1.9105" },
          },
        }),
      ),
    );
    const source = createHttpPriceSource({ fetch: net.fetch });
    const quotes = await source.fetchPrices(["BTC", "ETH", "LTC", "DOGE", "SOL", "XRP", "TON"], T0);
    // TON from Binance; DOGE (a JSON number is fine) and XRP from Coinbase; the rest nowhere.
    expect(asMap(quotes)).toEqual({ DOGE: "0.15873015873", XRP: "0.523423187647", TON: "6.912" });
    for (const q of quotes) {
      expect(q.usd).toMatch(STORED);
      expect(new Dec(q.usd).gt(0)).toBe(true);
    }
  });

  it("parsePositivePrice accepts only finite, strictly positive decimals", () => {
    for (const ok of ["1", "0.00000001", "64000.01000000", "1e-7", 3.5])
      expect(parsePositivePrice(ok)).toBeDefined();
    for (const bad of [
      "0",
      "0.0",
      0,
      "-1",
      -1,
      "",
      "abc",
      "NaN",
      "Infinity",
      "0x10",
      " 1",
      "1e400",
      null,
      true,
      {},
    ]) {
      expect(parsePositivePrice(bad), JSON.stringify(bad)).toBeUndefined();
    }
  });

  it("a Coinbase document for another base currency is refused", async () => {
    const net = createMockNetwork(
      http.get(COINBASE_URL, () =>
        HttpResponse.json({ data: { currency: "EUR", rates: { BTC: "0.00001" } } }),
      ),
    );
    const err = await createCoinbaseSource({ fetch: net.fetch })
      .fetchPrices(["BTC"], T0)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ name: "PriceSourceError", source: "coinbase", kind: "invalid_body" });
  });

  it("Coinbase ignores inherited property names as coins", async () => {
    const net = marketNetwork();
    const quotes = await createCoinbaseSource({ fetch: net.fetch }).fetchPrices(
      ["__proto__", "constructor", "BTC"],
      T0,
    );
    expect(quotes).toEqual([{ coin: "BTC", usd: "64102.5641025" }]);
  });

  it("base URLs are configurable (operators can use a proxy or Binance's market-data host)", async () => {
    const net = createMockNetwork(
      http.get("https://proxy.internal/binance/api/v3/ticker/price", () =>
        HttpResponse.json([{ symbol: "BTCUSDT", price: "1" }]),
      ),
      http.get("https://data-api.binance.vision/api/v3/ticker/price", () =>
        HttpResponse.json([{ symbol: "BTCUSDT", price: "2" }]),
      ),
      http.get("https://proxy.internal/coinbase/v2/exchange-rates", () => HttpResponse.json(coinbaseFixture)),
    );
    const viaProxy = createPriceSource(
      { PRICE_SOURCE: "http", STABLECOINS_PINNED: [] },
      {
        fetch: net.fetch,
        http: {
          binance: { baseUrl: "https://proxy.internal/binance/" },
          coinbase: { baseUrl: "https://proxy.internal/coinbase" },
        },
      },
    );
    expect(await viaProxy!.fetchPrices(["BTC", "DASH"], T0)).toEqual([
      { coin: "BTC", usd: "1" },
      { coin: "DASH", usd: "28.1690140845" },
    ]);
    const vision = createBinanceSource({ fetch: net.fetch, baseUrl: "https://data-api.binance.vision" });
    expect(await vision.fetchPrices(["BTC"], T0)).toEqual([{ coin: "BTC", usd: "2" }]);
    expect(urls(net)).toEqual([
      binanceRequest(["BTCUSDT", "DASHUSDT"], "https://proxy.internal/binance/api/v3/ticker/price"),
      "https://proxy.internal/coinbase/v2/exchange-rates?currency=USD",
      binanceRequest(["BTCUSDT"], "https://data-api.binance.vision/api/v3/ticker/price"),
    ]);
    expect(net.unhandled).toEqual([]);

    expect(() => createBinanceSource({ baseUrl: "not a url" })).toThrow(TypeError);
    expect(() => createCoinbaseSource({ baseUrl: "ftp://example.com" })).toThrow(TypeError);
    expect(() => createCoinbaseSource({ baseUrl: "https://example.com/?x=1" })).toThrow(TypeError);
    expect(() => createBinanceSource({ timeoutMs: 0 })).toThrow(RangeError);
  });

  it("Binance symbol overrides: rename a pair, or never ask Binance for a coin", async () => {
    const net = marketNetwork();
    net.use(http.get(BINANCE_URL, () => HttpResponse.json([{ symbol: "BTCFDUSD", price: "63990.5" }])));
    const source = createHttpPriceSource({
      fetch: net.fetch,
      binance: { symbols: { btc: "BTCFDUSD", DASH: null } },
    });
    expect(asMap(await source.fetchPrices(["BTC", "DASH"], T0))).toEqual({
      BTC: "63990.5",
      DASH: "28.1690140845",
    });
    expect(urls(net)).toEqual([binanceRequest(["BTCFDUSD"]), COINBASE_REQUEST]);
  });

  it("makes no request for an empty list", async () => {
    const net = marketNetwork();
    expect(await createHttpPriceSource({ fetch: net.fetch }).fetchPrices([], T0)).toEqual([]);
    expect(net.requests).toEqual([]);
  });

  it("calls an injected fetch unbound (Workers' fetch throws 'Illegal invocation' as a method)", async () => {
    const net = marketNetwork();
    const strictFetch = function (this: unknown, input: RequestInfo | URL, init?: RequestInit) {
      if (this !== undefined && this !== globalThis) throw new TypeError("Illegal invocation");
      return net.fetch(input, init);
    } as typeof fetch;
    const source = createHttpPriceSource({ fetch: strictFetch });
    expect(asMap(await source.fetchPrices(["BTC"], T0))).toEqual({ BTC: "64000.01" });
  });

  it("withFallback reports an unexpected error as such, and returns [] when no source knows a coin", async () => {
    const broken: PriceSource = {
      name: "broken",
      fetchPrices: async () => {
        throw new Error("bug");
      },
    };
    const empty: PriceSource = { name: "empty", fetchPrices: async () => [] };
    const err = await withFallback(broken)
      .fetchPrices(["BTC"], T0)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: "all_failed", failures: [{ source: "broken", kind: "unexpected" }] });
    expect(await withFallback(empty, empty).fetchPrices(["BTC"], T0)).toEqual([]);
    // A failure followed by a source that prices some coins: partial result, no error.
    expect(
      await withFallback(broken, createSimulatedSource({ BTC: "10" })).fetchPrices(["BTC", "X"], T0),
    ).toHaveLength(1);
  });
});

describe("createPriceSource", () => {
  it("returns null for static prices (set by the operator, nothing to poll)", () => {
    expect(createPriceSource({ PRICE_SOURCE: "static", STABLECOINS_PINNED: ["USDT"] })).toBeNull();
  });

  it("names its sources", () => {
    expect(createPriceSource({ PRICE_SOURCE: "simulated", STABLECOINS_PINNED: [] })!.name).toBe("simulated");
    expect(createPriceSource({ PRICE_SOURCE: "http", STABLECOINS_PINNED: [] })!.name).toBe(
      "binance>coinbase",
    );
  });
});
