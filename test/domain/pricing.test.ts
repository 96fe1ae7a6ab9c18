import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ceilTo,
  Dec,
  type Decimal,
  floorTo,
  parseDecimal,
  toDecimalString,
  unit,
} from "../../src/domain/money";
import {
  largestAmountFrom,
  midRate,
  PairUnavailableError,
  type PricedSide,
  type PricingInput,
  PricingInputError,
  pairLimits,
  quoteForward,
  quoteReverse,
  rateBeforeFee,
} from "../../src/domain/pricing";

// Fixed seed so a failure reproduces; runs kept small enough for a few seconds in workerd.
const FC = { seed: 20_240_611, numRuns: 400 } as const;

const s = (x: Decimal): string => toDecimalString(x);
const d = (x: string): Decimal => parseDecimal(x);

const BTC: PricedSide = {
  coin: "BTC",
  network: "bitcoin",
  decimals: 8,
  minAmount: "0.0005",
  maxAmount: "5",
  withdrawFee: "0.0002",
  usdPrice: "60000",
};
const ETH8: PricedSide = {
  coin: "ETH",
  network: "ethereum",
  decimals: 8,
  minAmount: "0.01",
  maxAmount: "100",
  withdrawFee: "0.002",
  usdPrice: "3000",
};
const ETH18: PricedSide = { ...ETH8, decimals: 18 };
const USDT: PricedSide = {
  coin: "USDT",
  network: "tron",
  decimals: 6,
  minAmount: "10",
  maxAmount: "100000",
  withdrawFee: "1",
  usdPrice: "1",
};

const pair = (from: PricedSide, to: PricedSide, spreadBps = 50, markupBps = 0): PricingInput => ({
  from,
  to,
  spreadBps,
  markupBps,
});

function okLimits(input: PricingInput): { min: string; max: string } {
  const l = pairLimits(input);
  if (!l.ok) throw new Error(`expected ok limits, got: ${l.reason}`);
  return { min: s(l.min), max: s(l.max) };
}

