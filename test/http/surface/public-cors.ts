import { Hono, type MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { HTTPException } from "hono/http-exception";
import { requestId } from "hono/request-id";
import { describe, expect, it } from "vitest";
import { PUBLIC_CORS, publicCors } from "../../../src/http/middleware/cors";

/** An app shaped like ours (request id, route middleware setting headers, onError, notFound) around `mw`. */
function app(mw: MiddlewareHandler): Hono {
  const a = new Hono();
  a.use("*", requestId());
  a.use("/p/*", mw);
  a.use("/p/*", async (c, next) => {
    c.header("RateLimit-Remaining", "59");
    await next();
  });
  a.get("/p/json", (c) => c.json({ ok: true }, 200, { "Cache-Control": "no-store" }));
  a.get("/p/body", (c) => c.body("<svg/>", 200, { "Content-Type": "image/svg+xml", ETag: '"e"' }));
  a.get("/p/empty", (c) => c.body(null, 304, { ETag: '"e"' }));
  a.get("/p/late-header", (c) => {
    c.header("Cache-Control", "public, max-age=60");
    return c.json([1, 2]);
  });
  a.get("/p/throw", () => {
    throw new HTTPException(429, { message: "slow down" });
  });
  a.onError((err, c) => {
    c.header("Retry-After", "7");
    return c.json({ detail: err.message, code: "rate_limited" }, 429);
  });
  a.notFound((c) => c.json({ detail: "none", code: "not_found" }, 404));
  return a;
}

async function snapshot(res: Response) {
  return { status: res.status, headers: [...res.headers], body: await res.text() };
}

describe("public CORS", () => {
  it("answers every request exactly as Hono's cors with the same options: status, every header, body", async () => {
    const ours = app(publicCors());
    const hono = app(cors(PUBLIC_CORS));
    const origins: Record<string, string>[] = [{}, { Origin: "https://wallet.example" }];
    const requests: [string, string, Record<string, string>][] = [];
    for (const o of origins) {
      for (const path of ["/p/json", "/p/body", "/p/empty", "/p/late-header", "/p/throw", "/p/none"])
        for (const method of ["GET", "HEAD", "POST"]) requests.push([method, path, { ...o }]);
      requests.push(["OPTIONS", "/p/json", { ...o, "Access-Control-Request-Method": "GET" }]);
      requests.push([
        "OPTIONS",
        "/p/json",
        {
          ...o,
          "Access-Control-Request-Method": "GET",
          "Access-Control-Request-Headers": "x-api-key, x-request-id",
        },
      ]);
    }
    for (const [method, path, headers] of requests) {
      // A fixed id, so the generated X-Request-Id does not differ between the two answers.
      const init = { method, headers: { ...headers, "X-Request-Id": "r-1" } };
      const a = await snapshot(await ours.request(path, init));
      const b = await snapshot(await hono.request(path, init));
      expect(a, `${method} ${path} ${JSON.stringify(headers)}`).toEqual(b);
    }
  });

  it("sends the CORS headers on a successful GET and on an error", async () => {
    const ours = app(publicCors());
    for (const path of ["/p/json", "/p/throw"]) {
      const res = await ours.request(path, { headers: { Origin: "https://wallet.example" } });
      expect(res.headers.get("access-control-allow-origin"), path).toBe("*");
      expect(res.headers.get("access-control-expose-headers"), path).toBe(
        "RateLimit-Policy,RateLimit,RateLimit-Limit,RateLimit-Remaining,RateLimit-Reset,Retry-After,X-Request-Id",
      );
    }
  });
});
