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
  // Statements and partner payouts (docs/earnings.md)
  "statement_not_found",
  "invalid_payout_asset",
  // Widgets and referral links (docs/widget.md)
  "invalid_origin",
  "invalid_widget",
  "widget_not_found",
  "turnstile_failed",
  "widget_rate_limited",
  // What wallets require (docs/integrate.md, "For wallet teams")
  "unsupported_asset",
  "asset_mismatch",
  "region_restricted",
  "duplicate_partner_order_id",
  "recipient_not_activated",
  // Screening (docs/operators.md, "Screening")
  "address_screened",
  // Operator guard rails (docs/operators.md, "Guard rails")
  "service_misconfigured",
] as const;
export type DomainErrorCode = (typeof DOMAIN_ERROR_CODES)[number];

/**
 * One reason a quote or an order cannot be served, as an item of the error body's `errors`: a
 * stable code, a sentence, and the figures that code carries (the side it concerns, the limits in
 * both assets). Items are ordered by relevance (refusalRank).
 */
export interface Refusal {
  code: RefusalCode;
  detail: string;
  side?: "from" | "to";
  min_amount_from?: number;
  min_amount_to?: number;
  max_amount_from?: number;
  max_amount_to?: number;
  /** address_screened: the request field and the category it is listed under. */
  field?: string;
  category?: string;
  /**
   * The top-level code when this reason is the most relevant, if not its own: reasons that had
   * another code before the list existed keep it (an unknown ticker is, as it always was,
   * `pair_unavailable`). Not part of the item as rendered.
   */
  top?: DomainErrorCode;
}

export const REFUSAL_CODES = [
  "region_restricted",
  "unsupported_asset",
  "asset_mismatch",
  "network_required",
  "pair_unavailable",
  "deposit_disabled",
  "withdraw_disabled",
  "network_unavailable",
  "venue_network_unsupported",
  "amount_below_min",
  "amount_above_max",
  "insufficient_liquidity",
  "recipient_not_activated",
  "address_screened",
] as const;
export type RefusalCode = (typeof REFUSAL_CODES)[number];

/** Region first (a user abroad is told that, not a limit), then the asset, the pair, the amount. */
const RANK: Record<RefusalCode, number> = {
  region_restricted: 0,
  unsupported_asset: 1,
  asset_mismatch: 1,
  network_required: 1,
  pair_unavailable: 2,
  deposit_disabled: 2,
  withdraw_disabled: 2,
  network_unavailable: 2,
  venue_network_unsupported: 2,
  amount_below_min: 3,
  amount_above_max: 3,
  insufficient_liquidity: 4,
  recipient_not_activated: 5,
  address_screened: 5,
};

/** The reasons, most relevant first; equal ranks keep the order they were found in (from, then to). */
export function byRelevance(reasons: readonly Refusal[]): Refusal[] {
  return [...reasons].sort((a, b) => RANK[a.code] - RANK[b.code]);
}

export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    /** Seconds after which retrying may succeed (prices_stale). */
    readonly retryAfter?: number,
    /** Every reason that applies, when this error refuses a quote or an order (the first is `code`). */
    readonly reasons?: readonly Refusal[],
  ) {
    super(message);
    this.name = "DomainError";
  }
}

/** The error for a set of reasons: the most relevant gives the code and detail, as one error always did. */
export function refused(reasons: readonly Refusal[]): DomainError {
  const sorted = byRelevance(reasons);
  const first = sorted[0];
  if (!first) throw new Error("refused() needs at least one reason");
  // A disabled side was, and stays, reported as pair_unavailable at the top; so is a network down,
  // and one the venue cannot withdraw to.
  const code =
    first.code === "deposit_disabled" ||
    first.code === "withdraw_disabled" ||
    first.code === "network_unavailable" ||
    first.code === "venue_network_unsupported"
      ? "pair_unavailable"
      : first.code;
  return new DomainError(first.top ?? code, first.detail, undefined, sorted);
}
