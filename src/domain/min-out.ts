import { Dec, type Decimal, floorTo, parseDecimal } from "./money";

/**
 * The floor of a float payout (docs/orders.md, "The least you receive"): `amount_to_min` is what
 * the quote pays before the payout fee, less the partner's `max_slippage_bps`, less that fee. The
 * exchange never fills below it: its venue legs are fill-or-kill limit orders priced from it, and a
 * price already past it stops the order (`below_min_out`) with nothing exchanged.
 */
export const DEFAULT_MAX_SLIPPAGE_BPS = 100;
export const MAX_SLIPPAGE_BPS = 1000;

/**
 * What each venue leg is assumed to cost in commission when its limit price is set: Binance spot's
 * base taker fee (docs/venue.md, "Prices and the spread against the venue's fees"). A lower
 * fee tier only leaves more above the floor.
 */
export const LEG_COMMISSION_BPS = 10;

/** The least a float quote of `amountTo` (after `withdrawFee`) pays, rounded down; never negative. */
export function amountToMin(
  amountTo: Decimal,
  withdrawFee: Decimal,
  slippageBps: number,
  decimals: number,
): Decimal {
  const gross = amountTo.plus(withdrawFee);
  const min = floorTo(
    gross
      .mul(new Dec(10_000 - slippageBps))
      .div(10_000)
      .minus(withdrawFee),
    decimals,
  );
  return min.isNegative() ? new Dec(0) : min;
}

/**
 * What the venue must deliver (in coin_to, net of commission) for a float payout to reach the
 * floor: the payout formula (src/domain/venue-fills.ts, `venuePayout`) solved for the delivery.
 */
export function deliveryFloor(
  order: { amountToMin: string; spreadBps: number; markupBps: number },
  withdrawFee: Decimal,
): Decimal {
  const margin = new Dec(10_000 - order.spreadBps - order.markupBps).div(10_000);
  return parseDecimal(order.amountToMin).plus(withdrawFee).div(margin);
}

/** What a leg delivers net of the assumed commission, for `gross` before it. */
export const netOfCommission = (gross: Decimal): Decimal =>
  gross.mul(10_000 - LEG_COMMISSION_BPS).div(10_000);

/** The gross a leg must deliver so that, net of the assumed commission, `net` is left. */
export const grossForNet = (net: Decimal): Decimal => net.mul(10_000).div(10_000 - LEG_COMMISSION_BPS);
