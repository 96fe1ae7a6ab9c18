/**
 * Chooses the price source from config (PRICE_SOURCE) and pins stablecoins (STABLECOINS_PINNED).
 *
 * - "simulated": deterministic walk around SEED_USD_PRICES (dev default; no network).
 * - "http":      Binance, Coinbase as fallback (see http.ts). With EXCHANGE_URL set, the Binance
 *                ticker is read from the venue the service trades on (its testnet, a proxy), so
 *                quotes and fills come from the same market.
 * - "static":    null — the operator sets prices through the admin API; nothing to poll.
 */
import { createHttpPriceSource, type FetchFn, type HttpPriceSourceOptions } from "./http";
import { withPinnedStablecoins } from "./pinned";
import { createSimulatedSource, SEED_USD_PRICES } from "./simulated";
import type { PriceSource } from "./types";

export * from "./http";
export * from "./pinned";
export * from "./simulated";
export * from "./types";

export interface PriceSourceConfig {
  PRICE_SOURCE: "simulated" | "static" | "http";
  STABLECOINS_PINNED: readonly string[];
  /** The exchange venue's base URL; its ticker is the http source's primary price. */
  EXCHANGE_URL?: string | undefined;
}

export interface CreatePriceSourceOptions {
  /** Used by the http source; injected in tests. */
  fetch?: FetchFn;
  /** Seed prices for the simulated source (default SEED_USD_PRICES). */
  seed?: Readonly<Record<string, string>>;
  /** Base URLs / timeout / Binance symbol overrides for the http source. */
  http?: Omit<HttpPriceSourceOptions, "fetch">;
}

export function createPriceSource(
  config: PriceSourceConfig,
  opts: CreatePriceSourceOptions = {},
): PriceSource | null {
  switch (config.PRICE_SOURCE) {
    case "static":
      return null;
    case "simulated":
      return withPinnedStablecoins(
        createSimulatedSource(opts.seed ?? SEED_USD_PRICES),
        config.STABLECOINS_PINNED,
      );
    case "http": {
      const httpOptions: HttpPriceSourceOptions = { ...opts.http };
      if (config.EXCHANGE_URL && !httpOptions.binance?.baseUrl)
        httpOptions.binance = { ...httpOptions.binance, baseUrl: config.EXCHANGE_URL };
      if (opts.fetch) httpOptions.fetch = opts.fetch;
      return withPinnedStablecoins(createHttpPriceSource(httpOptions), config.STABLECOINS_PINNED);
    }
    default: {
      const unknown: never = config.PRICE_SOURCE;
      throw new TypeError(`unknown PRICE_SOURCE ${String(unknown)}`);
    }
  }
}
