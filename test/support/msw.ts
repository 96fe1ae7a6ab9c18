/**
 * MSW inside workerd, by dependency injection.
 *
 * Why not `setupServer` from `msw/node`: it patches Node's http/https/fetch through
 * @mswjs/interceptors, which reads `llhttp.wasm` from node_modules with fs.readFileSync at import
 * time; inside the Workers Vitest integration that fails ("no such file or directory, readAll
 * .../llhttp.wasm"), and workerd's fetch is not Node's anyway. (The Vitest integration also no
 * longer ships `fetchMock`.)
 *
 * What works: adapters take a `fetch: typeof fetch` option (default: the runtime fetch), and tests
 * pass `network.fetch`, which resolves each request against ordinary MSW handlers with msw's
 * `getResponse(handlers, request)` — no patching, no globals, no real network.
 *
 *   const network = createMockNetwork(http.get("https://api.example.com/x", () => HttpResponse.json({})));
 *   const adapter = createThing({ fetch: network.fetch });
 *   network.use(http.get(..., () => new HttpResponse(null, { status: 500 })));  // per-test override
 *   expect(network.requests.map((r) => r.url)).toEqual([...]);
 *   expect(network.unhandled).toEqual([]);
 *
 * Behaviour, matching a real fetch closely enough for adapter tests:
 * - A request no handler answers (or one answered with `passthrough()`) rejects with a TypeError,
 *   like a network failure, and is recorded in `unhandled` — adapters that swallow network errors
 *   and fall back would otherwise hide a missing handler, so assert `unhandled` is empty.
 * - The request's AbortSignal is honoured: when it fires (e.g. AbortSignal.timeout) before the
 *   handler answers, the fetch rejects with the signal's reason (a "TimeoutError" DOMException for
 *   AbortSignal.timeout). Use msw's `delay(ms)` in a handler to simulate a slow server.
 * - A handler that throws yields a rejected fetch (use `HttpResponse.error()` for a network error).
 *
 * For code that calls the global fetch and cannot take an injected one, `vi.stubGlobal("fetch",
 * network.fetch)` (and `vi.unstubAllGlobals()` after) works in workerd too.
 */
import { getResponse, isPassthroughResponse, type RequestHandler } from "msw";

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Headers;
  /** Request body as text ("" when none). */
  body: string;
}

export interface MockNetwork {
  /** Pass this wherever an adapter accepts `fetch`. */
  readonly fetch: typeof fetch;
  /** Every request made, in order (handled or not). */
  readonly requests: RecordedRequest[];
  /** "METHOD url" of requests no handler answered. */
  readonly unhandled: string[];
  /** Prepends handlers, which then win over the initial ones (like setupServer's `use`). */
  use(...handlers: RequestHandler[]): void;
  /** Drops handlers added with `use` (or replaces all handlers when given some) and clears the logs. */
  reset(...handlers: RequestHandler[]): void;
}

export function createMockNetwork(...initial: RequestHandler[]): MockNetwork {
  let base = [...initial];
  let overrides: RequestHandler[] = [];
  const requests: RecordedRequest[] = [];
  const unhandled: string[] = [];

  const resolve = async (request: Request): Promise<Response> => {
    const body = request.body ? await request.clone().text() : "";
    requests.push({ method: request.method, url: request.url, headers: new Headers(request.headers), body });
    const response = await getResponse([...overrides, ...base], request);
    if (!response || isPassthroughResponse(response)) {
      const what = `${request.method} ${request.url}`;
      unhandled.push(what);
      throw new TypeError(`[msw] no handler for ${what} (there is no network in tests)`);
    }
    // HttpResponse.error() is Response.error(): MSW turns it into a network failure, so do we.
    if (response.type === "error" || response.status === 0) {
      throw new TypeError(`[msw] network error for ${request.method} ${request.url}`);
    }
    return response;
  };

  const mockFetch: typeof fetch = (input, init) => {
    // The signal is taken from init/input directly: Request may not carry it over in every runtime.
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    if (signal?.aborted) return Promise.reject(signal.reason);
    const request = new Request(input, init);
    const pending = resolve(request);
    if (!signal) return pending;
    return new Promise<Response>((ok, fail) => {
      const onAbort = () => fail(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      pending.then(
        (res) => {
          signal.removeEventListener("abort", onAbort);
          ok(res);
        },
        (err: unknown) => {
          signal.removeEventListener("abort", onAbort);
          fail(err);
        },
      );
    });
  };

  return {
    fetch: mockFetch,
    requests,
    unhandled,
    use(...handlers) {
      overrides = [...handlers, ...overrides];
    },
    reset(...handlers) {
      overrides = [];
      if (handlers.length > 0) base = [...handlers];
      requests.length = 0;
      unhandled.length = 0;
    },
  };
}
