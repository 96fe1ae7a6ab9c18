/**
 * Shared plumbing for the HTTP chain readers (Esplora, EVM JSON-RPC, TronGrid): one typed error,
 * the shared HTTP client (../http-client) raising it, and the base-units → coin-units conversion.
 *
 * Every response is untrusted. Anything that is not the documented shape fails the whole call
 * with `ChainReaderError("invalid_body")` rather than being skipped: a silently ignored item could
 * be a deposit, and an API change should be loud, not look like "no deposits".
 */
import type { z } from "zod";
import { parseDecimal, toDecimalString } from "../../domain/money";
import {
  checkBaseUrl,
  createHttpClient,
  type FetchFn,
  type HttpClient,
  type HttpFail,
  validateBody,
} from "../http-client";

/** Per-request timeout (connect + headers + body) when the options give none. */
export const DEFAULT_TIMEOUT_MS = 10_000;
/**
 * Bodies larger than this are refused. The biggest expected body is an EVM JSON-RPC batch of
 * full blocks (`eth_getBlockByNumber(n, true)`, ~0.5–2 MB per block on ETH/BSC).
 */
export const MAX_BODY_CHARS = 48_000_000;

/** Why a chain read failed; stable strings for logs and metrics. */
export type ChainReaderFailure =
  /** the request (headers or body) did not finish within `timeoutMs` */
  | "timeout"
  /** fetch itself rejected (DNS, connection, TLS, ...) */
  | "network"
  /** a non-2xx status (429 rate limits included; see `status`) */
  | "http_status"
  /** 2xx but not JSON / not a number, or JSON of the wrong shape */
  | "invalid_body"
  /** a JSON-RPC `{error:{code,message}}` answer, or a TronGrid `success:false` (see `rpcCode`) */
  | "rpc_error";

export class ChainReaderError extends Error {
  override readonly name = "ChainReaderError";
  /** Which reader failed: "esplora", "evm-rpc", "trongrid". */
  readonly source: string;
  readonly kind: ChainReaderFailure;
  /** HTTP status, for kind "http_status". */
  readonly status: number | undefined;
  /** JSON-RPC error code, for kind "rpc_error" (when the server gave one). */
  readonly rpcCode: number | undefined;

