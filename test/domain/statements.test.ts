import { describe, expect, it } from "vitest";
import type { EarningsRow } from "../../src/domain/earnings";
import {
  effectiveDestination,
  monthBounds,
  monthOf,
  owedPerAsset,
  payoutAmount,
  previousMonth,
  statementTotals,
} from "../../src/domain/statements";

const row = (completed_at: string, markup_usd: string | null, coin = "BTC"): EarningsRow => ({
  completed_at,
  coin_from: coin,
  markup_amount: "0.0001",
  markup_usd,
  volume_usd: null,
});

/** What the storage query does with the bounds: completed_at in [from, to). */
const inMonth = (rows: EarningsRow[], month: string) => {
  const { from, to } = monthBounds(month);
  return rows.filter((r) => r.completed_at >= from && r.completed_at < to);
};

describe("month boundaries (UTC)", () => {
  it("an order completed at 23:59:59.999 on the last day belongs to that month, one at 00:00:00 to the next", () => {
    const rows = [row("2026-10-31T23:59:59.999Z", "1"), row("2026-11-01T00:00:00.000Z", "2")];
    expect(inMonth(rows, "2026-10").map((r) => r.markup_usd)).toEqual(["1"]);
    expect(inMonth(rows, "2026-11").map((r) => r.markup_usd)).toEqual(["2"]);
    expect(monthBounds("2026-12")).toEqual({
      from: "2026-12-01T00:00:00.000Z",
      to: "2027-01-01T00:00:00.000Z",
    });
    expect(monthBounds("2028-02").to).toBe("2028-03-01T00:00:00.000Z");
  });

  it("monthOf and previousMonth work in UTC and across years", () => {
    expect(monthOf(Date.parse("2026-10-31T23:59:59.999Z"))).toBe("2026-10");
    expect(monthOf(Date.parse("2026-11-01T00:00:00.000Z"))).toBe("2026-11");
    expect(previousMonth("2027-01")).toBe("2026-12");
    expect(previousMonth("2026-03")).toBe("2026-02");
  });

  it("refuses a malformed month", () => {
    expect(() => monthBounds("2026-13")).toThrow(/YYYY-MM/);
    expect(() => monthBounds("2026-1")).toThrow(/YYYY-MM/);
  });
});

describe("statementTotals", () => {
  const base = { adjustments: [], carryInUsd: "0", minimumUsd: "50" };

  it("sums the month's earnings per coin and in USD, exactly", () => {
    const t = statementTotals({
      ...base,
      orders: [
        row("2026-10-02T00:00:00.000Z", "30.100001"),
        row("2026-10-03T00:00:00.000Z", "20.2", "ETH"),
        row("2026-10-04T00:00:00.000Z", null, "ETH"),
      ],
    });
    expect(t).toMatchObject({
      orders: 3,
      earnings_usd: "50.300001",
      total_usd: "50.300001",
      status: "pending",
    });
    expect(t.lines.map((l) => [l.coin, l.orders, l.markup_usd, l.unpriced])).toEqual([
      ["BTC", 1, "30.100001", 0],
      ["ETH", 2, "20.2", 1],
    ]);
  });

  it("below the minimum everything carries over; next month's carry-in brings it above", () => {
    const first = statementTotals({ ...base, orders: [row("2026-10-02T00:00:00.000Z", "49.999999")] });
    expect(first).toMatchObject({ total_usd: "49.999999", status: "carried_over" });
    const second = statementTotals({
      ...base,
      carryInUsd: first.total_usd,
      orders: [row("2026-11-02T00:00:00.000Z", "0.000001")],
    });
    expect(second).toMatchObject({ carry_in_usd: "49.999999", total_usd: "50", status: "pending" });
  });

  it("adds adjustments with their reasons; a negative total is carried, never paid", () => {
    const t = statementTotals({
      ...base,
      orders: [row("2026-10-02T00:00:00.000Z", "60")],
      adjustments: [
        { id: "a1", amount_usd: "-15.5", reason: "order refunded after completion" },
        { id: "a2", amount_usd: "5", reason: "goodwill" },
      ],
    });
    expect(t).toMatchObject({ adjustments_usd: "-10.5", total_usd: "49.5", status: "carried_over" });
    expect(t.adjustments.map((a) => a.reason)).toEqual(["order refunded after completion", "goodwill"]);
    const negative = statementTotals({ ...base, minimumUsd: "0", orders: [], carryInUsd: "-3" });
    expect(negative).toMatchObject({ total_usd: "-3", status: "carried_over" });
  });
});

describe("payoutAmount", () => {
  it("converts at the recorded price, rounded down to the asset's decimals", () => {
    expect(payoutAmount("100", "60000", 8)).toBe("0.00166666");
    expect(payoutAmount("50.123456", "1", 6)).toBe("50.123456");
    expect(() => payoutAmount("1", "0", 8)).toThrow(/positive/);
  });
});

describe("effectiveDestination (cooling period)", () => {
  const old = { coin: "USDT", network: "TRX", address: "old", tag: null };
  const pending = {
    coin: "BTC",
    network: "BTC",
    address: "new",
    tag: null,
    effective_at: "2026-11-03T00:00:00.000Z",
  };
  it("the old destination until the change takes effect, the new one (asset too) from then", () => {
    expect(effectiveDestination(old, pending, "2026-11-02T23:59:59.999Z")).toEqual(old);
    expect(effectiveDestination(old, pending, "2026-11-03T00:00:00.000Z")).toEqual({
      coin: "BTC",
      network: "BTC",
      address: "new",
      tag: null,
    });
    expect(effectiveDestination(old, null, "2030-01-01T00:00:00.000Z")).toEqual(old);
    expect(effectiveDestination(null, pending, "2026-11-01T00:00:00.000Z")).toBeNull();
  });
});

describe("owedPerAsset", () => {
  it("sums unpaid statements per asset: converted amounts in the asset, the rest in USD", () => {
    expect(
      owedPerAsset([
        { coin: "BTC", network: "BTC", total_usd: "100", amount: "0.00166666" },
        { coin: "BTC", network: "BTC", total_usd: "60", amount: null },
        { coin: "USDT", network: "TRX", total_usd: "75.5", amount: "75.5" },
        { coin: null, network: null, total_usd: "55", amount: null },
      ]),
    ).toEqual([
      {
        coin: "BTC",
        network: "BTC",
        statements: 2,
        total_usd: "160",
        amount_converted: "0.00166666",
        unconverted_usd: "60",
      },
      {
        coin: "USDT",
        network: "TRX",
        statements: 1,
        total_usd: "75.5",
        amount_converted: "75.5",
        unconverted_usd: "0",
      },
      {
        coin: null,
        network: null,
        statements: 1,
        total_usd: "55",
        amount_converted: "0",
        unconverted_usd: "55",
      },
    ]);
  });
});
