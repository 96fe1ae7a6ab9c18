import { describe, expect, it } from "vitest";
import { amountToMin } from "../../src/domain/min-out";
import { parseDecimal, toDecimalString } from "../../src/domain/money";
import { legTarget, type Market, type RouteLeg, sizeLimitLeg } from "../../src/domain/venue-route";

const d = parseDecimal;
const market = (symbol: string, base: string, quote: string, step: string, tick: string): Market => ({
  symbol,
  base,
  quote,
  trading: true,
  minQty: step,
  maxQty: "9000000",
  stepSize: step,
  minNotional: "5",
  quoteOrderQtyMarketAllowed: true,
  quoteAssetPrecision: 8,
  tickSize: tick,
});
const SELL_BTC: RouteLeg = {
  market: market("BTCUSDT", "BTC", "USDT", "0.00001", "0.01"),
  side: "SELL",
  from: "BTC",
  to: "USDT",
};
const BUY_TRX: RouteLeg = {
  market: market("TRXUSDT", "TRX", "USDT", "0.1", "0.00001"),
  side: "BUY",
  from: "USDT",
  to: "TRX",
};

describe("amount_to_min", () => {
  it("the gross less the slippage, less the fee, rounded down; never negative", () => {
    expect(toDecimalString(amountToMin(d("596"), d("1"), 100, 6))).toBe("590.03");
    expect(toDecimalString(amountToMin(d("596"), d("1"), 0, 6))).toBe("596");
    expect(toDecimalString(amountToMin(d("1.9885"), d("0.0015"), 333, 4))).toBe("1.9222");
    expect(toDecimalString(amountToMin(d("0.05"), d("1"), 1000, 6))).toBe("0");
  });
});

describe("fill-or-kill limit legs", () => {
  it("a SELL sells the whole amount at no less than target / quantity, rounded up to the tick", () => {
    const size = sizeLimitLeg(SELL_BTC, d("0.01"), d("60000"), d("594.5945"));
    expect(size).toMatchObject({
      ok: true,
      params: { quantity: "0.01", price: "59459.45", timeInForce: "FOK" },
      below: false,
    });
    expect(sizeLimitLeg(SELL_BTC, d("0.01"), d("59000"), d("594.5945"))).toMatchObject({
      ok: true,
      below: true,
    });
  });

  it("a BUY buys what the amount buys now, at no more than the price at which it buys the target (rounded down)", () => {
    // 599.4 USDT buys 4995 TRX at 0.12; the target 4900 TRX costs at most 599.4 / 4900 = 0.122326… a TRX.
    const size = sizeLimitLeg(BUY_TRX, d("599.4"), d("0.12"), d("4900"));
    expect(size).toMatchObject({ ok: true, params: { quantity: "4995", price: "0.12232" }, below: false });
    expect(sizeLimitLeg(BUY_TRX, d("599.4"), d("0.125"), d("4900"))).toMatchObject({ ok: true, below: true });
  });

  it("an earlier leg's target is what the later legs need at their prices now, each gross of its commission", () => {
    // The last leg must buy 4900 / 0.999 TRX gross; at 0.12 that is 588.588… USDT, gross of leg 1's commission.
    const t = legTarget([SELL_BTC, BUY_TRX], 0, [d("0"), d("0.12")], d("4900"));
    expect(t.toFixed(6)).toBe(d("4900").div(0.999).mul(0.12).div(0.999).toFixed(6));
    expect(legTarget([SELL_BTC, BUY_TRX], 1, [], d("4900")).toFixed(6)).toBe(d("4900").div(0.999).toFixed(6));
  });
});
