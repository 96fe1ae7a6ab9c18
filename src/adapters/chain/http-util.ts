/**
 * Shared plumbing for the HTTP chain readers (Esplora, EVM JSON-RPC, TronGrid): one typed error,
 * fetch with a timeout, JSON/text bodies, zod validation, and the base-units → coin-units
 * conversion.
 *
 * Every response is untrusted. Anything that is not the documented shape fails the whole call
 * with `ChainReaderError("invalid_body")` rather than being skipped: a silently ignored item could
 * be a deposit, and an API change should be loud, not look like "no deposits".
 */
import type { z } from "zod";
import { parseDecimal, toDecimalString } from "../../domain/money";

export type FetchFn = typeof fetch;

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

// Workers' fetch throws "Illegal invocation" when called as a method of another object, so the
// default is a plain closure and injected functions are only ever called unbound.
const runtimeFetch: FetchFn = (input, init) => fetch(input, init);

/** Options every HTTP reader factory takes. */
export interface HttpReaderOptions {
  /** Scheme + host (+ optional path prefix) of the API, e.g. `https://blockstream.info/api`. */
  baseUrl: string;
  /** Injected for tests; defaults to the runtime's fetch. */
  fetch?: FetchFn;
  /** Per-request timeout in ms (connect + headers + body); default DEFAULT_TIMEOUT_MS. */
  timeoutMs?: number;
}

/**
 * Validates an http(s) URL without query or fragment. REST bases lose trailing slashes (paths are
 * appended); a JSON-RPC endpoint is used exactly as given (`keepTrailingSlash`), because some
 * providers' endpoint URLs end with "/".
 */
export function checkBaseUrl(source: string, baseUrl: string, keepTrailingSlash = false): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`${source}: baseUrl is not a URL: ${baseUrl}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new TypeError(`${source}: baseUrl must be http(s): ${baseUrl}`);
  }
  if (url.search || url.hash) throw new TypeError(`${source}: baseUrl must not have a query or fragment`);
  return keepTrailingSlash ? url.href : url.href.replace(/\/+$/, "");
}

export function checkTimeout(source: string, timeoutMs: number | undefined): number {
  const ms = timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isInteger(ms) || ms <= 0)
    throw new RangeError(`${source}: timeoutMs must be a positive integer`);
  return ms;
}

function isTimeout(err: unknown): boolean {
  return err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
}

export interface HttpClient {
  readonly source: string;
  /** GET `url`; the body as text. */
  getText(url: string): Promise<string>;
  /** GET `url`; the body parsed as JSON. */
  getJson(url: string): Promise<unknown>;
  /** POST `body` as JSON to `url`; the response parsed as JSON. */
  postJson(url: string, body: unknown): Promise<unknown>;
}

/**
 * A fetch wrapper that turns every failure into ChainReaderError. `headers` are sent with every
 * request (e.g. an API key).
 */
export function createHttpClient(
  source: string,
  options: { fetch?: FetchFn; timeoutMs?: number; headers?: Readonly<Record<string, string>> },
): HttpClient {
  const fetchFn = options.fetch ?? runtimeFetch;
  const timeoutMs = checkTimeout(source, options.timeoutMs);
  const extraHeaders = options.headers ?? {};

  const request = async (url: string, init: { method: string; body?: string; accept: string }) => {
    // One signal for the whole exchange, so a server that trickles its body also times out.
    const signal = AbortSignal.timeout(timeoutMs);
    const headers: Record<string, string> = { accept: init.accept, ...extraHeaders };
    if (init.body !== undefined) headers["content-type"] = "application/json";
    let res: Response;
    try {
      res = await fetchFn(url, {
        method: init.method,
        headers,
        signal,
        ...(init.body === undefined ? {} : { body: init.body }),
      });
    } catch (err) {
      if (isTimeout(err)) throw new ChainReaderError(source, "timeout", `no response within ${timeoutMs} ms`);
      throw new ChainReaderError(source, "network", `request failed: ${String(err)}`, { cause: err });
    }
    if (!res.ok) {
      // Unread bodies keep the connection (and, in tests, isolated storage) busy: always drain.
      await res.body?.cancel().catch(() => {});
      throw new ChainReaderError(source, "http_status", `HTTP ${res.status} from ${init.method} ${url}`, {
        status: res.status,
      });
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      if (isTimeout(err))
        throw new ChainReaderError(source, "timeout", `body not read within ${timeoutMs} ms`);
      throw new ChainReaderError(source, "network", `reading body failed: ${String(err)}`, { cause: err });
    }
    if (text.length > MAX_BODY_CHARS)
      throw new ChainReaderError(source, "invalid_body", "response too large");
    return text;
  };

  const parseJson = (text: string): unknown => {
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new ChainReaderError(source, "invalid_body", "response is not JSON", { cause: err });
    }
  };

  return {
    source,
    getText: (url) => request(url, { method: "GET", accept: "text/plain, */*" }),
    getJson: async (url) => parseJson(await request(url, { method: "GET", accept: "application/json" })),
    postJson: async (url, body) =>
      parseJson(
        await request(url, { method: "POST", accept: "application/json", body: JSON.stringify(body) }),
      ),
  };
}

/** Validates `body` against `schema`, or throws ChainReaderError("invalid_body") naming the first bad path. */
export function parseBody<T>(source: string, schema: z.ZodType<T>, body: unknown, what: string): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const where = parsed.error.issues[0]?.path.join(".") || "(root)";
    throw new ChainReaderError(source, "invalid_body", `unexpected ${what} shape at ${where}`, {
      cause: parsed.error,
    });
  }
  return parsed.data;
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
