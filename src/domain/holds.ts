/**
 * Holds that end (docs/lifecycle.md, "Holds"): a deposit from a screened source stops the order
 * where it is, until a deadline whose outcome the category's policy sets. The same policy is what
 * the public /compliance page states, so the page cannot say other than what the orders do.
 */

import { SCREENING_CATEGORIES, type ScreeningCategory } from "./screening";

export const HOLD_OUTCOMES = ["refund", "operator_review"] as const;
export type HoldOutcome = (typeof HOLD_OUTCOMES)[number];

/** The order's hold, as the partner, the status API, the webhooks and the tracking page show it. */
export interface OrderHold {
  /** The screening category that matched. */
  category: ScreeningCategory;
  reason: string;
  since: string;
  deadline_at: string;
  at_deadline: HoldOutcome;
  /** The operator moved the deadline once (never again): why, and when. */
  extended: { reason: string; at: string } | null;
}

export interface CategoryPolicy {
  hours: number;
  at_deadline: HoldOutcome;
}

export type HoldPolicy = Readonly<Record<ScreeningCategory, CategoryPolicy>>;

export const DEFAULT_HOLD_HOURS = 72;

/**
 * The documented defaults: blocking for sanctions may be required by law, so a person decides; a
 * risk or issuer match is sent back where it came from.
 */
export const DEFAULT_HOLD_POLICY: HoldPolicy = {
  sanctions: { hours: DEFAULT_HOLD_HOURS, at_deadline: "operator_review" },
  issuer_blocked: { hours: DEFAULT_HOLD_HOURS, at_deadline: "refund" },
  risk: { hours: DEFAULT_HOLD_HOURS, at_deadline: "refund" },
  operator: { hours: DEFAULT_HOLD_HOURS, at_deadline: "refund" },
};

/**
 * The hold a screened deposit source puts on its order. A refund with nowhere to go (no refund
 * address, no single sender) is an operator's review instead: the hold says so from the start.
 */
export function holdFor(
  policy: HoldPolicy,
  category: ScreeningCategory,
  reason: string,
  now: number,
  refundTo: string | null,
): OrderHold {
  const p = policy[category];
  return {
    category,
    reason,
    since: new Date(now).toISOString(),
    deadline_at: new Date(now + p.hours * 3_600_000).toISOString(),
    at_deadline: p.at_deadline === "refund" && refundTo === null ? "operator_review" : p.at_deadline,
    extended: null,
  };
}

/** The hold with its deadline moved `hours` later, once; or why it cannot be. */
export function extendHold(hold: OrderHold, hours: number, reason: string, now: number): OrderHold | string {
  if (hold.extended)
    return `the hold was already extended once (${hold.extended.at}: ${hold.extended.reason})`;
  return {
    ...hold,
    deadline_at: new Date(Date.parse(hold.deadline_at) + hours * 3_600_000).toISOString(),
    extended: { reason, at: new Date(now).toISOString() },
  };
}

/**
 * Where a held deposit goes back: the refund address, else the single sender its chain named
 * (account chains); null when neither is known.
 */
export function holdRefundTo(r: {
  refundAddress: string | null;
  refundAddressTag: string | null;
  depositSender?: string | null | undefined;
}): { address: string; tag: string | null } | null {
  if (r.refundAddress !== null) return { address: r.refundAddress, tag: r.refundAddressTag };
  return r.depositSender ? { address: r.depositSender, tag: null } : null;
}

/** Whether the hold's deadline has come, on the order's clock. */
export const holdDue = (hold: OrderHold, now: number): boolean => now >= Date.parse(hold.deadline_at);

/**
 * `HOLD_POLICY` (JSON, docs/operators.md): per-category overrides of the defaults, e.g.
 * `{"risk":{"hours":48,"at_deadline":"refund"}}`. Anything malformed is refused at startup.
 */
export function parseHoldPolicy(raw: string | undefined): HoldPolicy {
  if (!raw?.trim()) return DEFAULT_HOLD_POLICY;
  const parsed: unknown = JSON.parse(raw);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new Error("HOLD_POLICY must be a JSON object of categories");
  const out: Record<ScreeningCategory, CategoryPolicy> = { ...DEFAULT_HOLD_POLICY };
  for (const [category, value] of Object.entries(parsed)) {
    if (!SCREENING_CATEGORIES.includes(category as ScreeningCategory))
      throw new Error(`HOLD_POLICY: ${category} is not one of ${SCREENING_CATEGORIES.join(", ")}`);
    const v = value as Partial<CategoryPolicy> | null;
    const hours = v?.hours ?? DEFAULT_HOLD_HOURS;
    const outcome = v?.at_deadline;
    if (!Number.isFinite(hours) || hours <= 0 || hours > 24 * 90)
      throw new Error(`HOLD_POLICY.${category}.hours must be a number of hours from 0 to 2160`);
    if (!outcome || !HOLD_OUTCOMES.includes(outcome))
      throw new Error(`HOLD_POLICY.${category}.at_deadline must be one of ${HOLD_OUTCOMES.join(", ")}`);
    out[category as ScreeningCategory] = { hours, at_deadline: outcome };
  }
  return out;
}
