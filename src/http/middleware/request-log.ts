import type { MiddlewareHandler } from "hono";
import { ERROR_BODY_MAX, errorCode, type NewRequestLogEntry, orderRefInPath } from "../../domain/request-log";
import { orderRef } from "../../services/orders";
import { logName, logRequest } from "../../services/request-log";
import type { AppEnv } from "../app-env";
import { benchRoutesOn } from "../bench-switch";
import { clientIp } from "./rate-limit";

export const BENCH_NO_LOG = "x-bench-no-request-log";
/** Reading the log is not logged: a script polling it would fill it with itself. */
const LOGS = "/api/v1/partner/logs";

/**
 * Logs every partner API request made with a valid key (the partner is known only then) to that
 * partner's log for the key's mode (docs/cabinet.md, "Logs"). Runs around the routes, so it sees
 * the final answer, errors included. Nothing is written on the request's path (logRequest).
 */
export const requestLog: MiddlewareHandler<AppEnv> = async (c, next) => {
  const started = Date.now();
  await next();
  const partner = c.get("partner");
  const keyId = c.get("apiKeyId");
  const config = c.get("config");
  if (!partner || !keyId || !config.REQUEST_LOG || c.req.path === LOGS) return;
  // The bench's "log off" row (scripts/bench.mjs): only where the bench routes are on.
  if (benchRoutesOn(c.env) && c.req.header(BENCH_NO_LOG) !== undefined) return;
  const { status } = c.res;
  const failed = status >= 400;
  // An error's body is read from the answer, which is small and already in memory. Read here and
  // answered again: a clone read later would wait for the client to read the original, which a
  // client need not do.
  let body: string | null = null;
  if (failed) {
    body = await c.res.text();
    c.res = new Response(body, c.res);
  }
  const { path, query } = pathAndQuery(c.req.url);
  const entry: NewRequestLogEntry = {
    at_ms: started,
    method: c.req.method,
    path,
    query,
    status,
    code: body === null ? null : errorCode(body),
    latency_ms: Date.now() - started,
    key_id: keyId,
    request_id: c.get("requestId"),
    ip: clientIp(c),
    // A creation names its order in the answer's body, which the route hands over instead.
    order_id: c.get("createdOrderId") ?? orderIdInPath(path),
    error_body: body === null ? null : body.slice(0, ERROR_BODY_MAX),
  };
  logRequest(
    c.env,
    c.executionCtx,
    logName(partner.id, partner.livemode),
    entry,
    config.REQUEST_LOG_RETENTION_DAYS,
  );
};

/**
 * The order's UUID when the path names one (by UUID or short id), through the isolate's memo of
 * references that the order routes have just filled: no second SHA-256 and BigInt derivation.
 */
function orderIdInPath(path: string): string | null {
  const ref = orderRefInPath(path);
  return ref === null ? null : (orderRef(ref)?.id ?? null);
}

/**
 * The path and query of a request URL as the runtime serialised it (already normalised, so the
 * same as URL's `pathname` and `search` without its "?"), without parsing it again.
 */
export function pathAndQuery(url: string): { path: string; query: string } {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const q = url.indexOf("?", start);
  if (start < 0) return { path: "/", query: q < 0 ? "" : url.slice(q + 1) };
  return q < 0
    ? { path: url.slice(start), query: "" }
    : { path: url.slice(start, q), query: url.slice(q + 1) };
}
