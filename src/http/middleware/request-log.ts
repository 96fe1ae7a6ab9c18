import type { MiddlewareHandler } from "hono";
import {
  ERROR_BODY_MAX,
  errorCode,
  type NewRequestLogEntry,
  orderIdFromPath,
} from "../../domain/request-log";
import { logName, logRequest } from "../../services/request-log";
import type { AppEnv } from "../app-env";
import { enabled as benchRoutesOn } from "../routes/bench";
import { clientIp } from "./rate-limit";

const CREATE_ORDER = "/api/v1/partner/orders";
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
  if (c.req.header(BENCH_NO_LOG) !== undefined && benchRoutesOn(c.env)) return;
  const { status } = c.res;
  const failed = status >= 400;
  const created = c.req.method === "POST" && c.req.path === CREATE_ORDER && status < 300;
  // An error's body (and a created order's id) is read from the answer, which is small and
  // already in memory. Read here and answered again: a clone read later would wait for the
  // client to read the original, which a client need not do.
  let body: string | null = null;
  if (failed || created) {
    body = await c.res.text();
    c.res = new Response(body, c.res);
  }
  const url = new URL(c.req.url);
  const entry: NewRequestLogEntry = {
    at_ms: started,
    method: c.req.method,
    path: url.pathname,
    query: url.search.slice(1),
    status,
    code: failed && body !== null ? errorCode(body) : null,
    latency_ms: Date.now() - started,
    key_id: keyId,
    request_id: c.get("requestId"),
    ip: clientIp(c),
    order_id: created && body !== null ? createdOrderId(body) : orderIdFromPath(url.pathname),
    error_body: failed && body !== null ? body.slice(0, ERROR_BODY_MAX) : null,
  };
  logRequest(
    c.env,
    c.executionCtx,
    logName(partner.id, partner.livemode),
    entry,
    config.REQUEST_LOG_RETENTION_DAYS,
  );
};

function createdOrderId(body: string): string | null {
  try {
    const order: unknown = JSON.parse(body);
    return order && typeof order === "object" && "id" in order && typeof order.id === "string"
      ? order.id
      : null;
  } catch {
    return null;
  }
}
