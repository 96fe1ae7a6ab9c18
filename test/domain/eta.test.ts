import { describe, expect, it } from "vitest";
import {
  ETA_MIN_ORDERS,
  EXCHANGE_SECONDS,
  estimateEta,
  PAYOUT_SECONDS,
  pairEta,
  percentile,
  rangeOf,
  settleSeconds,
} from "../../src/domain/eta";
import { ROLLUP_FINALITY_SECONDS } from "../../src/domain/networks";

describe("percentiles", () => {
  it("nearest rank: the smallest value with at least q % of the values at or below it", () => {
    const ten = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(percentile(ten, 50)).toBe(5);
    expect(percentile(ten, 90)).toBe(9);
    expect(percentile(ten, 91)).toBe(10);
    expect(percentile([7], 90)).toBe(7);
    expect(() => percentile([], 50)).toThrow();
  });

  it("rangeOf sorts and rounds up to whole seconds", () => {
    expect(rangeOf([300.2, 100, 200.5, 400, 1000])).toEqual({ p50: 301, p90: 1000 });
  });
});

describe("the estimate", () => {
  const fixed = EXCHANGE_SECONDS + PAYOUT_SECONDS;

  it("one block at random: median ≈ ln 2, 90th percentile ≈ ln 10 block times", () => {
    const e = estimateEta({ confirmations: 1, blockSeconds: 600, pollSeconds: 0 });
    expect(e.p50 - fixed).toBeGreaterThan(600 * Math.LN2 * 0.98);
    expect(e.p50 - fixed).toBeLessThan(600 * Math.LN2 * 1.03);
    expect(e.p90 - fixed).toBeGreaterThan(600 * Math.LN10 * 0.97);
    expect(e.p90 - fixed).toBeLessThan(600 * Math.LN10 * 1.02);
  });

  it("more confirmations take longer, the 90th percentile above the median, the poll and the fixed parts added", () => {
    const two = estimateEta({ confirmations: 2, blockSeconds: 600, pollSeconds: 15 });
    const six = estimateEta({ confirmations: 6, blockSeconds: 600, pollSeconds: 15 });
    expect(six.p50).toBeGreaterThan(two.p50);
    expect(six.p90).toBeGreaterThan(six.p50);
    // Six blocks: the gamma median is ≈ 5.67 block times, its 90th percentile ≈ 9.27.
    expect(six.p50 - 15 - fixed).toBeGreaterThan(600 * 5.6);
    expect(six.p50 - 15 - fixed).toBeLessThan(600 * 5.75);
    expect(six.p90 - 15 - fixed).toBeGreaterThan(600 * 9.1);
    expect(six.p90 - 15 - fixed).toBeLessThan(600 * 9.4);
  });

  it("a rollup's deposit also waits for its block to be final; an L1's does not", () => {
    expect(settleSeconds("ARBITRUM")).toBe(ROLLUP_FINALITY_SECONDS);
    expect(settleSeconds("ETH")).toBe(0);
    const l1 = estimateEta({ confirmations: 1, blockSeconds: 2, pollSeconds: 0 });
    const rollup = estimateEta({
      confirmations: 1,
      blockSeconds: 2,
      settleSeconds: settleSeconds("BASE"),
      pollSeconds: 0,
    });
    expect(rollup.p50 - l1.p50).toBe(ROLLUP_FINALITY_SECONDS);
  });

  it("no confirmations still waits for the block that carries the deposit", () => {
    expect(estimateEta({ confirmations: 0, blockSeconds: 5, pollSeconds: 0 })).toEqual(
      estimateEta({ confirmations: 1, blockSeconds: 5, pollSeconds: 0 }),
    );
  });
});

describe("history or estimate", () => {
  const estimate = { p50: 900, p90: 2000 };

  it("a pair's own figures from ETA_MIN_ORDERS completed orders on", () => {
    expect(pairEta({ orders: ETA_MIN_ORDERS, p50: 400, p90: 700 }, estimate)).toEqual({
      range: { p50: 400, p90: 700 },
      source: "history",
    });
  });

  it("the estimate with fewer orders, or none", () => {
    expect(pairEta({ orders: ETA_MIN_ORDERS - 1, p50: 400, p90: 700 }, estimate)).toEqual({
      range: estimate,
      source: "estimate",
    });
    expect(pairEta(undefined, estimate).source).toBe("estimate");
  });
});
