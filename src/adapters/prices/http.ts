/**
 * Real market prices over public, keyless HTTP APIs.
 *
 * - Binance spot `GET /api/v3/ticker/price?symbols=["BTCUSDT",...]` → `[{"symbol","price"}]`.
 *   Prices are in USDT, taken as USD (the same assumption STABLECOINS_PINNED makes). Binance answers
 *   400 for the whole request when one symbol does not exist, and 451 from restricted locations
 *   (a Worker's cron may run in one); both simply hand the work to the fallback. Operators can point
 *   `baseUrl` at `https://data-api.binance.vision` (Binance's market-data-only host) or a proxy.
 * - Coinbase `GET /v2/exchange-rates?currency=USD` → `{"data":{"currency":"USD","rates":{"BTC":"0.0000156"}}}`.
 *   Rates are coin per USD, so price = 1 / rate. One call covers every coin.
 *
 * `createHttpPriceSource` chains them: Binance first, Coinbase for whatever Binance did not price.
 *
 * Every price is untrusted: responses are validated with zod, and an entry whose price is zero,
 * negative, non-numeric or out of range is dropped (the coin counts as missing, so the next source
 * is asked for it) rather than failing the whole response.
 */
import { z } from "zod";
import { Dec } from "../../domain/money";
import {
  inRequestOrder,
  normalizeCoins,
  type PriceQuote,
  parsePositivePrice,
  priceString,
} from "../../domain/prices";
import { checkBaseUrl, createHttpClient, type FetchFn, type HttpFail, validateBody } from "../http-client";
import { type PriceSource, PriceSourceError } from "./types";

export type { FetchFn };

export const DEFAULT_TIMEOUT_MS = 5_000;
/** Bodies larger than this are refused (the Coinbase rates document is ~30 KB). */
export const MAX_BODY_BYTES = 2_000_000;

export interface HttpSourceOptions {
  /** Injected for tests; defaults to the runtime's fetch. */
  fetch?: FetchFn;
  /** Per-request timeout (connect + headers + body). */
  timeoutMs?: number;
  /** Scheme + host (+ optional path prefix) of the API, e.g. a caching proxy. */
  baseUrl?: string;
}

function priceFailure(source: string): HttpFail {
  return (kind, message, options) => new PriceSourceError(source, kind, message, options);
}

function priceHttp(source: string, options: HttpSourceOptions) {
  const fail = priceFailure(source);
  const http = createHttpClient(source, {
    fetch: options.fetch,
    timeoutMs: options.timeoutMs,
    defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
    maxBodyChars: MAX_BODY_BYTES,
    fail,
  });
  return {
    getJson: <T>(schema: z.ZodType<T>, url: string): Promise<T> =>
      http.getJson(url).then((body) => validateBody(schema, body, "response", fail)),
  };
}

// Entries are validated loosely (price: any JSON scalar) so one bad price drops one coin, not all.
const binanceTickerSchema = z.array(
  z.object({
    symbol: z.string(),
    price: z.union([z.string(), z.number()]),
  }),
);

export interface BinanceSourceOptions extends HttpSourceOptions {
  /** Quote asset appended to the coin: BTC → BTCUSDT. */
  quoteAsset?: string;
  /** Per-coin symbol overrides; null means "never ask Binance for this coin". */
  symbols?: Readonly<Record<string, string | null>>;
}

export const BINANCE_BASE_URL = "https://api.binance.com";

export function createBinanceSource(options: BinanceSourceOptions = {}): PriceSource {
  const name = "binance";
  const base = checkBaseUrl(name, options.baseUrl ?? BINANCE_BASE_URL);
  const http = priceHttp(name, options);
  const quoteAsset = (options.quoteAsset ?? "USDT").toUpperCase();
  const overrides = new Map<string, string | null>(
    Object.entries(options.symbols ?? {}).map(([coin, symbol]) => [coin.toUpperCase(), symbol]),
  );

  const symbolFor = (coin: string): string | undefined => {
    const override = overrides.get(coin);
    if (override !== undefined) return override === null ? undefined : override.toUpperCase();
    // The quote asset has no pair with itself (there is no USDTUSDT).
    return coin === quoteAsset ? undefined : `${coin}${quoteAsset}`;
  };

  return {
    name,
    async fetchPrices(coins: readonly string[]): Promise<PriceQuote[]> {
      const wanted = normalizeCoins(coins);
      const coinBySymbol = new Map<string, string>();
      for (const coin of wanted) {
        const symbol = symbolFor(coin);
        if (symbol) coinBySymbol.set(symbol, coin);
      }
      if (coinBySymbol.size === 0) return [];
      const url = new URL(`${base}/api/v3/ticker/price`);
      url.searchParams.set("symbols", JSON.stringify([...coinBySymbol.keys()]));
      const rows = await http.getJson(binanceTickerSchema, url.href);
      const found = new Map<string, string>();
      for (const row of rows) {
        const coin = coinBySymbol.get(row.symbol);
        const price = parsePositivePrice(row.price);
        if (coin && price && !found.has(coin)) found.set(coin, priceString(price));
      }
      return inRequestOrder(wanted, found);
    },
  };
}

