import { type Context, Hono } from "hono";
import { constantBody } from "../../objects/bench-object";
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
 * floor of an order read: one call to an object that already exists. Each answers `?bytes=` bytes,
 * so that a floor moves as many as the route it is measured against.
 *
 * Enabled only when the var BENCH_ROUTES is "true"; otherwise it answers like an unknown route.
 * A plain Hono route, so it never appears in the OpenAPI document.
 */

const DEFAULT_BYTES = 1024;
const MAX_BYTES = 1024 * 1024;

export function enabled(env: Env): boolean {
  return (env as unknown as { BENCH_ROUTES?: unknown }).BENCH_ROUTES === "true";
}

/** `?bytes=N`: the size of the answer (default 1 KiB, at most 1 MiB). */
function bytesAsked(c: Context<AppEnv>): number {
  const raw = c.req.query("bytes");
  const n = raw === undefined ? DEFAULT_BYTES : Number(raw);
  return Number.isInteger(n) && n > 0 && n <= MAX_BYTES ? n : DEFAULT_BYTES;
}

const answer = (c: Context<AppEnv>, body: string, status: 200 | 201) =>
  c.body(body, status, { "Content-Type": "application/json", "Cache-Control": "no-store" });

function constant(c: Context<AppEnv>) {
  return answer(c, constantBody(bytesAsked(c)), 200);
}

function benchObjects(c: Context<AppEnv>): NonNullable<Env["BENCH_OBJECTS"]> {
  const ns = (c.env as unknown as { BENCH_OBJECTS?: Env["BENCH_OBJECTS"] }).BENCH_OBJECTS;
  if (!ns) throw new ApiError(404, "not_found", "BENCH_OBJECTS is not bound in this environment.");
  return ns;
}

/** A fresh object per request (a random name, like a new order's), created; `?bytes=` answered. */
async function newObject(c: Context<AppEnv>) {
  await benchObjects(c).getByName(crypto.randomUUID()).create(Date.now());
  return answer(c, constantBody(bytesAsked(c)), 201);
}

/**
 * One call to the named object, which exists after its first call and answers a kept text of
 * `?bytes=` bytes (like an order's object, read, answers its kept view).
 */
async function callObject(c: Context<AppEnv>) {
  const body = await benchObjects(c)
    .getByName(c.req.param("name") ?? "")
    .ping(bytesAsked(c));
  return answer(c, body, 200);
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
