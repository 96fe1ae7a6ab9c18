import type { components } from "./schema.js";

export type ErrorCode = components["schemas"]["Error"]["code"];
/** An item of `errors`: always `code` and `detail`; `field` for schema problems, figures for business reasons. */
export type ErrorItem = NonNullable<components["schemas"]["Error"]["errors"]>[number];
/** @deprecated The same type under its earlier name. */
export type FieldError = ErrorItem;

/** Every non-2xx answer of the API, typed: branch on `code`, never on `detail`. */
export class ApiError extends Error {
  override readonly name = "ApiError";

  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    readonly detail: string,
    readonly requestId: string | null,
    readonly errors: ErrorItem[] = [],
  ) {
    super(`${status} ${code}: ${detail}`);
  }

  /** Builds the error from a failed response (its body already parsed by the caller, or not JSON). */
  static from(response: Response, body: unknown): ApiError {
    const requestId = response.headers.get("x-request-id");
    const b = (body ?? {}) as Partial<components["schemas"]["Error"]>;
    if (typeof b.code === "string" && typeof b.detail === "string")
      return new ApiError(response.status, b.code, b.detail, requestId, b.errors ?? []);
    // Not the API's error shape (a proxy's page, say): keep the status, say what came back.
    return new ApiError(
      response.status,
      "internal_error",
      `Unexpected ${response.status} response without the API's error body.`,
      requestId,
    );
  }
}