const coinbaseRatesSchema = z.object({
  data: z.object({
    currency: z.string(),
    rates: z.record(z.string(), z.unknown()),
  }),
});

export const COINBASE_BASE_URL = "https://api.coinbase.com";

export function createCoinbaseSource(options: HttpSourceOptions = {}): PriceSource {
  const name = "coinbase";
  const base = checkBaseUrl(name, options.baseUrl ?? COINBASE_BASE_URL);
  const http = priceHttp(name, options);

  return {
    name,
    async fetchPrices(coins: readonly string[]): Promise<PriceQuote[]> {
      const wanted = normalizeCoins(coins);
      if (wanted.length === 0) return [];
      const url = new URL(`${base}/v2/exchange-rates`);
      url.searchParams.set("currency", "USD");
      const body = await http.getJson(coinbaseRatesSchema, url.href);
      if (body.data.currency.toUpperCase() !== "USD") {
        throw new PriceSourceError(name, "invalid_body", `rates are for ${body.data.currency}, not USD`);
      }
      const found = new Map<string, string>();
      for (const coin of wanted) {
        // Own-property lookup only: a coin named "__proto__" or "constructor" must not match.
        if (!Object.hasOwn(body.data.rates, coin)) continue;
        const rate = parsePositivePrice(body.data.rates[coin]);
        if (rate) found.set(coin, priceString(new Dec(1).div(rate)));
      }
      return inRequestOrder(wanted, found);
    },
  };
}

/**
 * Asks `sources` in order, each only for the coins the earlier ones did not price. A failing source
 * is skipped. Resolves with whatever was priced (possibly not every coin); rejects with a
 * PriceSourceError of kind "all_failed" only when coins were requested, none was priced, and at
 * least one source failed (a source that merely does not know a coin is not a failure).
 */
export function withFallback(...sources: readonly PriceSource[]): PriceSource {
  if (sources.length === 0) throw new TypeError("withFallback needs at least one source");
  const name = sources.map((s) => s.name).join(">");
  return {
    name,
    async fetchPrices(coins: readonly string[], now: number): Promise<PriceQuote[]> {
      const wanted = normalizeCoins(coins);
      const found = new Map<string, string>();
      const failures: PriceSourceError[] = [];
      for (const source of sources) {
        const missing = wanted.filter((coin) => !found.has(coin));
        if (missing.length === 0) break;
        try {
          for (const q of await source.fetchPrices(missing, now)) {
            if (missing.includes(q.coin) && !found.has(q.coin)) found.set(q.coin, q.usd);
          }
        } catch (err) {
          failures.push(
            err instanceof PriceSourceError
              ? err
              : new PriceSourceError(source.name, "unexpected", String(err), { cause: err }),
          );
        }
      }
      if (wanted.length > 0 && found.size === 0 && failures.length > 0) {
        const detail = failures.map((f) => f.message).join("; ");
        throw new PriceSourceError(name, "all_failed", `every source failed (${detail})`, { failures });
      }
      return inRequestOrder(wanted, found);
    },
  };
}

export interface HttpPriceSourceOptions {
  fetch?: FetchFn;
  timeoutMs?: number;
  binance?: Omit<BinanceSourceOptions, "fetch" | "timeoutMs">;
  coinbase?: Omit<HttpSourceOptions, "fetch" | "timeoutMs">;
}

/** Binance, with Coinbase for the coins Binance could not price. */
export function createHttpPriceSource(options: HttpPriceSourceOptions = {}): PriceSource {
  const shared: HttpSourceOptions = {};
  if (options.fetch) shared.fetch = options.fetch;
  if (options.timeoutMs !== undefined) shared.timeoutMs = options.timeoutMs;
  return withFallback(
    createBinanceSource({ ...options.binance, ...shared }),
    createCoinbaseSource({ ...options.coinbase, ...shared }),
  );
}
