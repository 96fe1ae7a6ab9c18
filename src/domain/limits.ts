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

/** The amount must lie within the pair's [min, max]; the detail names both limits. */
export function checkWithinLimits(amount: Decimal, min: Decimal, max: Decimal, coin: string): void {
  const limits = `min ${toDecimalString(min)} ${coin}, max ${toDecimalString(max)} ${coin}`;
  if (amount.lt(min)) {
    throw new DomainError(
      "amount_below_min",
      `Amount ${toDecimalString(amount)} ${coin} is below the minimum (${limits}).`,
    );
  }
  if (amount.gt(max)) {
    throw new DomainError(
      "amount_above_max",
      `Amount ${toDecimalString(amount)} ${coin} is above the maximum (${limits}).`,
    );
  }
}
