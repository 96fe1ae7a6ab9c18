import type { Context, ErrorHandler, Hono, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { DomainError, type DomainErrorCode } from "../../domain/errors";
import { PairUnavailableError } from "../../domain/pricing";
import type { AppEnv } from "../app-env";
import { ApiError } from "../errors";

const DOMAIN_STATUS: Record<DomainErrorCode, ContentfulStatusCode> = {
  pair_unavailable: 400,
  network_required: 400,
  invalid_amount: 400,
  amount_below_min: 422,
  amount_above_max: 422,
  invalid_address: 422,
  invalid_tag: 422,
  quote_not_found: 422,
  quote_expired: 422,
  quote_mismatch: 422,
  idempotency_conflict: 422,
  order_not_found: 404,
  prices_stale: 503,
  service_misconfigured: 503,
  invalid_cursor: 400,
  cabinet_auth_failed: 401,
  signin_throttled: 429,
  partner_not_found: 404,
  member_not_found: 404,
  invite_not_found: 404,
  key_not_found: 404,
  last_admin: 409,
  last_passkey: 409,
  step_up_required: 403,
  invalid_catalog_change: 422,
  currency_exists: 409,
  action_not_available: 409,
  send_pending: 409,
  invalid_overlap: 400,
  webhook_not_configured: 409,
  event_not_found: 404,
  markup_above_cap: 422,
  test_mode_only: 403,
  statement_not_found: 404,
  invalid_payout_asset: 422,
  test_order_limit: 409,
  insufficient_liquidity: 422,
  invalid_origin: 400,
  invalid_widget: 422,
  widget_not_found: 404,
  turnstile_failed: 403,
  widget_rate_limited: 429,
  unsupported_asset: 422,
  asset_mismatch: 422,
  // 451 Unavailable For Legal Reasons: what Ledger's providers answer for a restricted region.
  region_restricted: 451,
  duplicate_partner_order_id: 409,
  recipient_not_activated: 422,
  address_screened: 422,
};

/** The HTTP status of a domain error, for the JSON API and for the pages that show it in a form. */
export function statusOf(code: DomainErrorCode): ContentfulStatusCode {
  return DOMAIN_STATUS[code];
}

function fromDomain(err: DomainError): ApiError {
  const headers: Record<string, string> = err.retryAfter ? { "Retry-After": String(err.retryAfter) } : {};
  const errors = err.reasons?.map(({ top: _, ...item }) => item);
  return new ApiError(statusOf(err.code), err.code, err.message, {
    headers,
    ...(errors ? { errors } : {}),
  });
}

function render(c: Context<AppEnv>, err: ApiError): Response {
  for (const [k, v] of Object.entries(err.options.headers ?? {})) c.header(k, v);
  const id = c.get("requestId");
  if (id) c.header("X-Request-Id", id);
  c.header("Cache-Control", "no-store");
  return c.json(err.body(), err.status);
}

/** Maps every thrown error to the `{detail, code}` body, once, for the whole app. */
export const onError: ErrorHandler<AppEnv> = (err, c) => {
  if (err instanceof ApiError) return render(c, err);
  if (err instanceof DomainError) return render(c, fromDomain(err));
  if (err instanceof PairUnavailableError)
    return render(c, new ApiError(400, "pair_unavailable", `Pair unavailable: ${err.reason}.`));
  if (err instanceof HTTPException) {
    // Hono's own validators throw these, e.g. "Malformed JSON in request body".
    const status = err.status;
    const code =
      status === 413 ? "payload_too_large" : status === 415 ? "unsupported_media_type" : "invalid_request";
    if (status < 500) return render(c, new ApiError(status, code, err.message || "Bad request"));
  }
  console.error(
    JSON.stringify({
      level: "error",
      requestId: c.get("requestId"),
      error: String(err),
      stack: (err as Error).stack,
    }),
  );
  return render(
    c,
    new ApiError(
      500,
      "internal_error",
      "Internal server error; quote the X-Request-Id when contacting support.",
    ),
  );
};

function pathPattern(path: string): RegExp {
  const source = path
    .split("/")
    .map((seg) =>
      seg.startsWith(":") ? "[^/]+" : seg === "*" ? ".*" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
    )
    .join("/");
  return new RegExp(`^${source}$`);
}

/**
 * Hono answers an unmatched method with 404; the contract of a REST API is 405 with `Allow`, so
 * the not-found handler checks whether another method would have matched the path.
 */
export function notFoundHandler(app: Hono<AppEnv>): NotFoundHandler<AppEnv> {
  let table: { method: string; pattern: RegExp }[] | undefined;
  return (c) => {
    table ??= app.routes
      .filter((r) => r.method !== "ALL")
      .map((r) => ({ method: r.method.toUpperCase(), pattern: pathPattern(r.path) }));
    const path = new URL(c.req.url).pathname;
    const allowed = [...new Set(table.filter((r) => r.pattern.test(path)).map((r) => r.method))];
    // A route of this method that answered "not found" itself (a missing file) is a 404, not a 405.
    const method = c.req.method === "HEAD" ? "GET" : c.req.method;
    if (allowed.length > 0 && !allowed.includes(method)) {
      if (allowed.includes("GET") && !allowed.includes("HEAD")) allowed.push("HEAD");
      return render(
        c,
        new ApiError(
          405,
          "method_not_allowed",
          `Method ${c.req.method} is not allowed on ${path}; use ${allowed.join(", ")}.`,
          {
            headers: { Allow: allowed.join(", ") },
          },
        ),
      );
    }
    // Routing is strict about a trailing slash; say so rather than leave the caller guessing.
    const bare = path.length > 1 && path.endsWith("/") ? path.replace(/\/+$/, "") : null;
    const hint = bare && table.some((r) => r.pattern.test(bare)) ? ` Did you mean ${bare}?` : "";
    return render(c, new ApiError(404, "not_found", `No route for ${c.req.method} ${path}.${hint}`));
  };
}
