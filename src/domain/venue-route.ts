import { type Decimal, floorTo, parseDecimal, toDecimalString } from "./money";

/** A spot market as the venue lists it, with the filters market orders must pass. */
export interface Market {
  symbol: string;
  base: string;
  quote: string;
  trading: boolean;
  /** LOT_SIZE (MARKET_LOT_SIZE when the venue sets one): base-asset quantity bounds and step. */
  minQty: string;
  maxQty: string;
  stepSize: string;
  /** MIN_NOTIONAL / NOTIONAL minimum in the quote asset, when it applies to market orders. */
  minNotional: string | null;
  quoteOrderQtyMarketAllowed: boolean;
  quoteAssetPrecision: number;
}

/** One market order: sell `from` into `to` on `market`. */
export interface RouteLeg {
  market: Market;
  side: "SELL" | "BUY";
  from: string;
  to: string;
}

export const HUB_ASSET = "USDT";

function direct(markets: ReadonlyMap<string, Market>, from: string, to: string): RouteLeg | null {
  const sell = markets.get(`${from}${to}`);
  if (sell?.trading && sell.base === from && sell.quote === to)
    return { market: sell, side: "SELL", from, to };
  const buy = markets.get(`${to}${from}`);
  if (buy?.trading && buy.base === to && buy.quote === from) return { market: buy, side: "BUY", from, to };
  return null;
}

/**
 * The direct market when the venue lists one (either way round), otherwise two legs through the
 * hub asset; null when neither exists. Legs run one after the other: the second is sized on what
 * the first actually delivered.
 */
export function routeLegs(markets: ReadonlyMap<string, Market>, from: string, to: string): RouteLeg[] | null {
  const one = direct(markets, from, to);
  if (one) return [one];
  if (from === HUB_ASSET || to === HUB_ASSET) return null;
  const first = direct(markets, from, HUB_ASSET);
  const second = direct(markets, HUB_ASSET, to);
  return first && second ? [first, second] : null;
}

export type LegSize =
  | { ok: true; params: { quantity: string } | { quoteOrderQty: string }; spent: Decimal }
  | { ok: false; reason: string };

function floorToStep(x: Decimal, step: Decimal): Decimal {
  return step.isZero() ? x : x.div(step).floor().mul(step);
}

/**
 * A market order spending `amount` of the leg's `from` asset, within the market's filters: a SELL
 * gives the base quantity (rounded down to the step), a BUY spends the quote amount
 * (`quoteOrderQty`, rounded down to the quote precision). `price` (quote per base, e.g. the venue's
 * ticker) estimates the notional. What rounding leaves over stays with the service (`amount - spent`).
 */
export function sizeLeg(leg: RouteLeg, amount: Decimal, price: Decimal): LegSize {
  const m = leg.market;
  const minNotional = m.minNotional === null ? null : parseDecimal(m.minNotional);
  if (leg.side === "SELL") {
    const qty = floorToStep(amount, parseDecimal(m.stepSize));
    if (qty.lessThan(parseDecimal(m.minQty)) || qty.isZero())
      return { ok: false, reason: `quantity ${qty} below ${m.symbol} LOT_SIZE minQty ${m.minQty}` };
    if (qty.greaterThan(parseDecimal(m.maxQty)))
      return { ok: false, reason: `quantity ${qty} above ${m.symbol} LOT_SIZE maxQty ${m.maxQty}` };
    if (minNotional && qty.mul(price).lessThan(minNotional))
      return { ok: false, reason: `notional below ${m.symbol} minimum ${m.minNotional}` };
    return { ok: true, params: { quantity: toDecimalString(qty) }, spent: qty };
  }
  if (!m.quoteOrderQtyMarketAllowed)
    return { ok: false, reason: `${m.symbol} takes no quoteOrderQty market orders` };
  const quote = floorTo(amount, m.quoteAssetPrecision);
  if (minNotional && quote.lessThan(minNotional))
    return { ok: false, reason: `notional ${quote} below ${m.symbol} minimum ${m.minNotional}` };
  if (!price.isZero() && quote.div(price).lessThan(parseDecimal(m.minQty)))
    return { ok: false, reason: `quantity below ${m.symbol} LOT_SIZE minQty ${m.minQty}` };
  return { ok: true, params: { quoteOrderQty: toDecimalString(quote) }, spent: quote };
}

/**
 * The venue's client order id for a leg: the order's UUID without dashes, then the leg (≤ 36
 * chars). A later exchange of the same order (an operator's "continue" after a failed one) appends
 * its number in base 36 (`-12`: leg 1 of the 2nd exchange), so a lookup can never find the legs of
 * an earlier exchange, which the venue may still list under their ids.
 */
export function legClientOrderId(orderId: string, legIndex: number, exchangeNo = 1): string {
  const suffix = exchangeNo > 1 ? exchangeNo.toString(36) : "";
  return `${orderId.replaceAll("-", "")}-${legIndex + 1}${suffix}`;
}