describe("hand-checked quotes", () => {
  it("BTC → ETH (8 decimals), spread 50 bps, no markup", () => {
    const input = pair(BTC, ETH8);
    // mid = 60000 / 3000 = 20; rate before fee = 20 × (1 − 0.005) = 19.9
    expect(s(midRate(BTC, ETH8))).toBe("20");
    expect(s(rateBeforeFee(input))).toBe("19.9");
    // 0.1 × 19.9 = 1.99; − 0.002 fee = 1.988; rate = 1.988 / 0.1 = 19.88
    const q = quoteForward(input, d("0.1"));
    expect(s(q.amountTo)).toBe("1.988");
    expect(s(q.rate)).toBe("19.88");
    expect(s(q.rateBeforeFee)).toBe("19.9");
    expect(s(q.withdrawFee)).toBe("0.002");
    // min: ETH side needs amount_to ≥ 0.01 → amount_from ≥ (0.01 + 0.002) / 19.9 = 0.000603015075…
    //      > BTC min 0.0005 → ceil to 8 dp = 0.00060302
    //      (check: 0.00060302 × 19.9 − 0.002 = 0.010000098 → 0.01000009 ≥ 0.01;
    //              0.00060301 × 19.9 − 0.002 = 0.009999899 < 0.01)
    // max: (100 + 0.002) / 19.9 = 5.0252… > BTC max 5 → 5
    expect(okLimits(input)).toEqual({ min: "0.00060302", max: "5" });
    expect(s(q.min)).toBe("0.00060302");
    expect(s(q.max)).toBe("5");
  });

  it("BTC → ETH with a 30 bps partner markup", () => {
    const input = pair(BTC, ETH8, 50, 30);
    // 20 × (1 − 0.008) = 19.84; 0.1 × 19.84 = 1.984 − 0.002 = 1.982; rate 19.82
    expect(s(rateBeforeFee(input))).toBe("19.84");
    const q = quoteForward(input, d("0.1"));
    expect(s(q.amountTo)).toBe("1.982");
    expect(s(q.rate)).toBe("19.82");
    // min: 0.012 / 19.84 = 0.000604838709… → 0.00060484
    //      (0.00060484 × 19.84 − 0.002 = 0.0100000256 ≥ 0.01; 0.00060483 → 0.0099998272)
    // max: 100.002 / 19.84 = 5.0404… → capped by BTC max 5
    expect(okLimits(input)).toEqual({ min: "0.00060484", max: "5" });
  });

  it("BTC → ETH (18 decimals) keeps the full precision and cuts the rate to 12 significant digits", () => {
    const input = pair(BTC, ETH18);
    // 0.12345678 × 19.9 = 2.456789922; − 0.002 = 2.454789922 (exact, fewer than 18 dp)
    // rate = 2.454789922 / 0.12345678 = 19.88379999867159989… → 12 digits, down: 19.8837999986
    const q = quoteForward(input, d("0.12345678"));
    expect(s(q.amountTo)).toBe("2.454789922");
    expect(s(q.rate)).toBe("19.8837999986");
    // min: 0.012 / 19.9 = 0.000603015… → 0.00060302 (from.decimals = 8 still rules the rounding)
    expect(okLimits(input)).toEqual({ min: "0.00060302", max: "5" });
  });

  it("amount_to clamps to 0 when the fee eats everything; rate is then 0", () => {
    // 0.00001 × 19.9 = 0.000199; − 0.002 = −0.001801 → 0
    const q = quoteForward(pair(BTC, ETH8), d("0.00001"));
    expect(s(q.amountTo)).toBe("0");
    expect(s(q.rate)).toBe("0");
  });

  it("BTC → USDT (6 decimals)", () => {
    const input = pair(BTC, USDT);
    // mid = 60000 / 1 = 60000; 60000 × 0.995 = 59700
    expect(s(rateBeforeFee(input))).toBe("59700");
    // 0.1 × 59700 = 5970; − 1 = 5969; rate 59690
    const q = quoteForward(input, d("0.1"));
    expect(s(q.amountTo)).toBe("5969");
    expect(s(q.rate)).toBe("59690");
    // min: (10 + 1) / 59700 = 0.000184… < BTC min 0.0005 → 0.0005
    // max: (100000 + 1) / 59700 = 1.675058626465… → floor 8 dp = 1.67505862 (< BTC max 5)
    expect(okLimits(input)).toEqual({ min: "0.0005", max: "1.67505862" });
    // at max: 1.67505862 × 59700 − 1 = 99999.999614 ≤ 100000
    expect(s(quoteForward(input, d("1.67505862")).amountTo)).toBe("99999.999614");
  });

  it("USDT → BTC (inexact mid 1/60000)", () => {
    const input = pair(USDT, BTC);
    // 1000 × 1 × 0.995 / 60000 = 0.016583333…; − 0.0002 = 0.016383333… → 8 dp: 0.01638333
    // rate = 0.01638333 / 1000 = 0.00001638333
    const q = quoteForward(input, d("1000"));
    expect(s(q.amountTo)).toBe("0.01638333");
    expect(s(q.rate)).toBe("0.00001638333");
    // min: (0.0005 + 0.0002) × 60000 / 0.995 = 42 / 0.995 = 42.21105527638… → up to 6 dp: 42.211056
    // max: 5.0002 × 60000 / 0.995 = 301519.59… > USDT max 100000 → 100000
    expect(okLimits(input)).toEqual({ min: "42.211056", max: "100000" });
  });

  it("rounding directions: receive rounds down, min rounds up, max rounds down", () => {
    const AAA: PricedSide = {
      coin: "AAA",
      network: "a",
      decimals: 2,
      minAmount: "0.25",
      maxAmount: "10",
      withdrawFee: "0",
      usdPrice: "1",
    };
    const BBB: PricedSide = {
      coin: "BBB",
      network: "b",
      decimals: 4,
      minAmount: "0.1",
      maxAmount: "2.5",
      withdrawFee: "0.0001",
      usdPrice: "3",
    };
    const input = pair(AAA, BBB, 0, 0);
    // receive: 1 / 3 − 0.0001 = 0.33323333… → 0.3332 (not 0.3333)
    expect(s(quoteForward(input, d("1")).amountTo)).toBe("0.3332");
    // min: (0.1 + 0.0001) × 3 = 0.3003 → up to 2 dp: 0.31 (0.30 would give 0.0999 < 0.1)
    // max: (2.5 + 0.0001) × 3 = 7.5003 → down to 2 dp: 7.5
    expect(okLimits(input)).toEqual({ min: "0.31", max: "7.5" });
    expect(s(quoteForward(input, d("0.3")).amountTo)).toBe("0.0999");
    // 0.31 / 3 − 0.0001 = 0.1032333… → 0.1032 ≥ 0.1
    expect(s(quoteForward(input, d("0.31")).amountTo)).toBe("0.1032");
    // 7.5 / 3 − 0.0001 = 2.4999 ≤ 2.5
    expect(s(quoteForward(input, d("7.5")).amountTo)).toBe("2.4999");
  });

  it("divides once, so an exact 1/3 pair gets an exact minimum", () => {
    const A: PricedSide = {
      coin: "A",
      network: "a",
      decimals: 2,
      minAmount: "0",
      maxAmount: "100",
      withdrawFee: "0",
      usdPrice: "1",
    };
    const B: PricedSide = { ...A, coin: "B", decimals: 4, minAmount: "1", usdPrice: "3" };
    // need amount_to ≥ 1 → amount_from ≥ 1 × 3 / 1 = 3 exactly (a pre-divided 0.333…3 rate would give 3.01)
    expect(okLimits(pair(A, B, 0, 0)).min).toBe("3");
    expect(s(quoteForward(pair(A, B, 0, 0), d("3")).amountTo)).toBe("1");
  });
});

