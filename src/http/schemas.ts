import { z } from "@hono/zod-openapi";
import { DEFAULT_MAX_SLIPPAGE_BPS, MAX_SLIPPAGE_BPS } from "../domain/min-out";
import { ERROR_CODES, MAX_DETAIL } from "./errors";

const amountFigure = (description: string) => z.number().optional().openapi({ description });

/** An item of `errors`: always `code` and `detail`; a field for schema problems, figures for business reasons. */
export const ErrorItemSchema = z
  .object({
    code: z
      .string()
      .max(64)
      .openapi({ description: "Stable machine-readable code of this problem (docs/errors.md)." }),
    detail: z.string().max(MAX_DETAIL),
    field: z.string().max(200).optional().openapi({ description: "Schema problems: the field, dotted." }),
    message: z
      .string()
      .max(500)
      .optional()
      .openapi({ description: "Schema problems: what is wrong with the field." }),
    side: z
      .enum(["from", "to"])
      .optional()
      .openapi({ description: "The side of the pair the reason concerns." }),
    min_amount_from: amountFigure("The pair's minimum, in coin_from."),
    min_amount_to: amountFigure("What the minimum pays out, in coin_to."),
    max_amount_from: amountFigure("The maximum (the pair's, or what liquidity allows), in coin_from."),
    max_amount_to: amountFigure("What the maximum pays out, in coin_to."),
  })
  .openapi("ErrorItem");

export const ErrorSchema = z
  .object({
    detail: z.string().max(MAX_DETAIL).openapi({ description: "Human-readable description of the problem." }),
    code: z.enum(ERROR_CODES).openapi({ description: "Stable machine-readable error code; branch on this." }),
    errors: z.array(ErrorItemSchema).max(100).optional().openapi({
      description:
        "Every problem, most relevant first (the first is `code`/`detail`): per-field schema problems (400 `invalid_request`), or every reason a quote or order cannot be served (docs/errors.md).",
    }),
  })
  .openapi("Error");

const errorDescriptions = {
  400: "Missing or invalid parameters (`invalid_request`, `pair_unavailable`, ...).",
  401: "Missing or invalid API key or signature.",
  403: "`partner_inactive` (partner account not active), `ip_not_allowed` (the key's IP allowlist does not include the client address), `test_mode_only` (a test helper called with a live key), or action not permitted.",
  404: "Not found.",
  409: "Conflicts with the current state: `action_not_available` (the order offers no such action now; `detail` says why), `currency_exists` (the coin already exists on that network), `webhook_not_configured` (no enabled webhook URL and secret to send to), `test_order_limit` (too many open test orders), `duplicate_partner_order_id` (another order already has this partner_order_id).",
  413: "Request body larger than 64 KiB.",
  415: "A body sent without `Content-Type: application/json`.",
  422: "Business rule violated (limits, address, memo, quote, idempotency).",
  429: "Rate limit exceeded; see `Retry-After` and `RateLimit-*` headers.",
  451: "`region_restricted`: the service, or a coin of the request, is not available in the end user's country (`X-End-User-Country`, else the caller's); `errors` lists every reason.",
  500: "Unexpected error.",
  503: "`prices_stale` (prices are stale; retry after `Retry-After` seconds) or `service_misconfigured` (live orders are off until the operator fixes the service's modes; test keys go on).",
} as const;

type ErrorStatus = keyof typeof errorDescriptions;

// Type aliases, not interfaces: the generator's header type has an index signature.
type HeaderObject = {
  description: string;
  deprecated?: boolean;
  schema:
    | { type: "string"; maxLength: number; pattern?: string }
    | { type: "integer"; format: "int32"; minimum: number; maximum: number };
};
type Headers = Record<string, HeaderObject>;

const INT = { type: "integer", format: "int32", minimum: 0, maximum: 1_000_000 } as const;

