import { DomainError } from "./errors";
import { type Decimal, toDecimalString } from "./money";

/** A positive amount with no more decimal places than the coin supports. */
export function checkAmountPrecision(amount: Decimal, decimals: number, coin: string, field: string): void {
  if (!amount.gt(0)) throw new DomainError("invalid_amount", `${field} must be greater than 0.`);
  if (amount.decimalPlaces() > decimals) {
    throw new DomainError(
      "invalid_amount",
      `${field} has more than ${decimals} decimal places, the precision of ${coin}.`,
    );
  }
}

/** Why an amount lies outside the pair's [min, max], if it does; the detail names both limits. */
export function limitRefusal(
  amount: Decimal,
  min: Decimal,
  max: Decimal,
  coin: string,
): { code: "amount_below_min" | "amount_above_max"; detail: string } | null {
  const limits = `min ${toDecimalString(min)} ${coin}, max ${toDecimalString(max)} ${coin}`;
  if (amount.lt(min))
    return {
      code: "amount_below_min",
      detail: `Amount ${toDecimalString(amount)} ${coin} is below the minimum (${limits}).`,
    };
  if (amount.gt(max))
    return {
      code: "amount_above_max",
      detail: `Amount ${toDecimalString(amount)} ${coin} is above the maximum (${limits}).`,
    };
  return null;
}