describe("hand-checked reverse quotes", () => {
  it("BTC → ETH: amount_to 1.988 needs exactly 0.1 BTC", () => {
    // (1.988 + 0.002) / 19.9 = 0.1
    const q = quoteReverse(pair(BTC, ETH8), d("1.988"));
    expect(s(q.amountFrom)).toBe("0.1");
    expect(s(q.amountTo)).toBe("1.988");
    expect(s(q.rate)).toBe("19.88");
  });

  it("ETH (18 dp) → BTC: smallest amount_from rounds up at the 18th decimal", () => {
    const input = pair(ETH18, BTC);
    // mid = 3000 / 60000 = 0.05; × 0.995 = 0.04975
    expect(s(rateBeforeFee(input))).toBe("0.04975");
    // (0.1 + 0.0002) / 0.04975 = 2.014070351758793969849… → up to 18 dp: 2.014070351758793970
    const q = quoteReverse(input, d("0.1"));
    expect(s(q.amountFrom)).toBe("2.01407035175879397");
    // 2.01407035175879397 × 0.04975 − 0.0002 = 0.10000000000000000000750 → 0.1
    expect(s(q.amountTo)).toBe("0.1");
    // one unit less: 0.0999999999999999999577… → 0.09999999 < 0.1
    expect(s(quoteForward(input, q.amountFrom.minus(unit(18))).amountTo)).toBe("0.09999999");
    // limits: (0.0005 + 0.0002) / 0.04975 = 0.014070351758793969849… → 0.01407035175879397 (> ETH min 0.01)
    //         5.0002 / 0.04975 = 100.5065… → ETH max 100
    expect(okLimits(input)).toEqual({ min: "0.01407035175879397", max: "100" });
  });

  it("rounding pair: amount_to 0.2 needs 0.61 and yields 0.2032", () => {
    const AAA: PricedSide = {
      coin: "AAA",
      network: "a",
      decimals: 2,
      minAmount: "0.25",
      maxAmount: "10",
      withdrawFee: "0",
      usdPrice: "1",
    };
    const BBB: PricedSide = {
      ...AAA,
      coin: "BBB",
      decimals: 4,
      minAmount: "0.1",
      withdrawFee: "0.0001",
      usdPrice: "3",
    };
    // (0.2 + 0.0001) × 3 = 0.6003 → 0.61; forward: 0.61 / 3 − 0.0001 = 0.203233… → 0.2032
    const q = quoteReverse(pair(AAA, BBB, 0, 0), d("0.2"));
    expect(s(q.amountFrom)).toBe("0.61");
    expect(s(q.amountTo)).toBe("0.2032");
  });

  it("amount_to 0 needs nothing", () => {
    const q = quoteReverse(pair(BTC, ETH8), d("0"));
    expect(s(q.amountFrom)).toBe("0");
    expect(s(q.amountTo)).toBe("0");
  });
});

