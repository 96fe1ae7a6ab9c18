/**
 * Market-price sources (DESIGN.md §1 "adapters: prices", §3 "mid rate = price(from)/price(to)").
 *
 * A source answers "what is one unit of each of these coins worth in USD right now". The caller
 * (the cron refresh) stores whatever comes back with a timestamp; a coin the source could not price
 * is simply absent from the result, and becomes unavailable once its stored price is older than
 * PRICE_MAX_AGE_SECONDS. A source throws `PriceSourceError` only when it produced nothing useful.
 */
import type { PriceQuote } from "../../domain/prices";

export interface PriceSource {
  readonly name: string;
  /**
   * USD prices for `coins` (any case; duplicates ignored) at `now` (epoch ms). Returns at most one
   * quote per requested coin, upper-cased, in request order; coins the source cannot price are left
   * out. Rejects with PriceSourceError when the source could not be used at all.
   */
  fetchPrices(coins: readonly string[], now: number): Promise<PriceQuote[]>;
}

/** Why a source failed; stable strings for logs and metrics. */
export type PriceSourceFailure =
  /** the request did not finish within the source's timeout */
  | "timeout"
  /** fetch itself rejected (DNS, connection, TLS, ...) */
  | "network"
  /** a non-2xx status */
  | "http_status"
  /** 2xx but not JSON, or JSON of the wrong shape */
  | "invalid_body"
  /** a source threw something other than PriceSourceError (a bug) */
  | "unexpected"
  /** every source in a fallback chain failed (see `failures`) */
  | "all_failed";

export class PriceSourceError extends Error {
  override readonly name = "PriceSourceError";
  readonly source: string;
  readonly kind: PriceSourceFailure;
  /** HTTP status, for kind "http_status". */
  readonly status: number | undefined;
  /** The individual failures, for kind "all_failed". */
  readonly failures: readonly PriceSourceError[];

  constructor(
    source: string,
    kind: PriceSourceFailure,
    message: string,
    options: { status?: number; failures?: readonly PriceSourceError[]; cause?: unknown } = {},
  ) {
    super(`price source ${source}: ${message}`, options.cause === undefined ? {} : { cause: options.cause });
    this.source = source;
    this.kind = kind;
    this.status = options.status;
    this.failures = options.failures ?? [];
  }
}