/** Response headers as the OpenAPI document declares them; one definition serves every route. */
export const HEADERS = {
  requestId: {
    "X-Request-Id": {
      description: "Id of this request (yours when you sent a safe one); quote it when contacting support.",
      schema: { type: "string", maxLength: 128 },
    },
  },
  rateLimit: {
    "RateLimit-Policy": {
      description:
        'The quota (IETF draft-ietf-httpapi-ratelimit-headers-10): `"ip"` (per client address) or `"partner"`, `q` requests per `w` seconds, e.g. `"partner";q=600;w=60`.',
      schema: { type: "string", maxLength: 64, pattern: '^"(ip|partner)";q=\\d+;w=\\d+$' },
    },
    RateLimit: {
      description:
        'What is left of that quota: `r` requests remaining, `t` seconds until a slot frees, e.g. `"partner";r=599;t=60`.',
      schema: { type: "string", maxLength: 64, pattern: '^"(ip|partner)";r=\\d+;t=\\d+$' },
    },
    "RateLimit-Limit": {
      description:
        "Requests allowed per minute for this client or partner. Deprecated: the same as `RateLimit-Policy`'s `q`; sent until a removal announced a release ahead.",
      deprecated: true,
      schema: INT,
    },
    "RateLimit-Remaining": {
      description:
        "Requests left in the current window. Deprecated: `RateLimit`'s `r`; sent until a removal announced a release ahead.",
      deprecated: true,
      schema: INT,
    },
    "RateLimit-Reset": {
      description:
        "Seconds until the window resets. Deprecated: `RateLimit`'s `t`; sent until a removal announced a release ahead.",
      deprecated: true,
      schema: INT,
    },
  },
  retryAfter: {
    "Retry-After": {
      description: "Seconds to wait before retrying.",
      schema: INT,
    },
  },
  etag: {
    ETag: {
      description:
        "A hash of the body. Send it back in `If-None-Match` to get `304 Not Modified` (no body) while it is current; a `W/` prefix added by a compressing proxy is accepted.",
      schema: { type: "string", maxLength: 64 },
    },
  },
  vary: {
    Vary: {
      description:
        "`Accept-Encoding`: the body may be sent compressed, so caches keep one copy per encoding.",
      schema: { type: "string", maxLength: 100 },
    },
  },
  bookmark: {
    "X-D1-Bookmark": {
      description:
        "The read position of this answer (opaque). Send it back in the `X-D1-Bookmark` request header and the next read is at least as fresh: what you saw is never shown older (the SDK does this for you). A malformed one is refused with 400 `invalid_bookmark`.",
      schema: { type: "string", maxLength: 128 },
    },
  },
  createdBookmark: {
    "X-D1-Bookmark": {
      description:
        "The read position after this create: `order-<id>`, naming the order. Send it back in the `X-D1-Bookmark` request header and the next `GET /partner/orders` lists this order, even in the moment before the index has it, and answers a D1 read position to send from then on (the SDK does this for you).",
      schema: { type: "string", maxLength: 128, pattern: "^order-[0-9a-f-]{36}$" },
    },
  },
  cacheControl: {
    "Cache-Control": {
      description: "How long the response may be reused (`no-store` on anything order-specific).",
      schema: { type: "string", maxLength: 100 },
    },
  },
} satisfies Record<string, Headers>;

/**
 * Public routes answer any origin (no credentials); `withCors` declares that on each response.
 * Key-protected routes send no CORS headers at all.
 */
export function withCors<R extends Record<number, { headers: Headers }>>(responses: R): R {
  const cors: Headers = {
    "Access-Control-Allow-Origin": {
      description: "`*`: public data, readable from any origin without credentials.",
      schema: { type: "string", maxLength: 1 },
    },
  };
  const out = {} as R;
  for (const [status, r] of Object.entries(responses)) {
    (out as Record<string, unknown>)[status] = { ...r, headers: { ...r.headers, ...cors } };
  }
  return out;
}

/** A response that carries `headers` besides its usual ones. */
export function withHeaders<R extends { headers: Headers }>(response: R, headers: Headers): R {
  return { ...response, headers: { ...response.headers, ...headers } };
}

/** A response that carries `ETag` and `Vary` besides its usual headers (a 200 that can become a 304). */
export const cacheable = <R extends { headers: Headers }>(response: R): R =>
  withHeaders(response, { ...HEADERS.etag, ...HEADERS.vary });

