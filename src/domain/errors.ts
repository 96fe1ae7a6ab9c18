/**
 * Business-rule failures raised by domain code. They carry the stable code partners branch on;
 * the HTTP layer maps each code to a status in one place (src/http/middleware/errors.ts).
 */
export const DOMAIN_ERROR_CODES = [
  "pair_unavailable",
  "network_required",
  "amount_below_min",
  "amount_above_max",
  "invalid_amount",
  "invalid_address",
  "invalid_tag",
  "quote_not_found",
  "quote_expired",
  "quote_mismatch",
  "idempotency_conflict",
  "order_not_found",
  "prices_stale",
  "invalid_cursor",
  // Partner cabinet (docs/cabinet.md)
  "cabinet_auth_failed",
  "signin_throttled",
  "partner_not_found",
  "member_not_found",
  "invite_not_found",
  "key_not_found",
  "last_admin",
  "last_passkey",
  "step_up_required",
  "invalid_catalog_change",
  "currency_exists",
  "action_not_available",
  "send_pending",
  // Self-serve webhooks (docs/webhooks.md)
  "invalid_overlap",
  "webhook_not_configured",
  "event_not_found",
  // Partner settings (docs/cabinet.md)
  "markup_above_cap",
  // Test mode (docs/test-mode.md)
  "test_mode_only",
  "test_order_limit",
  "insufficient_liquidity",
] as const;
export type DomainErrorCode = (typeof DOMAIN_ERROR_CODES)[number];

export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    /** Seconds after which retrying may succeed (prices_stale). */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = "DomainError";
  }
}
