/** USD prices of coins: the values price sources produce and storage keeps (DESIGN.md §3). */
import { type Decimal, toDecimalString, toSignificant, tryParseDecimal } from "./money";

export interface PriceQuote {
  /** Upper-case ticker, as in the catalog (`BTC`). */
  coin: string;
  /** USD per one unit of `coin`: a decimal string in storage form (see toDecimalString), > 0. */
  usd: string;
}

/** Upper-cased, trimmed, de-duplicated, empty entries dropped; order kept. */
export function normalizeCoins(coins: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const raw of coins) {
    const coin = raw.trim().toUpperCase();
    if (coin) seen.add(coin);
  }
  return [...seen];
}

/** Significant digits kept in a stored price (the same budget DESIGN.md §2 gives a rate). */
export const PRICE_SIGNIFICANT_DIGITS = 12;

/**
 * A strictly positive price from untrusted input (a JSON string or number), or undefined for
 * anything else: zero, negative, non-numeric, exponent out of range, absurdly long.
 */
export function parsePositivePrice(input: unknown): Decimal | undefined {
  const x = tryParseDecimal(input);
  return x?.isPositive() && !x.isZero() ? x : undefined;
}

/** Storage form of a positive price, cut to PRICE_SIGNIFICANT_DIGITS (rounded down). */
export function priceString(x: Decimal): string {
  return toDecimalString(toSignificant(x, PRICE_SIGNIFICANT_DIGITS));
}

/** Orders `found` by `coins` (already normalized), dropping coins that were not found. */
export function inRequestOrder(coins: readonly string[], found: ReadonlyMap<string, string>): PriceQuote[] {
  const out: PriceQuote[] = [];
  for (const coin of coins) {
    const usd = found.get(coin);
    if (usd !== undefined) out.push({ coin, usd });
  }
  return out;
}