/** The operator API's: the same fields for its own per-IP bucket, named `"admin-ip"`. */
export const ADMIN_RATE_LIMIT_HEADERS: Headers = {
  ...HEADERS.rateLimit,
  "RateLimit-Policy": {
    description:
      'The operator API\'s quota per client address, its own bucket (ADMIN_RATE_LIMIT_PER_MINUTE, default 1200), counted before the credential is checked: `q` requests per `w` seconds, e.g. `"admin-ip";q=1200;w=60`.',
    schema: { type: "string", maxLength: 64, pattern: '^"admin-ip";q=\\d+;w=\\d+$' },
  },
  RateLimit: {
    description:
      'What is left of it: `r` requests remaining, `t` seconds until a slot frees, e.g. `"admin-ip";r=1199;t=60`.',
    schema: { type: "string", maxLength: 64, pattern: '^"admin-ip";r=\\d+;t=\\d+$' },
  },
};

/** Routes behind a rate limit carry `RateLimit-*` on their answers; the others don't. */
export type Limited = "limited" | "unlimited";

function responseHeaders(limited: Limited, status: number): Headers {
  return {
    ...HEADERS.requestId,
    ...(limited === "limited" && status !== 500 ? HEADERS.rateLimit : {}),
    ...(status === 429 || status === 503 ? HEADERS.retryAfter : {}),
    ...(status >= 400 || status < 300 ? HEADERS.cacheControl : {}),
  };
}

/** A success response of a route: its body schema with the headers the route sends. */
export function okResponse<S>(limited: Limited, description: string, schema: S, status = 200) {
  return {
    description,
    headers: responseHeaders(limited, status),
    content: { "application/json": { schema } },
  };
}

/**
 * OpenAPI response entries for the error statuses a route can return (500 is always among them).
 * A route that can answer 429 is rate-limited, so its answers also declare `RateLimit-*`.
 */
export function errorResponses<S extends ErrorStatus>(...statuses: S[]) {
  const limited: Limited = (statuses as number[]).includes(429) ? "limited" : "unlimited";
  const out = {} as Record<
    S,
    { description: string; headers: Headers; content: { "application/json": { schema: typeof ErrorSchema } } }
  >;
  for (const s of [...statuses, 500 as S]) {
    out[s] = {
      description: errorDescriptions[s],
      headers: responseHeaders(limited, s),
      content: { "application/json": { schema: ErrorSchema } },
    };
  }
  return out;
}

/** A plain positive-or-zero decimal in a string: no sign, exponent, hex or spaces. */
export const DECIMAL_STRING = /^(?:0|[1-9]\d{0,29})(?:\.\d{1,30})?$/;

/** DECIMAL_STRING without zero: what the document states for every amount. */
export const POSITIVE_DECIMAL = /^(?!0+(?:\.0+)?$)(?:0|[1-9]\d{0,29})(?:\.\d{1,30})?$/;

/**
 * An amount in a decimal string. The schema lets zero through so the domain answers it with its own
 * `invalid_amount` ("must be greater than 0"); the document's pattern states the whole rule, zero
 * excluded, so generated clients refuse what the API refuses.
 */
export const decimalAmount = (message: string) =>
  z.string().max(61).regex(DECIMAL_STRING, message).openapi({ pattern: POSITIVE_DECIMAL.source });

/**
 * An amount sent as a JSON number: at most MAX_AMOUNT_NUMBER coin units, far above any pair's
 * `max_amount` and below 2^53, past which a double no longer holds every whole number (a decimal
 * string carries any amount exactly). The document states both bounds; the route's refine refuses
 * 0 and below with its own message, as it does for a string.
 */
export const MAX_AMOUNT_NUMBER = 1e15;
export const numberAmount = () =>
  z.number().max(MAX_AMOUNT_NUMBER).openapi({ exclusiveMinimum: 0, maximum: MAX_AMOUNT_NUMBER });

export const ticker = z.string().trim().min(1).max(20);

/**
 * Output field shapes with their bounds: the document tells client generators how large a value
 * can be (and OWASP's API rules want every string and integer bounded).
 */
export const out = {
  ticker: () => z.string().max(20),
  uuid: () => z.uuid().max(36),
  address: () => z.string().max(128),
  tag: () => z.string().max(128),
  txid: () => z.string().max(128),
  text: (max: number) => z.string().max(max),
  count: (max: number) => z.number().int().min(0).max(max).openapi({ format: "int32" }),
};