describe("unavailable pairs and bad input", () => {
  it("non-positive or malformed price → ok:false, quotes throw PairUnavailableError", () => {
    for (const usdPrice of ["0", "-1", "abc", ""]) {
      const input = pair(BTC, { ...ETH8, usdPrice });
      const l = pairLimits(input);
      expect(l.ok).toBe(false);
      if (!l.ok) expect(l.reason).toMatch(/price of ETH\/ethereum/);
      expect(() => quoteForward(input, d("1"))).toThrow(PairUnavailableError);
      expect(() => quoteReverse(input, d("1"))).toThrow(PairUnavailableError);
      expect(() => midRate(BTC, input.to)).toThrow(PairUnavailableError);
      expect(() => rateBeforeFee(input)).toThrow(PairUnavailableError);
    }
  });

  it("minimum above maximum → ok:false with both limits in the reason", () => {
    // ETH min 0.01 needs 0.00060302 BTC, but BTC max is 0.0006
    const input = pair({ ...BTC, maxAmount: "0.0006" }, ETH8);
    const l = pairLimits(input);
    expect(l).toEqual({
      ok: false,
      reason: "minimum above maximum for BTC/bitcoin → ETH/ethereum (min 0.00060302, max 0.0006)",
    });
    try {
      quoteForward(input, d("0.0006"));
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(PairUnavailableError);
      expect((e as PairUnavailableError).reason).toMatch(/minimum above maximum/);
    }
  });

  it("spread + markup of 100% or more leaves no rate", () => {
    expect(pairLimits(pair(BTC, ETH8, 5000, 5000))).toEqual({
      ok: false,
      reason: "spread and markup leave no rate",
    });
    expect(() => rateBeforeFee(pair(BTC, ETH8, 9000, 2000))).toThrow(PairUnavailableError);
  });

  it("malformed catalog rows → ok:false", () => {
    expect(pairLimits(pair(BTC, { ...ETH8, decimals: 1.5 })).ok).toBe(false);
    expect(pairLimits(pair(BTC, { ...ETH8, withdrawFee: "-0.1" })).ok).toBe(false);
    expect(pairLimits(pair({ ...BTC, minAmount: "0x10" }, ETH8)).ok).toBe(false);
  });

  it("negative amounts and bps are caller bugs → PricingInputError", () => {
    expect(() => quoteForward(pair(BTC, ETH8), new Dec("-1"))).toThrow(PricingInputError);
    expect(() => quoteReverse(pair(BTC, ETH8), new Dec("-1"))).toThrow(PricingInputError);
    expect(() => quoteForward(pair(BTC, ETH8), new Dec(Number.NaN))).toThrow(PricingInputError);
    expect(() => pairLimits(pair(BTC, ETH8, -1, 0))).toThrow(PricingInputError);
    expect(() => pairLimits(pair(BTC, ETH8, 50, Number.POSITIVE_INFINITY))).toThrow(PricingInputError);
    expect(new PricingInputError("x")).toBeInstanceOf(RangeError);
  });
});

// ---- properties ----

/** A decimal string mantissa × 10^-scale, built without number arithmetic. */
const decStr = (maxMantissa: number, maxScale: number, minMantissa = 0): fc.Arbitrary<string> =>
  fc
    .tuple(fc.integer({ min: minMantissa, max: maxMantissa }), fc.integer({ min: 0, max: maxScale }))
    .map(([m, k]) => s(new Dec(`${m}e-${k}`)));

const sideArb: fc.Arbitrary<PricedSide> = fc.record({
  coin: fc.constantFrom("AAA", "BBB", "CCC"),
  network: fc.constant("net"),
  decimals: fc.integer({ min: 0, max: 18 }),
  minAmount: decStr(1_000, 6),
  maxAmount: decStr(1_000_000_000, 2, 1),
  withdrawFee: decStr(1_000, 6),
  usdPrice: decStr(1_000_000_000, 9, 1),
});

const inputArb: fc.Arbitrary<PricingInput> = fc.record({
  from: sideArb,
  to: sideArb,
  spreadBps: fc.integer({ min: 0, max: 500 }),
  markupBps: fc.integer({ min: 0, max: 500 }),
});

const amountArb: fc.Arbitrary<Decimal> = decStr(1_000_000_000_000, 18).map(d);

function limitsOf(input: PricingInput): { min: Decimal; max: Decimal } | undefined {
  const l = pairLimits(input);
  return l.ok ? l : undefined;
}

