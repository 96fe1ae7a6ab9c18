import { z } from "@hono/zod-openapi";
import { ERROR_CODES } from "./errors";

export const ErrorSchema = z
  .object({
    detail: z.string().openapi({ description: "Human-readable description of the problem." }),
    code: z.enum(ERROR_CODES).openapi({ description: "Stable machine-readable error code; branch on this." }),
    errors: z
      .array(z.object({ field: z.string(), message: z.string() }))
      .optional()
      .openapi({ description: "Per-field validation problems, when the request failed schema validation." }),
  })
  .openapi("Error");

const errorDescriptions = {
  400: "Missing or invalid parameters (`invalid_request`, `pair_unavailable`, ...).",
  401: "Missing or invalid API key or signature.",
  403: "Partner account not active, or action not permitted.",
  404: "Not found.",
  413: "Request body larger than 64 KiB.",
  415: "A body sent without `Content-Type: application/json`.",
  422: "Business rule violated (limits, address, memo, quote, idempotency).",
  429: "Rate limit exceeded; see `Retry-After` and `RateLimit-*` headers.",
  500: "Unexpected error.",
  503: "Prices are stale; retry after `Retry-After` seconds.",
} as const;

type ErrorStatus = keyof typeof errorDescriptions;

/** OpenAPI response entries for the error statuses a route can return (500 is always among them). */
export function errorResponses<S extends ErrorStatus>(...statuses: S[]) {
  const out = {} as Record<
    S,
    { description: string; content: { "application/json": { schema: typeof ErrorSchema } } }
  >;
  for (const s of [...statuses, 500 as S]) {
    out[s] = { description: errorDescriptions[s], content: { "application/json": { schema: ErrorSchema } } };
  }
  return out;
}

/** A plain positive-or-zero decimal in a string: no sign, exponent, hex or spaces. */
export const DECIMAL_STRING = /^(?:0|[1-9]\d{0,29})(?:\.\d{1,30})?$/;

export const ticker = z.string().trim().min(1).max(20);
