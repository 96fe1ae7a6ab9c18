import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  bps,
  ceilTo,
  Dec,
  type Decimal,
  floorTo,
  InvalidDecimalError,
  parseDecimal,
  toDecimalString,
  toJsonNumber,
  toSignificant,
  tryParseDecimal,
  unit,
} from "../../src/domain/money";

const FC = { seed: 20_240_611, numRuns: 500 } as const;

// Storage format shared with the order code (src/domain/order-state.ts).
const STORED = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

describe("parsing", () => {
  it("accepts unsigned decimal strings and finite non-negative JSON numbers", () => {
    expect(toDecimalString(parseDecimal("0.1"))).toBe("0.1");
    expect(toDecimalString(parseDecimal("000123.4500"))).toBe("123.45");
    expect(toDecimalString(parseDecimal("1."))).toBe("1");
    expect(toDecimalString(parseDecimal(".5"))).toBe("0.5");
    expect(toDecimalString(parseDecimal("1e-7"))).toBe("0.0000001");
    expect(toDecimalString(parseDecimal(0.1))).toBe("0.1");
    expect(toDecimalString(parseDecimal(1e-7))).toBe("0.0000001");
    expect(toDecimalString(parseDecimal(1e21))).toBe("1000000000000000000000");
    expect(toDecimalString(parseDecimal(0))).toBe("0");
    expect(toDecimalString(parseDecimal(-0))).toBe("0");
    expect(parseDecimal(-0).isNegative()).toBe(false);
    expect(toDecimalString(parseDecimal("0.000000000000000001"))).toBe("0.000000000000000001");
  });

  it.each([
    ["", "empty"],
    [" 1", "not an unsigned decimal"],
    ["1 ", "not an unsigned decimal"],
    ["-1", "not an unsigned decimal"],
    ["+1", "not an unsigned decimal"],
    ["0x10", "not an unsigned decimal"],
    ["0b1", "not an unsigned decimal"],
    ["NaN", "not an unsigned decimal"],
    ["Infinity", "not an unsigned decimal"],
    ["1,5", "not an unsigned decimal"],
    [".", "not an unsigned decimal"],
    ["1e", "not an unsigned decimal"],
    ["1e31", "too large"],
    ["1e-31", "too small"],
    ["1".repeat(81), "too long"],
    [Number.NaN, "not a finite number"],
    [Number.POSITIVE_INFINITY, "not a finite number"],
    [-0.5, "negative"],
    [null, "not a string or number"],
    [true, "not a string or number"],
    [10n, "not a string or number"],
  ])("rejects %s (%s)", (input, why) => {
    expect(tryParseDecimal(input)).toBeUndefined();
    try {
      parseDecimal(input);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidDecimalError);
      expect(e).toBeInstanceOf(RangeError);
      expect((e as InvalidDecimalError).why).toBe(why);
    }
  });

  it("zero in any spelling parses (positivity is the caller's rule)", () => {
    expect(toDecimalString(parseDecimal("0e-999"))).toBe("0");
    expect(toDecimalString(parseDecimal("0.000"))).toBe("0");
  });
});

