import type { Context } from "hono";

/**
 * Puts `headers` on the answer a middleware's `next()` produced (the route's, or onError's): one
 * write each into the final Response. `c.header` before the handler fills a Headers object of its
 * own that Hono then copies into the answer; on `GET /partner/rates` with a key, those writes and
 * copies were about a tenth of the Worker's CPU (docs/performance.md). An answer with immutable
 * headers (one fetched from elsewhere) is answered as a copy.
 */
export function setAnswerHeaders(c: Context, headers: Readonly<Record<string, string>>): void {
  try {
    const target = c.res.headers;
    for (const name in headers) target.set(name, headers[name] as string);
  } catch {
    const copy = new Response(c.res.body, c.res);
    for (const name in headers) copy.headers.set(name, headers[name] as string);
    c.res = copy;
  }
}
