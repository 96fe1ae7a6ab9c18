import { grossForNet } from "./min-out";
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
  /** PRICE_FILTER tickSize: a limit price is a multiple of it ("0": no filter). */
  tickSize: string;
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

export type LegParams = { quantity: string } | { quoteOrderQty: string } | LimitParams;
/** A fill-or-kill limit order: all of `quantity` at `price` or better, or nothing (docs/venue.md). */
export type LimitParams = { quantity: string; price: string; timeInForce: "FOK" };

export type LegSize = { ok: true; params: LegParams; spent: Decimal } | { ok: false; reason: string };

function floorToStep(x: Decimal, step: Decimal): Decimal {
  return step.isZero() ? x : x.div(step).floor().mul(step);
}

function ceilToStep(x: Decimal, step: Decimal): Decimal {
  return step.isZero() ? x : x.div(step).ceil().mul(step);
}

/**
 * What leg `i` of a route must deliver (gross, in its `to` asset, before its commission) for the
 * last leg to deliver `floor` net of commission, the later legs trading at `prices` (quote per
 * base, by leg) now. Each leg's commission is assumed at LEG_COMMISSION_BPS.
 */
export function legTarget(
  legs: readonly Pick<RouteLeg, "side">[],
  i: number,
  prices: readonly Decimal[],
  floor: Decimal,
): Decimal {
  let target = grossForNet(floor);
  for (let j = legs.length - 1; j > i; j--) {
    const price = prices[j];
    if (!price || price.isZero()) throw new RangeError(`no price for leg ${j + 1}`);
    // A SELL turns its base into price × base; a BUY turns its quote into quote / price.
    target = grossForNet(legs[j]?.side === "SELL" ? target.div(price) : target.mul(price));
  }
  return target;
}

/**
 * The leg as a fill-or-kill limit order that delivers at least `target` (legTarget) or nothing.
 * A SELL sells the whole amount at no less than target / quantity. A BUY buys what `amount` buys
 * at `price` now, at no more than the price at which `amount` buys exactly `target`: a fill above
 * the price now costs the service the difference, never the user. `below`: at `price` now the leg
 * cannot reach `target` (the price is already past the floor).
 */
export function sizeLimitLeg(
  leg: RouteLeg,
  amount: Decimal,
  price: Decimal,
  target: Decimal,
): (LegSize & { ok: false }) | { ok: true; params: LimitParams; spent: Decimal; below: boolean } {
  const m = leg.market;
  const step = parseDecimal(m.stepSize);
  const tick = parseDecimal(m.tickSize);
  const qty = leg.side === "SELL" ? floorToStep(amount, step) : floorToStep(amount.div(price), step);
  if (qty.lessThan(parseDecimal(m.minQty)) || qty.isZero())
    return { ok: false, reason: `quantity ${qty} below ${m.symbol} LOT_SIZE minQty ${m.minQty}` };
  if (qty.greaterThan(parseDecimal(m.maxQty)))
    return { ok: false, reason: `quantity ${qty} above ${m.symbol} LOT_SIZE maxQty ${m.maxQty}` };
  if (m.minNotional !== null && qty.mul(price).lessThan(parseDecimal(m.minNotional)))
    return { ok: false, reason: `notional below ${m.symbol} minimum ${m.minNotional}` };
  const limit =
    leg.side === "SELL" ? ceilToStep(target.div(qty), tick) : floorToStep(amount.div(target), tick);
  if (limit.isZero()) return { ok: false, reason: `no ${m.symbol} limit price reaches the floor` };
  const below = leg.side === "SELL" ? qty.mul(price).lessThan(target) : qty.lessThan(target);
  return {
    ok: true,
    params: { quantity: toDecimalString(qty), price: toDecimalString(limit), timeInForce: "FOK" },
    spent: leg.side === "SELL" ? qty : qty.mul(price),
    below,
  };
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