describe("rounding helpers", () => {
  it("floorTo / ceilTo / unit", () => {
    const x = parseDecimal("1.23456789");
    expect(toDecimalString(floorTo(x, 4))).toBe("1.2345");
    expect(toDecimalString(ceilTo(x, 4))).toBe("1.2346");
    expect(toDecimalString(floorTo(x, 0))).toBe("1");
    expect(toDecimalString(ceilTo(x, 0))).toBe("2");
    expect(toDecimalString(ceilTo(parseDecimal("1.2"), 4))).toBe("1.2");
    // Towards −∞ / +∞, not towards zero, so the direction holds for a negative intermediate.
    expect(toDecimalString(floorTo(new Dec("-0.0011"), 3))).toBe("-0.002");
    expect(toDecimalString(ceilTo(new Dec("-0.0011"), 3))).toBe("-0.001");
    expect(toDecimalString(unit(8))).toBe("0.00000001");
    expect(toDecimalString(unit(0))).toBe("1");
    expect(() => floorTo(x, -1)).toThrow(RangeError);
    expect(() => ceilTo(x, 1.5)).toThrow(RangeError);
    expect(() => unit(31)).toThrow(RangeError);
  });

  it("toSignificant keeps at most 12 digits, rounding down", () => {
    expect(toDecimalString(toSignificant(parseDecimal("19.883799998671599891")))).toBe("19.8837999986");
    expect(toDecimalString(toSignificant(parseDecimal("0.0000166666666666666666")))).toBe(
      "0.0000166666666666",
    );
    expect(toDecimalString(toSignificant(parseDecimal("123456789012999")))).toBe("123456789012000");
    expect(toDecimalString(toSignificant(parseDecimal("19.88")))).toBe("19.88");
    expect(toDecimalString(toSignificant(parseDecimal("0.129"), 2))).toBe("0.12");
  });

  it("toJsonNumber and toDecimalString", () => {
    expect(toJsonNumber(parseDecimal("1.988"))).toBe(1.988);
    expect(toJsonNumber(parseDecimal("0.00000001"))).toBe(1e-8);
    expect(toJsonNumber(new Dec("-0"))).toBe(0);
    expect(Object.is(toJsonNumber(new Dec("-0")), -0)).toBe(false);
    expect(toDecimalString(new Dec("1e-20"))).toBe("0.00000000000000000001");
    expect(toDecimalString(new Dec("1e25"))).toBe("10000000000000000000000000");
    expect(toDecimalString(new Dec("-0"))).toBe("0");
    expect(() => toJsonNumber(new Dec(Number.NaN))).toThrow(RangeError);
    expect(() => toDecimalString(new Dec(Number.POSITIVE_INFINITY))).toThrow(RangeError);
  });

  it("bps", () => {
    expect(toDecimalString(bps(50))).toBe("0.005");
    expect(toDecimalString(bps(10_000))).toBe("1");
    expect(toDecimalString(bps(0))).toBe("0");
    expect(() => bps(Number.NaN)).toThrow(RangeError);
  });

  it("bps: a fraction asked again is the one made before, and still exact", () => {
    const first = bps(37.5);
    expect(bps(37.5)).toBe(first);
    expect(toDecimalString(bps(37.5))).toBe("0.00375");
    expect(() => bps(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(() => bps(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });

  it("the private clone works at 50 digits and truncates", () => {
    expect(Dec.precision).toBe(50);
    expect(Dec.rounding).toBe(Dec.ROUND_DOWN);
    // 2/3 at 50 digits, truncated (not rounded up to …67)
    expect(new Dec(2).div(3).toString()).toBe(`0.${"6".repeat(50)}`);
  });
});

/** Non-negative decimals with up to 30 integer-ish digits and up to 30 decimals. */
const decArb: fc.Arbitrary<Decimal> = fc
  .tuple(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.integer({ min: 0, max: 30 }))
  .map(([m, k]) => new Dec(`${m}e-${k}`));
const signedDecArb: fc.Arbitrary<Decimal> = fc
  .tuple(decArb, fc.boolean())
  .map(([x, neg]) => (neg ? x.negated() : x));

describe("money properties", () => {
  it("floorTo / ceilTo are idempotent and bracket the input within one unit", () => {
    fc.assert(
      fc.property(signedDecArb, fc.integer({ min: 0, max: 30 }), (x, k) => {
        const f = floorTo(x, k);
        const c = ceilTo(x, k);
        expect(floorTo(f, k).eq(f)).toBe(true);
        expect(ceilTo(c, k).eq(c)).toBe(true);
        expect(f.lte(x) && x.lte(c)).toBe(true);
        expect(c.minus(f).lte(unit(k))).toBe(true);
        expect(f.decimalPlaces()).toBeLessThanOrEqual(k);
        expect(c.decimalPlaces()).toBeLessThanOrEqual(k);
      }),
      FC,
    );
  });

  it("toSignificant gives ≤ 12 significant digits, never exceeds the input, and is idempotent", () => {
    fc.assert(
      fc.property(signedDecArb, (x) => {
        const t = toSignificant(x, 12);
        expect(t.precision()).toBeLessThanOrEqual(12);
        expect(t.lte(x)).toBe(true);
        expect(toSignificant(t, 12).eq(t)).toBe(true);
      }),
      FC,
    );
  });

  it("toDecimalString is plain, storage-shaped and parses back to the same value", () => {
    fc.assert(
      fc.property(decArb, (x) => {
        const str = toDecimalString(x);
        expect(str).toMatch(STORED);
        expect(str.includes(".") && str.endsWith("0")).toBe(false);
        expect(parseDecimal(str).eq(x)).toBe(true);
      }),
      FC,
    );
  });

  it("toJsonNumber round-trips values of up to 15 significant digits", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 999_999_999_999_999 }),
        fc.integer({ min: 0, max: 18 }),
        (m, k) => {
          const x = new Dec(`${m}e-${k}`);
          expect(parseDecimal(toJsonNumber(x)).eq(x)).toBe(true);
        },
      ),
      FC,
    );
  });
});
