import type { MiddlewareHandler } from "hono";
import { etagOf, ifNoneMatch } from "../../lib/etag";
import type { AppEnv } from "../app-env";

/** docs/auth-and-limits.md, "Caching"; Cloudflare compresses JSON for clients that accept it. */
const CACHING = { "Cache-Control": "public, max-age=300", Vary: "Accept-Encoding" };
// Origins are this deployment's host names; the bound only stops a stream of made-up Host headers.
const MAX_ORIGINS = 16;

/**
 * The OpenAPI document at this path, generated once per origin per isolate (it is the same for
 * every caller; only `servers` names the origin) instead of on every request, with an ETag, so a
 * client revalidates it for the price of a 304.
 */
export function documentCache(): MiddlewareHandler<AppEnv> {
  const made = new Map<string, { body: string; etag: string }>();
  return async (c, next) => {
    const origin = new URL(c.req.url).origin;
    const doc = made.get(origin);
    if (doc) {
      const headers = { ...CACHING, ETag: doc.etag };
      if (ifNoneMatch(c.req.header("if-none-match"), doc.etag)) return c.body(null, 304, headers);
      return c.body(doc.body, 200, { "Content-Type": "application/json", ...headers });
    }
    await next();
    if (c.res.status !== 200) return;
    const body = await c.res.clone().text();
    const etag = await etagOf(body);
    if (made.size >= MAX_ORIGINS) made.clear();
    made.set(origin, { body, etag });
    for (const [k, v] of Object.entries({ ...CACHING, ETag: etag })) c.res.headers.set(k, v);
    if (ifNoneMatch(c.req.header("if-none-match"), etag))
      c.res = new Response(null, { status: 304, headers: c.res.headers });
  };
}
