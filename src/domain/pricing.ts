/**
 * Quote math (DESIGN.md §2, §3): mid rate, spread + markup, payout fee, pair limits.
 *
 * Pure functions over catalog/price data passed in; staleness of prices, currency flags and the
 * choice of spread (float vs fixed) are the caller's business.
 *
 * Exactness: the rate before fee is kept as the fraction price_from × (1 − bps) / price_to and
 * every amount is computed by multiplying first and dividing once at the end. Dividing by a
 * pre-computed rate would turn e.g. 1/3 into 0.333…3 and make a minimum of exactly 3.00 come out
 * as 3.01. The one division truncates (Dec rounds down), so any error pays out less, never more.
 *
 * Errors:
 * - PairUnavailableError: the data make the pair unquotable (non-positive or malformed price,
 *   malformed catalog row, spread + markup ≥ 100%, minimum above maximum). Maps to 400 "pair
 *   unavailable" with `reason`.
 * - PricingInputError (a RangeError): the caller passed something no request should produce
 *   (negative amount, negative or non-finite bps). Treat as a bug.
 */
import {
  bps,
  ceilTo,
  Dec,
  type Decimal,
  floorTo,
  MAX_DECIMALS,
  toDecimalString,
  toSignificant,
  tryParseDecimal,
  unit,
} from "./money";

/** One side of a pair: catalog row + newest USD price. */
export interface PricedSide {
  coin: string;
  network: string;
  /** Display/rounding precision of the coin. */
  decimals: number;
  /** Currency per-order limits (decimal strings, coin units). */
  minAmount: string;
  maxAmount: string;
  /** Payout network fee charged when this side is the destination (decimal string, coin units). */
  withdrawFee: string;
  /** Decimal string. */
  usdPrice: string;
}

export interface PricingInput {
  from: PricedSide;
  to: PricedSide;
  /** Service spread for the rate type (SPREAD_FLOAT_BPS or SPREAD_FIXED_BPS). */
  spreadBps: number;
  /** Partner markup; 0 for anonymous requests. */
  markupBps: number;
}

export type PairLimits =
  | {
      ok: true;
      /** Smallest amount_from, rounded up to from.decimals. */
      min: Decimal;
      /** Largest amount_from, rounded down to from.decimals. */
      max: Decimal;
    }
  | { ok: false; reason: string };

export interface Quote {
  /** As given (forward) or computed (reverse); not rounded by the forward quote. */
  amountFrom: Decimal;
  /** Rounded down to to.decimals, never negative. */
  amountTo: Decimal;
  /** Effective rate amount_to / amount_from, ≤ 12 significant digits, rounded down; 0 when amount_from is 0. */
  rate: Decimal;
  /** Pair limits on amount_from. */
  min: Decimal;
  max: Decimal;
  /** mid × (1 − (spread + markup)/10000), before the payout fee. */
  rateBeforeFee: Decimal;
  /** Payout network fee deducted, in to-coin units. */
  withdrawFee: Decimal;
}

export class PairUnavailableError extends Error {
  override readonly name = "PairUnavailableError";
  constructor(readonly reason: string) {
    super(`pair unavailable: ${reason}`);
  }
}

export class PricingInputError extends RangeError {
  override readonly name = "PricingInputError";
}

interface ParsedSide {
  label: string;
  decimals: number;
  min: Decimal;
  max: Decimal;
  fee: Decimal;
  price: Decimal;
}

/** The rate before fee as the fraction num / den (and its quotient), plus both parsed sides. */
interface Model {
  from: ParsedSide;
  to: ParsedSide;
  num: Decimal;
  den: Decimal;
  rateBeforeFee: Decimal;
}

function label(side: PricedSide): string {
  return `${side.coin}/${side.network}`;
}

function parsePrice(side: PricedSide): Decimal | string {
  const price = tryParseDecimal(side.usdPrice);
  if (price === undefined) return `price of ${label(side)} is malformed`;
  // tryParseDecimal already refuses negatives, so zero is the only non-positive left.
  if (price.isZero()) return `price of ${label(side)} is not positive`;
  return price;
}

