import type { ContentfulStatusCode } from "hono/utils/http-status";
import { DOMAIN_ERROR_CODES } from "../domain/errors";

// Stable machine-readable codes (DESIGN.md §6). Partners branch on these, never on `detail`.
// Business-rule codes come from the domain; these are the HTTP layer's own.
export const ERROR_CODES = [
  "invalid_request",
  "invalid_api_key",
  "invalid_signature",
  "partner_inactive",
  "ip_not_allowed",
  "insufficient_scope",
  "forbidden",
  "csrf_failed",
  "not_found",
  "method_not_allowed",
  "payload_too_large",
  "unsupported_media_type",
  "rate_limited",
  "price_source_mismatch",
  "invalid_bookmark",
  "internal_error",
  ...DOMAIN_ERROR_CODES,
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * An item of the body's `errors`: every item has a stable `code` and a `detail`; a schema error
 * also names its `field` (with `message`, as before `code`/`detail` were added), a business reason
 * carries its figures (docs/errors.md, "Every reason at once").
 */
export interface ErrorItem {
  code: string;
  detail: string;
  [figure: string]: unknown;
}

/** A field that failed the request's schema, and why. */
export interface FieldProblem {
  field: string;
  message: string;
}

export interface ApiErrorOptions {
  errors?: ErrorItem[];
  headers?: Record<string, string>;
}

/** Every failure the API reports is one of these; `onError` renders it once, in one place. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: ErrorCode,
    readonly detail: string,
    readonly options: ApiErrorOptions = {},
  ) {
    super(detail);
    this.name = "ApiError";
  }

  body(): { detail: string; code: ErrorCode; errors?: ErrorItem[] } {
    const detail = clipDetail(this.detail);
    return this.options.errors
      ? {
          detail,
          code: this.code,
          errors: this.options.errors.map((e) => ({ ...e, detail: clipDetail(e.detail) })),
        }
      : { detail, code: this.code };
  }
}

/** The longest `detail` the document promises (ErrorSchema). */
export const MAX_DETAIL = 2000;

/**
 * A `detail` within MAX_DETAIL: one that quotes the request (an unknown icon's name, a field's
 * value) could otherwise be as long as what was sent.
 */
function clipDetail(detail: string): string {
  return detail.length <= MAX_DETAIL ? detail : `${detail.slice(0, MAX_DETAIL - 1)}…`;
}

/** A schema error's item: the field and message, and the `code`/`detail` every item has. */
const fieldItem = ({ field, message }: FieldProblem): ErrorItem => ({
  code: "invalid_request",
  detail: `${field}: ${message}`,
  field,
  message,
});

export const badRequest = (detail: string, problems?: FieldProblem[]) =>
  new ApiError(400, "invalid_request", detail, problems ? { errors: problems.map(fieldItem) } : {});