describe("pricing properties", () => {
  it("amount_to is never negative and never above amount_from × mid", () => {
    fc.assert(
      fc.property(inputArb, amountArb, (input, amount) => {
        fc.pre(limitsOf(input) !== undefined);
        const q = quoteForward(input, amount);
        expect(q.amountTo.isNegative()).toBe(false);
        expect(q.amountTo.lte(amount.times(midRate(input.from, input.to)))).toBe(true);
        expect(q.amountTo.decimalPlaces()).toBeLessThanOrEqual(input.to.decimals);
        expect(q.rate.precision()).toBeLessThanOrEqual(12);
      }),
      FC,
    );
  });

  it("rate is non-increasing in markupBps", () => {
    fc.assert(
      fc.property(
        inputArb,
        fc.integer({ min: 0, max: 500 }),
        fc.integer({ min: 0, max: 500 }),
        amountArb,
        (input, m1, m2, amount) => {
          const [lo, hi] = m1 <= m2 ? [m1, m2] : [m2, m1];
          const low = { ...input, markupBps: lo };
          const high = { ...input, markupBps: hi };
          // A lower markup lowers min but can also lower max (to.max converts back to less), so
          // either side may be unavailable on its own.
          fc.pre(limitsOf(high) !== undefined && limitsOf(low) !== undefined);
          expect(rateBeforeFee(high).lte(rateBeforeFee(low))).toBe(true);
          expect(quoteForward(high, amount).rate.lte(quoteForward(low, amount).rate)).toBe(true);
        },
      ),
      FC,
    );
  });

  it("largestAmountFrom is the largest amount whose payout stays within the given amount_to", () => {
    fc.assert(
      fc.property(inputArb, amountArb, (input, payout) => {
        fc.pre(limitsOf(input) !== undefined);
        const x = largestAmountFrom(input, payout);
        expect(x.decimalPlaces()).toBeLessThanOrEqual(input.from.decimals);
        expect(quoteForward(input, x).amountTo.lte(payout)).toBe(true);
        // Largest: one unit more pays out more than allowed.
        expect(quoteForward(input, x.plus(unit(input.from.decimals))).amountTo.gt(payout)).toBe(true);
      }),
      FC,
    );
  });

  it("pair limits: min ≤ max, min is the smallest amount that pays out ≥ to.min and > 0, max stays ≤ to.max", () => {
    let okCount = 0;
    fc.assert(
      fc.property(inputArb, (input) => {
        const l = limitsOf(input);
        if (l === undefined) return;
        okCount++;
        const { from, to } = input;
        expect(l.min.lte(l.max)).toBe(true);
        expect(l.min.decimalPlaces()).toBeLessThanOrEqual(from.decimals);
        expect(l.max.decimalPlaces()).toBeLessThanOrEqual(from.decimals);
        expect(l.min.gte(d(from.minAmount))).toBe(true);
        expect(l.max.lte(d(from.maxAmount))).toBe(true);
        const atMin = quoteForward(input, l.min).amountTo;
        expect(atMin.isPositive() && !atMin.isZero()).toBe(true);
        expect(atMin.gte(d(to.minAmount))).toBe(true);
        expect(quoteForward(input, l.max).amountTo.lte(d(to.maxAmount))).toBe(true);
        // Minimal: one unit less breaks a rule (below from.min, or pays out too little).
        const less = l.min.minus(unit(from.decimals));
        if (less.gte(d(from.minAmount))) {
          const paid = quoteForward(input, less).amountTo;
          expect(paid.isZero() || paid.lt(d(to.minAmount))).toBe(true);
        }
      }),
      FC,
    );
    // Guard against a generator that only ever produces unavailable pairs.
    expect(okCount).toBeGreaterThan(FC.numRuns / 4);
  });

  it("a pair is refused only when no amount works: neither end of the source range pays out within the rules", () => {
    let refused = 0;
    fc.assert(
      fc.property(inputArb, (input) => {
        if (pairLimits(input).ok) return;
        let rbf: Decimal;
        try {
          rbf = rateBeforeFee(input);
        } catch {
          return; // unusable inputs (no price, say) are refused for that reason, not for limits
        }
        refused++;
        const { from, to } = input;
        // Computed here from the definitions, not by the module: amount_to = floor(a × rate − fee).
        const paysWithinRules = (a: Decimal) => {
          const paid = floorTo(a.mul(rbf).minus(d(to.withdrawFee)), to.decimals);
          return paid.gt(0) && paid.gte(d(to.minAmount)) && paid.lte(d(to.maxAmount));
        };
        for (const a of [
          ceilTo(d(from.minAmount), from.decimals),
          floorTo(d(from.maxAmount), from.decimals),
        ]) {
          if (a.gte(d(from.minAmount)) && a.lte(d(from.maxAmount))) expect(paysWithinRules(a)).toBe(false);
        }
      }),
      FC,
    );
    // The generator does produce refused pairs, so this property is exercised.
    expect(refused).toBeGreaterThan(0);
  });

  it("forward(reverse(x)) ≥ x, and the reverse amount is the smallest that does it", () => {
    fc.assert(
      fc.property(inputArb, decStr(1_000_000_000, 12, 1).map(d), (input, x) => {
        fc.pre(limitsOf(input) !== undefined);
        const r = quoteReverse(input, x);
        expect(r.amountFrom.decimalPlaces()).toBeLessThanOrEqual(input.from.decimals);
        const fwd = quoteForward(input, r.amountFrom);
        expect(fwd.amountTo.gte(x)).toBe(true);
        expect(s(fwd.amountTo)).toBe(s(r.amountTo));
        const less = r.amountFrom.minus(unit(input.from.decimals));
        if (!less.isNegative()) expect(quoteForward(input, less).amountTo.lt(x)).toBe(true);
      }),
      FC,
    );
  });
});