function parseSide(side: PricedSide): ParsedSide | string {
  const price = parsePrice(side);
  if (typeof price === "string") return price;
  if (!Number.isInteger(side.decimals) || side.decimals < 0 || side.decimals > MAX_DECIMALS) {
    return `decimals of ${label(side)} out of range`;
  }
  const min = tryParseDecimal(side.minAmount);
  const max = tryParseDecimal(side.maxAmount);
  const fee = tryParseDecimal(side.withdrawFee);
  if (min === undefined || max === undefined || fee === undefined) {
    return `limits or withdraw fee of ${label(side)} are malformed`;
  }
  return { label: label(side), decimals: side.decimals, min, max, fee, price };
}

function checkBps(name: string, n: number): void {
  if (!Number.isFinite(n) || n < 0) {
    throw new PricingInputError(`${name} must be a finite number ≥ 0, got ${n}`);
  }
}

/** 1 − (spread + markup)/10000, or a reason when nothing would be left to pay out. */
function keepFactor(spreadBps: number, markupBps: number): Decimal | string {
  checkBps("spreadBps", spreadBps);
  checkBps("markupBps", markupBps);
  const factor = new Dec(1).minus(bps(spreadBps).plus(bps(markupBps)));
  return factor.isPositive() && !factor.isZero() ? factor : "spread and markup leave no rate";
}

function buildModel(input: PricingInput): Model | string {
  const from = parseSide(input.from);
  if (typeof from === "string") return from;
  const to = parseSide(input.to);
  if (typeof to === "string") return to;
  const factor = keepFactor(input.spreadBps, input.markupBps);
  if (typeof factor === "string") return factor;
  const num = from.price.times(factor);
  return { from, to, num, den: to.price, rateBeforeFee: num.div(to.price) };
}

/**
 * A pair's model and limits depend on nothing but its input, and one input object is priced many
 * times (storage/market.ts keeps one per catalog rows, price rows, spread and markup while the
 * isolate holds those rows): both are worked out once per input object, not on every quote.
 * Inputs are never mutated; a throw (bad bps, absurd prices) is not remembered and recurs.
 */
const models = new WeakMap<PricingInput, Model | string>();
const limitsByModel = new WeakMap<Model, PairLimits>();

/** The value kept for `key`, made (and kept) on first use. */
function remembered<K extends object, V>(kept: WeakMap<K, V>, key: K, make: (key: K) => V): V {
  let value = kept.get(key);
  if (value === undefined) {
    value = make(key);
    kept.set(key, value);
  }
  return value;
}

const modelOf = (input: PricingInput): Model | string => remembered(models, input, buildModel);

function modelOrThrow(input: PricingInput): Model {
  const m = modelOf(input);
  if (typeof m === "string") throw new PairUnavailableError(m);
  return m;
}

/** amount_to for amount_from: floor(amount_from × rate_before_fee − fee, to.decimals), at least 0. */
function amountToFor(m: Model, amountFrom: Decimal): Decimal {
  const net = amountFrom.times(m.num).div(m.den).minus(m.to.fee);
  const floored = floorTo(net, m.to.decimals);
  return floored.isNegative() ? new Dec(0) : floored;
}

/**
 * Smallest multiple of unit(from.decimals), not below `atLeast`, whose amount_to ≥ target.
 * `target` must be a positive multiple of unit(to.decimals), so amount_to ≥ target exactly when
 * amount_from × rate_before_fee ≥ target + fee, and the closed form below is exact up to the
 * truncation of one division; the loop absorbs that truncation (one step at most in practice).
 */
function smallestFromFor(m: Model, target: Decimal, atLeast: Decimal): Decimal {
  const needed = target.plus(m.to.fee).times(m.den).div(m.num);
  const step = unit(m.from.decimals);
  let x = ceilTo(Dec.max(needed, atLeast), m.from.decimals);
  for (let bumps = 0; amountToFor(m, x).lessThan(target); bumps++) {
    if (bumps >= 4) {
      // Only absurd price ratios get here (amounts beyond the decimal precision): no sane quote exists.
      throw new PairUnavailableError(
        `no amount of ${m.from.label} reaches ${toDecimalString(target)} of ${m.to.label} at these prices`,
      );
    }
    x = x.plus(step);
  }
  return x;
}

const limitsOf = (m: Model): PairLimits => remembered(limitsByModel, m, workOutLimits);

