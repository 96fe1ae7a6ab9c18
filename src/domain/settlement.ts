import { bps, Dec, type Decimal, floorTo, parseDecimal, toDecimalString } from "./money";
import type { StatusReason } from "./order-state";

export type Acceptability = { acceptable: true } | { acceptable: false; reason: StatusReason };

/**
 * Whether a confirmed deposit can be exchanged (DESIGN.md §4). Fixed orders: within the tolerance
 * of the expected amount (the rate was promised for that amount), and confirmed by the fixed
 * rate's deadline. Float orders: within the pair's limits at this moment.
 */
export function depositAcceptability(
  order: { rateType: "float" | "fixed"; amountFromExpected: string },
  received: Decimal,
  fixed: {
    toleranceBps: number;
    /**
     * The deposit confirmed after expires_at + FIXED_RATE_CONFIRM_MINUTES. Otherwise a deposit
     * broadcast in time with a low fee would be a free option on the rate: confirmed (fee bumped)
     * if the market moved the depositor's way, replaced and dropped if not.
     */
    confirmedTooLate: boolean;
  },
  /** Float orders: the pair's limits now; null when the pair is not offered (min > max); "unchecked" to skip. */
  limits: { min: Decimal; max: Decimal } | null | "unchecked",
): Acceptability {
  if (order.rateType === "fixed") {
    if (fixed.confirmedTooLate) return { acceptable: false, reason: "fixed_rate_expired" };
    const expected = parseDecimal(order.amountFromExpected);
    const tolerance = expected.mul(bps(fixed.toleranceBps));
    return received.sub(expected).abs().lte(tolerance)
      ? { acceptable: true }
      : { acceptable: false, reason: "fixed_amount_mismatch" };
  }
  if (limits === "unchecked") return { acceptable: true };
  if (!limits) return { acceptable: false, reason: "amount_below_min" };
  if (received.lt(limits.min)) return { acceptable: false, reason: "amount_below_min" };
  if (received.gt(limits.max)) return { acceptable: false, reason: "amount_above_max" };
  return { acceptable: true };
}

/**
 * A fixed order's payout: exactly amount_to_expected for the expected deposit; for another amount
 * within tolerance, that amount at rate_quoted, rounded down to the destination's precision.
 */
export function fixedPayoutAmount(
  order: { amountFromExpected: string; amountToExpected: string; rateQuoted: string; decimalsTo: number },
  received: Decimal,
): string {
  if (received.eq(parseDecimal(order.amountFromExpected))) return order.amountToExpected;
  return toDecimalString(floorTo(received.mul(parseDecimal(order.rateQuoted)), order.decimalsTo));
}

/** What goes back to the refund address: the deposit less the source network's payout fee. */
export function refundAmount(received: Decimal, networkFee: string, decimals: number): Decimal {
  const net = floorTo(received.sub(parseDecimal(networkFee)), decimals);
  return net.gt(0) ? net : new Dec(0);
}
