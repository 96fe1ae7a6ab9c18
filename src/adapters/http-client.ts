/**
 * The fetch wrapper behind the adapters that read other people's HTTP APIs (chain readers, price
 * sources): one timeout over the whole exchange, bounded bodies, JSON parsing and zod validation.
 * Every failure becomes the adapter's own typed error through `fail`, so callers see one error
 * type per adapter family.
 */
import type { z } from "zod";

export type FetchFn = typeof fetch;

export type HttpFailure = "timeout" | "network" | "http_status" | "invalid_body";

/** Builds the adapter's error for a failure (`status` for http_status). */
export type HttpFail = (
  kind: HttpFailure,
  message: string,
  options?: { status?: number; cause?: unknown },
) => Error;

// Workers' fetch throws "Illegal invocation" when called as a method of another object, so the
// default is a plain closure and injected functions are only ever called unbound.
export const runtimeFetch: FetchFn = (input, init) => fetch(input, init);

/**
 * Runs one exchange (a fetch and the reading of its body) under a signal that aborts after `ms`
 * like `AbortSignal.timeout(ms)` (a "TimeoutError" DOMException), and clears the timer as soon as
 * the exchange settles. `AbortSignal.timeout`'s timer runs on for the full `ms` after the answer
 * came, and in a Durable Object a pending timer keeps the object from being evicted until it fires
 * (docs/performance.md, "Test-suite time").
 */
export async function withTimeout<T>(ms: number, exchange: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError")),
    ms,
  );
  try {
    return await exchange(controller.signal);
  } finally {
    clearTimeout(timer);
  }
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

export function checkTimeout(source: string, timeoutMs: number | undefined, fallbackMs: number): number {
  const ms = timeoutMs ?? fallbackMs;
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

export interface HttpClientOptions {
  /** Injected for tests; defaults to the runtime's fetch. */
  fetch?: FetchFn | undefined;
  timeoutMs?: number | undefined;
  /** The timeout when `timeoutMs` is not given. */
  defaultTimeoutMs: number;
  /** Longer bodies are refused as invalid_body. */
  maxBodyChars: number;
  /** Sent with every request (e.g. an API key). */
  headers?: Readonly<Record<string, string>> | undefined;
  fail: HttpFail;
}

export function createHttpClient(source: string, options: HttpClientOptions): HttpClient {
  const { fail, maxBodyChars } = options;
  const fetchFn = options.fetch ?? runtimeFetch;
  const timeoutMs = checkTimeout(source, options.timeoutMs, options.defaultTimeoutMs);
  const extraHeaders = options.headers ?? {};

  // One signal for the whole exchange, so a server that trickles its body also times out.
  const request = (url: string, init: { method: string; body?: string; accept: string }) =>
    withTimeout(timeoutMs, (signal) => exchange(url, init, signal));
  const exchange = async (
    url: string,
    init: { method: string; body?: string; accept: string },
    signal: AbortSignal,
  ) => {
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
      if (isTimeout(err)) throw fail("timeout", `no response within ${timeoutMs} ms`);
      throw fail("network", `request failed: ${String(err)}`, { cause: err });
    }
    if (!res.ok) {
      // Unread bodies keep the connection (and, in tests, isolated storage) busy: always drain.
      await res.body?.cancel().catch(() => {});
      // Only the origin: JSON-RPC providers put the API key in the path (Infura /v3/<key>), and
      // this message ends up in logs.
      throw fail("http_status", `HTTP ${res.status} from ${init.method} ${new URL(url).origin}`, {
        status: res.status,
      });
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      if (isTimeout(err)) throw fail("timeout", `body not read within ${timeoutMs} ms`);
      throw fail("network", `reading body failed: ${String(err)}`, { cause: err });
    }
    if (text.length > maxBodyChars) throw fail("invalid_body", "response too large");
    return text;
  };

  const parseJson = (text: string): unknown => {
    try {
      return JSON.parse(text);
    } catch (err) {
      throw fail("invalid_body", "response is not JSON", { cause: err });
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

/** Validates `body` against `schema`, or fails with invalid_body naming the first bad path. */
export function validateBody<T>(schema: z.ZodType<T>, body: unknown, what: string, fail: HttpFail): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const where = parsed.error.issues[0]?.path.join(".") || "(root)";
    throw fail("invalid_body", `unexpected ${what} shape at ${where}`, { cause: parsed.error });
  }
  return parsed.data;
}
