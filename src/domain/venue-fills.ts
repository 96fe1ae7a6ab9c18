import { Dec, type Decimal, floorTo, parseDecimal, toDecimalString } from "./money";
import type { RateType } from "./order";
import { fixedPayoutAmount } from "./settlement";

/** One trade of a leg, as the venue reports it. */
export interface Fill {
  price: string;
  qty: string;
  commission: string;
  commissionAsset: string;
}

/** A filled leg: what it sold and bought, and its trades. */
export interface FilledLeg {
  side: "BUY" | "SELL";
  /** The asset the leg delivers (the quote asset of a SELL, the base asset of a BUY). */
  to: string;
  executedQty: string;
  quoteQty: string;
  fills: Fill[];
}

/**
 * What a filled leg delivered, net of the commission the venue took in that asset. A commission
 * paid in another asset (BNB) does not reduce it; it is recorded with the fills.
 */
export function legDelivered(leg: FilledLeg): Decimal {
  const gross = parseDecimal(leg.side === "SELL" ? leg.quoteQty : leg.executedQty);
  const commission = leg.fills
    .filter((f) => f.commissionAsset === leg.to)
    .reduce((sum, f) => sum.plus(parseDecimal(f.commission)), new Dec(0));
  const net = gross.minus(commission);
  return net.isNegative() ? new Dec(0) : net;
}

/** Commission per asset over a leg's fills ("0.0001 BTC", "0.02 BNB, 0.5 USDT"), for the record. */
export function commissionSummary(fills: readonly Fill[]): string {
  const byAsset = new Map<string, Decimal>();
  for (const f of fills)
    byAsset.set(
      f.commissionAsset,
      (byAsset.get(f.commissionAsset) ?? new Dec(0)).plus(parseDecimal(f.commission)),
    );
  return [...byAsset].map(([asset, x]) => `${toDecimalString(x)} ${asset}`).join(", ");
}

export interface PayoutOrder {
  rateType: RateType;
  spreadBps: number;
  markupBps: number;
  decimalsTo: number;
  amountFromExpected: string;
  amountToExpected: string;
  rateQuoted: string;
}

/**
 * The payout of an order whose exchange the venue filled. Float: what the venue delivered, less the
 * service spread and the partner's markup (the quote's rate_before_fee applied to the real fills)
 * and the destination's withdraw fee, rounded down. Fixed: the quoted amount whatever the fills
 * were. `difference` is what the service keeps (negative: what it carries) in coin_to.
 */
export function venuePayout(
  order: PayoutOrder,
  received: Decimal,
  delivered: Decimal,
  withdrawFee: Decimal,
): { amountTo: string; difference: string } {
  let amountTo: Decimal;
  if (order.rateType === "fixed") amountTo = parseDecimal(fixedPayoutAmount(order, received));
  else {
    const margin = new Dec(1).minus(new Dec(order.spreadBps + order.markupBps).div(10_000));
    amountTo = floorTo(delivered.mul(margin).minus(withdrawFee), order.decimalsTo);
    if (amountTo.isNegative()) amountTo = new Dec(0);
  }
  return { amountTo: toDecimalString(amountTo), difference: toDecimalString(delivered.minus(amountTo)) };
}
