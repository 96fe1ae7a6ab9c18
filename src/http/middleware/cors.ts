import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { setAnswerHeaders } from "../answer-headers";

/** What a partner's browser widget may do on the public routes (docs/auth-and-limits.md, "CORS"). */
export const PUBLIC_CORS = {
  origin: "*",
  allowMethods: ["GET", "HEAD"],
  // Named, so a preflight asking to send a key (X-API-Key, Authorization) is not echoed back.
  allowHeaders: ["X-Request-Id", "Last-Event-ID"],
  exposeHeaders: [
    "RateLimit-Policy",
    "RateLimit",
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
    "Retry-After",
    "X-Request-Id",
  ],
  maxAge: 86400,
};

/**
 * CORS for the public routes: the headers Hono's `cors` sends for `PUBLIC_CORS`, with the same
 * preflight (Hono's own middleware answers it). On every other request the two constant headers
 * are written into the answer once it exists (setAnswerHeaders): Hono's middleware writes them
 * through `c.res`, which builds an empty Response up front and makes Hono copy the handler's
 * Response (body and headers) into a third one — 10–12 % of a `GET /currencies` in the CPU
 * profile. With `origin: "*"` nothing depends on the request, so the values are fixed strings.
 */
export function publicCors(): MiddlewareHandler {
  const preflight = cors(PUBLIC_CORS);
  const headers = {
    "Access-Control-Allow-Origin": PUBLIC_CORS.origin,
    "Access-Control-Expose-Headers": PUBLIC_CORS.exposeHeaders.join(","),
  };
  return async (c, next) => {
    if (c.req.method === "OPTIONS") return preflight(c, next);
    await next();
    setAnswerHeaders(c, headers);
  };
}
