import { type Context, Hono } from "hono";
import type { AppEnv } from "../app-env";
import { ApiError } from "../errors";
import { publicRateLimit } from "../middleware/auth";

/**
 * Benchmark references (scripts/bench.mjs, docs/performance.md), routes of this same Worker behind
 * its global middleware (request id, config, body limit) that answer a constant JSON body:
 * `/_bench/baseline` with no Durable Object and no D1 on its path (what the platform itself does
 * for a response of that size; the ratio of an endpoint's throughput to this one's is the cost of
 * the endpoint's own work), and `/_bench/limited`, the same behind the per-IP rate limiter.
 * `POST /_bench/new-object` is the floor of order creation: a fresh Durable Object per request that
 * writes one row and arms an alarm (src/objects/bench-object.ts); `GET /_bench/object/{name}` is the
 * floor of an order read: one call to an object that already exists.
 *
 * Enabled only when the var BENCH_ROUTES is "true"; otherwise it answers like an unknown route.
 * A plain Hono route, so it never appears in the OpenAPI document.
 */

const DEFAULT_BYTES = 1024;
const MAX_BYTES = 1024 * 1024;
const bodies = new Map<number, string>();

/** `{"pad":"xxx…"}` of exactly `bytes` bytes (never shorter than the 10 bytes of `{"pad":""}`), built once. */
function constantBody(bytes: number): string {
  let body = bodies.get(bytes);
  if (body === undefined) {
    const empty = '{"pad":""}';
    body = `{"pad":"${"x".repeat(Math.max(0, bytes - empty.length))}"}`;
    if (bodies.size >= 16) bodies.clear();
    bodies.set(bytes, body);
  }
  return body;
}

export function enabled(env: Env): boolean {
  return (env as unknown as { BENCH_ROUTES?: unknown }).BENCH_ROUTES === "true";
}

function constant(c: Context<AppEnv>) {
  const raw = c.req.query("bytes");
  const n = raw === undefined ? DEFAULT_BYTES : Number(raw);
  const bytes = Number.isInteger(n) && n > 0 && n <= MAX_BYTES ? n : DEFAULT_BYTES;
  return c.body(constantBody(bytes), 200, {
    "Content-Type": "application/json",
    "Cache-Control": "no-store",
  });
}

function benchObjects(c: Context<AppEnv>): NonNullable<Env["BENCH_OBJECTS"]> {
  const ns = (c.env as unknown as { BENCH_OBJECTS?: Env["BENCH_OBJECTS"] }).BENCH_OBJECTS;
  if (!ns) throw new ApiError(404, "not_found", "BENCH_OBJECTS is not bound in this environment.");
  return ns;
}

/** A fresh object per request (a random name, like a new order's), created and answered. */
async function newObject(c: Context<AppEnv>) {
  const at = await benchObjects(c).getByName(crypto.randomUUID()).create(Date.now());
  return c.json({ at }, 201, { "Cache-Control": "no-store" });
}

/** One call to the named object, which exists after its first call (like an order's, read). */
async function callObject(c: Context<AppEnv>) {
  const at = await benchObjects(c)
    .getByName(c.req.param("name") ?? "")
    .ping(Date.now());
  return c.json({ at }, 200, { "Cache-Control": "no-store" });
}

export const benchRouter = new Hono<AppEnv>()
  .use("/_bench/*", async (c, next) => {
    if (!enabled(c.env)) throw new ApiError(404, "not_found", `No route for GET ${c.req.path}.`);
    await next();
  })
  .get("/_bench/baseline", constant)
  .get("/_bench/limited", publicRateLimit, constant)
  .post("/_bench/new-object", newObject)
  .get("/_bench/object/:name", callObject);