function workOutLimits(m: Model): PairLimits {
  // amount_to is a multiple of unit(to.decimals): "≥ to.min" means "≥ to.min rounded up", and
  // "> 0" means "≥ one unit".
  const target = Dec.max(ceilTo(m.to.min, m.to.decimals), unit(m.to.decimals));
  const min = smallestFromFor(m, target, m.from.min);
  // Truncating division keeps this ≤ the exact bound, so amount_to at max never exceeds to.max.
  const maxByTo = m.to.max.plus(m.to.fee).times(m.den).div(m.num);
  const max = floorTo(Dec.min(m.from.max, maxByTo), m.from.decimals);
  if (min.greaterThan(max)) {
    return {
      ok: false,
      reason:
        `minimum above maximum for ${m.from.label} → ${m.to.label} ` +
        `(min ${toDecimalString(min)}, max ${toDecimalString(max)})`,
    };
  }
  return { ok: true, min, max };
}

function quoteOf(m: Model, amountFrom: Decimal, limits: { min: Decimal; max: Decimal }): Quote {
  const amountTo = amountToFor(m, amountFrom);
  const rate = amountFrom.isZero() ? new Dec(0) : toSignificant(amountTo.div(amountFrom), 12);
  return {
    amountFrom,
    amountTo,
    rate,
    min: limits.min,
    max: limits.max,
    rateBeforeFee: m.rateBeforeFee,
    withdrawFee: m.to.fee,
  };
}

function limitsOrThrow(m: Model): { min: Decimal; max: Decimal } {
  const limits = limitsOf(m);
  if (!limits.ok) throw new PairUnavailableError(limits.reason);
  return limits;
}

function checkAmount(name: string, x: Decimal): void {
  // -0 counts as negative to decimal.js but is harmless; callers get it back as 0.
  if (!x.isFinite() || (x.isNegative() && !x.isZero())) {
    throw new PricingInputError(`${name} must be a finite number ≥ 0, got ${x.toString()}`);
  }
}

/** price_from / price_to. Throws PairUnavailableError for a malformed or non-positive price. */
export function midRate(from: PricedSide, to: PricedSide): Decimal {
  const pf = parsePrice(from);
  if (typeof pf === "string") throw new PairUnavailableError(pf);
  const pt = parsePrice(to);
  if (typeof pt === "string") throw new PairUnavailableError(pt);
  return pf.div(pt);
}

/**
 * mid × (1 − (spread + markup)/10000). Throws PairUnavailableError for unusable data,
 * PricingInputError for negative/non-finite bps.
 */
export function rateBeforeFee(input: PricingInput): Decimal {
  return modelOrThrow(input).rateBeforeFee;
}

/** Pair limits on amount_from; ok:false (never a throw) for unusable data or min > max. */
export function pairLimits(input: PricingInput): PairLimits {
  const m = modelOf(input);
  if (typeof m === "string") return { ok: false, reason: m };
  return limitsOf(m);
}

/**
 * amount_to for a given amount_from. Does not check the amount against min/max (the quote
 * carries them for the caller to compare). Throws PairUnavailableError when pairLimits is not ok.
 */
export function quoteForward(input: PricingInput, amountFrom: Decimal): Quote {
  checkAmount("amountFrom", amountFrom);
  const m = modelOrThrow(input);
  return quoteOf(m, amountFrom.abs(), limitsOrThrow(m));
}

/**
 * The smallest amount_from (a multiple of unit(from.decimals)) whose forward amount_to ≥ amountTo;
 * the quote's amountTo is that forward amount, which may exceed the request by the rounding.
 * Limits are not checked, as in quoteForward.
 */
export function quoteReverse(input: PricingInput, amountTo: Decimal): Quote {
  checkAmount("amountTo", amountTo);
  const m = modelOrThrow(input);
  const limits = limitsOrThrow(m);
  const target = ceilTo(amountTo, m.to.decimals);
  if (target.isZero()) return quoteOf(m, new Dec(0), limits);
  return quoteOf(m, smallestFromFor(m, target, new Dec(0)), limits);
}

/**
 * The largest amount_from (a multiple of unit(from.decimals)) whose forward amount_to does not
 * exceed `amountTo`: the inverse of quoteForward from above, payout fee included. Limits are not
 * applied. Throws PairUnavailableError for unusable pricing data.
 */
export function largestAmountFrom(input: PricingInput, amountTo: Decimal): Decimal {
  checkAmount("amountTo", amountTo);
  const m = modelOrThrow(input);
  // One unit below the smallest amount that pays out a unit more than amountTo allows.
  const tooMuch = floorTo(amountTo, m.to.decimals).plus(unit(m.to.decimals));
  return smallestFromFor(m, tooMuch, new Dec(0)).minus(unit(m.from.decimals));
}