/** The `limit` query parameter of a listing: 1 to `max`, `byDefault` when absent. */
export const pageLimit = (
  max: number,
  byDefault: number,
  description = `Page size, 1–${max} (default ${byDefault}).`,
) => z.coerce.number().int().min(1).max(max).default(byDefault).openapi({ description, format: "int32" });

/** A record's UUID as the path parameter `name`. */
export const uuidParam = (name: string) =>
  z
    .uuid()
    .max(36)
    .openapi({ param: { name, in: "path" } });

/** `{id}`: the record's UUID in the path. */
export const idParam = z.object({ id: uuidParam("id") });

/** An order named by its UUID or its short_id (any case). */
export const orderRef = {
  /** A listing's filter: nothing longer than a UUID names an order. */
  filter: (description: string) => z.string().min(1).max(36).optional().openapi({ description }),
  /**
   * A path parameter: an id of any other shape is simply not found (404, as the contract says), so
   * the bound is Cloudflare's own URL limit (16 KB), declared so clients know one exists.
   */
  path: (description = "Order UUID or short_id (any case).") =>
    z.string().min(1).max(16_384).openapi({ description }),
};

/** An ISO 8601 UTC timestamp as the API writes them (`2026-11-21T12:00:00.000Z`). */
export const timestamp = (description: string) =>
  z.iso.datetime().max(40).openapi({ description, example: "2026-11-21T12:00:00.000Z" });

/** How long a swap takes (docs/orders.md, "How long it takes"), and where the figure comes from. */
/** The partner's slippage bound on a float quote or order (src/domain/min-out.ts). */
export const MaxSlippageParam = z.coerce
  .number()
  .int()
  .min(0)
  .max(MAX_SLIPPAGE_BPS)
  .optional()
  .openapi({
    format: "int32",
    example: DEFAULT_MAX_SLIPPAGE_BPS,
    description: `Beyond the contract: how far (basis points, 0–${MAX_SLIPPAGE_BPS}) a float payout's gross may fall below the quote before the order stops instead (\`amount_to_min\`). Default ${DEFAULT_MAX_SLIPPAGE_BPS}. Fixed rates ignore it.`,
  });

export const AmountToMinSchema = z.number().openapi({
  description:
    'Beyond the contract: the least the recipient gets, in coin_to units, after the payout fee. Float: amount_to less `max_slippage_bps` of its gross; the exchange never fills below it, and a price past it stops the order (`status_reason` `below_min_out`, nothing exchanged, actions refund / continue). Fixed: equal to amount_to (docs/integrate.md, "Indicative vs firm").',
});

export const EtaSchema = z
  .object({
    p50: z
      .number()
      .int()
      .min(0)
      .max(31_536_000)
      .openapi({ format: "int32", description: "Half of the pair's swaps took at most this many seconds." }),
    p90: z
      .number()
      .int()
      .min(0)
      .max(31_536_000)
      .openapi({ format: "int32", description: "Nine in ten took at most this many seconds." }),
  })
  .openapi("EtaSeconds", {
    description:
      "Beyond the contract: seconds from the deposit first seen on chain to the payout sent, for this pair. See `eta_source`.",
  });

export const EtaSourceSchema = z.enum(["history", "estimate"]).openapi({
  description:
    "`history`: from this service's own completed swaps of the pair over the last 30 days (at least 20 of them); `estimate`: from the source chain's confirmations and block time while there are fewer.",
});

/** Fees named (docs/integrate.md, "Fees"): amount_to = gross − service − partner − network. */
export const FeesSchema = z
  .object({
    gross: z
      .number()
      .openapi({ description: "amount_from at the mid-market rate, in `coin` (rounded down)." }),
    service: z
      .number()
      .openapi({ description: "The service's spread (and the rounding of amount_to), in `coin`." }),
    partner: z.number().openapi({ description: "Your markup, in `coin` (0 without a key)." }),
    network: z.number().openapi({ description: "The payout network fee, in `coin`." }),
    coin: z.string().max(20).openapi({ description: "The destination coin (coin_to)." }),
  })
  .openapi("Fees");
