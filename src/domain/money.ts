/**
 * Decimal arithmetic for money (DESIGN.md §2).
 *
 * Every amount, price and rate goes through `Dec`, a private decimal.js clone, so that no other
 * module's `Decimal.set(...)` can change our precision or rounding. Binary floating point appears
 * only at the response boundary (`toJsonNumber`), because the contract says "number".
 *
 * Parsing policy: `tryParseDecimal` returns `undefined` for bad input (handy for validators) and
 * `parseDecimal` throws `InvalidDecimalError` (a RangeError) for the same inputs. Both accept zero;
 * callers that need a strictly positive amount check `isPositive()` themselves, so the error they
 * report can say which rule was broken.
 */
import DecimalJs from "decimal.js";

export type Decimal = DecimalJs;

/**
 * precision 50 keeps 18-decimal amounts up to ~1e30 exact through a multiplication; ROUND_DOWN
 * means any inexact intermediate (a division) errs towards paying out less, never more.
 * toExpNeg/toExpPos keep toString() in plain notation for every value we accept.
 */
export const Dec: DecimalJs.Constructor = DecimalJs.clone({
  precision: 50,
  rounding: DecimalJs.ROUND_DOWN,
  toExpNeg: -30,
  toExpPos: 30,
});

/** Largest decimal exponent a parsed value may have: values below 1e31. */
export const MAX_EXPONENT = 30;
/** Smallest decimal exponent of a non-zero parsed value: values from 1e-30. */
export const MIN_EXPONENT = -30;
/** Most `decimals` a coin may have; keeps floorTo/ceilTo results inside the plain-notation range. */
export const MAX_DECIMALS = 30;

export class InvalidDecimalError extends RangeError {
  override readonly name = "InvalidDecimalError";
  constructor(
    readonly input: unknown,
    readonly why: string,
  ) {
    super(`invalid decimal ${describe(input)}: ${why}`);
  }
}

// Unsigned decimal, optional fraction, optional exponent ("1e-7" is how JSON numbers stringify).
// No sign, no hex/binary/octal prefixes, no whitespace, no "Infinity"/"NaN".
const DECIMAL_TEXT = /^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
// Long strings are refused before Decimal sees them: a caller-controlled string should not be
// able to make us allocate or print a huge digit array.
const MAX_TEXT_LENGTH = 80;

function parseOrReason(input: unknown): string | Decimal {
  if (typeof input === "number") {
    if (!Number.isFinite(input)) return "not a finite number";
    if (input < 0) return "negative";
    // -0 would otherwise become a Decimal with a negative sign that prints as "-0".
    return checkRange(new Dec(Object.is(input, -0) ? 0 : input));
  }
  if (typeof input !== "string") return "not a string or number";
  if (input === "") return "empty";
  if (input.length > MAX_TEXT_LENGTH) return "too long";
  if (!DECIMAL_TEXT.test(input)) return "not an unsigned decimal";
  return checkRange(new Dec(input));
}

function checkRange(x: Decimal): string | Decimal {
  if (x.isZero()) return x.abs();
  if (x.e > MAX_EXPONENT) return "too large";
  if (x.e < MIN_EXPONENT) return "too small";
  return x;
}

/** A non-negative decimal from a decimal string or JSON number, or undefined if the input is not one. */
export function tryParseDecimal(input: unknown): Decimal | undefined {
  const r = parseOrReason(input);
  return typeof r === "string" ? undefined : r;
}

/** Like tryParseDecimal but throws InvalidDecimalError, whose `why` says what was wrong. */
export function parseDecimal(input: unknown): Decimal {
  const r = parseOrReason(input);
  if (typeof r === "string") throw new InvalidDecimalError(input, r);
  return r;
}

function checkDecimals(decimals: number): void {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > MAX_DECIMALS) {
    throw new RangeError(`decimals must be an integer in [0, ${MAX_DECIMALS}], got ${decimals}`);
  }
}

/** The smallest step of a coin with `decimals` places: 10^-decimals. */
export function unit(decimals: number): Decimal {
  checkDecimals(decimals);
  return new Dec(`1e-${decimals}`);
}

/** Round towards −∞ to `decimals` places (amounts to receive, maximums). */
export function floorTo(x: Decimal, decimals: number): Decimal {
  checkDecimals(decimals);
  return x.toDecimalPlaces(decimals, Dec.ROUND_FLOOR);
}

/** Round towards +∞ to `decimals` places (minimums, amounts a sender must pay). */
export function ceilTo(x: Decimal, decimals: number): Decimal {
  checkDecimals(decimals);
  return x.toDecimalPlaces(decimals, Dec.ROUND_CEIL);
}

/**
 * At most `digits` significant digits, rounded towards −∞ so the result never exceeds the input
 * (for the positive rates we quote this is plain truncation).
 */
export function toSignificant(x: Decimal, digits = 12): Decimal {
  if (!Number.isInteger(digits) || digits < 1) throw new RangeError(`digits must be a positive integer`);
  return x.toSignificantDigits(digits, Dec.ROUND_FLOOR);
}

function assertFinite(x: Decimal): void {
  if (!x.isFinite()) throw new RangeError(`non-finite decimal ${x.toString()}`);
}

/**
 * The one sanctioned Decimal → number conversion, for JSON responses only. Round to the coin's
 * decimals first; the number is the nearest double, so values beyond ~15 significant digits
 * (18-decimal coins) are approximate — store and compare the Decimal, never the number.
 */
export function toJsonNumber(x: Decimal): number {
  assertFinite(x);
  if (x.isZero()) return 0;
  return Number(x.toString());
}

/**
 * Storage form: plain notation, no exponent, no trailing zeros, "0" for zero
 * (matches /^(0|[1-9][0-9]*)(\.[0-9]+)?$/ for non-negative values).
 */
export function toDecimalString(x: Decimal): string {
  assertFinite(x);
  if (x.isZero()) return "0";
  // decimal.js keeps no trailing zeros, and toFixed() without arguments never uses an exponent.
  return x.toFixed();
}

/**
 * Fractions by their basis points: the few spreads and markups in use recur on every quote (a fee
 * split made four of them), and a Decimal never changes, so each is made once.
 */
const fractions = new Map<number, Decimal>();

/** Basis points as a fraction: bps(50) = 0.005. */
export function bps(n: number): Decimal {
  let fraction = fractions.get(n);
  if (fraction === undefined) {
    if (!Number.isFinite(n)) throw new RangeError(`basis points must be finite, got ${n}`);
    fraction = new Dec(n).div(10_000);
    if (fractions.size >= 256) fractions.clear();
    fractions.set(n, fraction);
  }
  return fraction;
}

function describe(input: unknown): string {
  if (typeof input === "string") return JSON.stringify(input.length > 40 ? `${input.slice(0, 40)}…` : input);
  if (typeof input === "number") return String(input);
  return typeof input;
}
