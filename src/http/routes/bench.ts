import { type Context, Hono } from "hono";
import { constantBody } from "../../objects/bench-object";
import type { AppEnv } from "../app-env";
import { benchRoutesOn } from "../bench-switch";
import { ApiError } from "../errors";
import { partnerAuth, publicRateLimit } from "../middleware/auth";
import { requestLog } from "../middleware/request-log";

/**
 * Benchmark references (scripts/bench.mjs, docs/performance.md), routes of this same Worker behind
 * its global middleware (request id, config, body limit) that answer a constant JSON body:
 * `/_bench/baseline` with no Durable Object and no D1 on its path (what the platform itself does
 * for a response of that size; the ratio of an endpoint's throughput to this one's is the cost of
 * the endpoint's own work), and `/_bench/limited`, the same behind the per-IP rate limiter.
 * `POST /_bench/new-object` is the floor of order creation: a fresh Durable Object per request that
 * writes one row and arms an alarm (src/objects/bench-object.ts); `GET /_bench/object/{name}` is the
 * floor of an order read: one call to an object that already exists, and `GET
 * /_bench/keyed-object/{name}` the same behind a partner's key, limiter and request log. Each
 * answers `?bytes=` bytes, so that a floor moves as many as the route it is measured against.
 *
 * Enabled only when the var BENCH_ROUTES is "true"; otherwise it answers like an unknown route.
 * A plain Hono route, so it never appears in the OpenAPI document.
 */

const DEFAULT_BYTES = 1024;
const MAX_BYTES = 1024 * 1024;

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

/**
 * A fresh object per request (a random name, like a new order's), created; `?bytes=` answered.
 * `?address=btc`: the object also derives a BTC deposit address from the configured xpub, as an
 * order's object does.
 */
async function newObject(c: Context<AppEnv>) {
  const address = c.req.query("address");
  const xpub = address === "btc" ? c.get("config").deposit.xpubs.BTC : undefined;
  if (address !== undefined && xpub === undefined)
    throw new ApiError(400, "invalid_request", "?address= takes `btc`, with DEPOSIT_XPUB_BTC set.");
  await benchObjects(c).getByName(crypto.randomUUID()).create(Date.now(), xpub);
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
    if (!benchRoutesOn(c.env)) throw new ApiError(404, "not_found", `No route for GET ${c.req.path}.`);
    await next();
  })
  .get("/_bench/baseline", constant)
  .get("/_bench/limited", publicRateLimit, constant)
  .post("/_bench/new-object", newObject)
  .get("/_bench/object/:name", callObject)
  // The same call behind what every keyed partner route runs first: the request log, the key's
  // check and the partner's limiter (an order read's route, less its own work).
  .get("/_bench/keyed-object/:name", requestLog, partnerAuth("required", "getOrder"), callObject);