  constructor(
    source: string,
    kind: ChainReaderFailure,
    message: string,
    options: { status?: number; rpcCode?: number; cause?: unknown } = {},
  ) {
    super(`${source}: ${message}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.source = source;
    this.kind = kind;
    this.status = options.status;
    this.rpcCode = options.rpcCode;
  }
}

/** Options every HTTP reader factory takes. */
export interface HttpReaderOptions {
  /** Scheme + host (+ optional path prefix) of the API, e.g. `https://blockstream.info/api`. */
  baseUrl: string;
  /** Injected for tests; defaults to the runtime's fetch. */
  fetch?: FetchFn;
  /** Per-request timeout in ms (connect + headers + body); default DEFAULT_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Name used in errors; each reader has its own default. */
  name?: string;
}

/** Pages of history a reader follows per call; older history was seen by earlier polls. */
export const DEFAULT_MAX_PAGES = 4;

export interface PagedReaderOptions extends HttpReaderOptions {
  /** Most pages read per incomingTransfers call; default 4. */
  maxPages?: number;
}

/**
 * What every HTTP reader starts from: the name its errors carry, its checked base URL (JSON-RPC
 * endpoints keep a trailing slash) and its client (with the provider's API-key header, if any).
 */
export function readerBase(
  options: HttpReaderOptions,
  defaultName: string,
  extra: { headers?: Readonly<Record<string, string>> | undefined; rpc?: boolean } = {},
): { source: string; url: string; http: HttpClient } {
  const source = options.name ?? defaultName;
  return {
    source,
    url: checkBaseUrl(source, options.baseUrl, extra.rpc ?? false),
    http: createChainHttpClient(source, extra.headers ? { ...options, headers: extra.headers } : options),
  };
}

/** A paged reader's page budget, checked. */
export function maxPagesOption(source: string, options: PagedReaderOptions): number {
  return positiveIntOption(source, "maxPages", options.maxPages ?? DEFAULT_MAX_PAGES);
}

function chainFailure(source: string): HttpFail {
  return (kind, message, options) => new ChainReaderError(source, kind, message, options);
}

/** The shared HTTP client (../http-client) with every failure a ChainReaderError. */
export function createChainHttpClient(
  source: string,
  options: { fetch?: FetchFn; timeoutMs?: number; headers?: Readonly<Record<string, string>> },
): HttpClient {
  return createHttpClient(source, {
    ...options,
    defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
    maxBodyChars: MAX_BODY_CHARS,
    fail: chainFailure(source),
  });
}

/** Validates `body` against `schema`, or throws ChainReaderError("invalid_body") naming the first bad path. */
export function parseBody<T>(source: string, schema: z.ZodType<T>, body: unknown, what: string): T {
  return validateBody(schema, body, what, chainFailure(source));
}

/** A non-negative integer written in decimal digits ("0", "12345678"). */
const DIGITS = /^[0-9]+$/;

/**
 * Base units (sats, wei, sun, token units) → coin units as a storage-form decimal string, exactly:
 * the decimal point is moved `decimals` places left in the digit string (no division, no
 * rounding, no floats), then checked by parseDecimal. 12345678 sats, 8 → "0.12345678";
 * 1500000, 6 → "1.5"; 0 → "0".
 *
 * Throws RangeError when `units` is not a non-negative integer or the result is outside the range
 * money.ts accepts (coin amounts of 1e31 and more).
 */
export function baseUnitsToDecimal(units: string | bigint | number, decimals: number): string {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 30) {
    throw new RangeError(`decimals must be an integer in [0, 30], got ${decimals}`);
  }
  let digits: string;
  if (typeof units === "bigint") {
    if (units < 0n) throw new RangeError("base units must not be negative");
    digits = units.toString();
  } else if (typeof units === "number") {
    if (!Number.isSafeInteger(units) || units < 0) {
      throw new RangeError(`base units must be a non-negative safe integer, got ${units}`);
    }
    digits = units.toString();
  } else {
    if (!DIGITS.test(units))
      throw new RangeError(`base units must be decimal digits, got ${units.slice(0, 40)}`);
    digits = units;
  }
  digits = digits.replace(/^0+(?=[0-9])/, "");
  if (digits.length > 80) throw new RangeError("base units too large");
  let text = digits;
  if (decimals > 0) {
    const padded = digits.padStart(decimals + 1, "0");
    text = `${padded.slice(0, padded.length - decimals)}.${padded.slice(padded.length - decimals)}`;
  }
  return toDecimalString(parseDecimal(text));
}

/**
 * baseUnitsToDecimal for an amount read from a provider: a bad one fails the call as
 * invalid_body (naming the transaction), not as a RangeError.
 */
export function unitsToDecimal(
  source: string,
  units: string | bigint | number,
  decimals: number,
  txid: string,
): string {
  try {
    return baseUnitsToDecimal(units, decimals);
  } catch (err) {
    throw new ChainReaderError(
      source,
      "invalid_body",
      `bad amount in ${txid}: ${String(units).slice(0, 80)}`,
      {
        cause: err,
      },
    );
  }
}

/** A reader option that must be a positive safe integer (page sizes, windows, page counts). */
export function positiveIntOption(source: string, name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new RangeError(`${source}: ${name} must be a positive integer`);
  return value;
}

/** A block's pages read at once (Esplora: a 4,000-transaction block is 160 pages of 25). */
export const BLOCK_PAGE_CONCURRENCY = 4;

/**
 * `read` over every item, at most `size` requests in flight, answers in the items' order: the pages
 * of one block (Esplora, Blockbook), read faster than one by one without a burst of hundreds.
 */
export async function inBatches<T, R>(
  items: readonly T[],
  size: number,
  read: (item: T) => Promise<R>,
): Promise<R[]> {
  const answers: R[] = [];
  for (let i = 0; i < items.length; i += size)
    answers.push(...(await Promise.all(items.slice(i, i + size).map(read))));
  return answers;
}
