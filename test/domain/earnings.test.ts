import { describe, expect, it } from "vitest";
import { csvField } from "../../src/domain/csv";
import { type EarningsRow, orderEarnings, summariseEarnings } from "../../src/domain/earnings";
import { overview } from "../../src/domain/overview";

const order = { amountFromReceived: "0.01", amountFromExpected: "0.02", markupBps: 100, decimalsFrom: 8 };

describe("orderEarnings", () => {
  it("is amount exchanged × markup ÷ 10 000 in coin_from, valued at the completion price", () => {
    expect(orderEarnings(order, "2026-11-23T10:00:00.000Z", "60000")).toEqual({
      completedAt: "2026-11-23T10:00:00.000Z",
      markupAmount: "0.0001",
      usdPriceFrom: "60000",
      markupUsd: "6",
      volumeUsd: "600",
    });
  });

  it("uses the expected amount when nothing was received, rounds down to the coin's decimals", () => {
    const e = orderEarnings(
      { amountFromReceived: null, amountFromExpected: "0.123456789", markupBps: 33, decimalsFrom: 6 },
      "t",
      "2.5",
    );
    // 0.123456789 × 0.0033 = 0.000407407… → 0.000407 at 6 decimals; × 2.5 = 0.0010175
    expect(e).toMatchObject({ markupAmount: "0.000407", markupUsd: "0.001017", volumeUsd: "0.308641" });
  });

  it("leaves USD unknown without a price, and is zero without a markup", () => {
    expect(orderEarnings(order, "t", null)).toMatchObject({
      markupAmount: "0.0001",
      markupUsd: null,
      volumeUsd: null,
    });
    expect(orderEarnings({ ...order, markupBps: 0 }, "t", "1")).toMatchObject({
      markupAmount: "0",
      markupUsd: "0",
    });
  });
});

const row = (completed_at: string, coin_from: string, markup: string, usd: string | null): EarningsRow => ({
  completed_at,
  coin_from,
  markup_amount: markup,
  markup_usd: usd,
  volume_usd: usd === null ? null : String(Number(usd) * 100),
});

describe("summariseEarnings", () => {
  it("sums per UTC day and coin in decimal arithmetic, newest day first; unpriced orders are counted apart", () => {
    const s = summariseEarnings([
      row("2026-11-22T23:59:59.000Z", "BTC", "0.1", "0.1"),
      row("2026-11-22T01:00:00.000Z", "BTC", "0.2", "0.2"),
      row("2026-11-23T00:00:00.000Z", "BTC", "0.3", null),
      row("2026-11-23T05:00:00.000Z", "ETH", "1", "3000"),
    ]);
    expect(s.lines).toEqual([
      { day: "2026-11-23", coin: "BTC", orders: 1, markup: "0.3", markup_usd: "0", unpriced: 1 },
      { day: "2026-11-23", coin: "ETH", orders: 1, markup: "1", markup_usd: "3000", unpriced: 0 },
      // 0.1 + 0.2 is exactly 0.3 here, not 0.30000000000000004.
      { day: "2026-11-22", coin: "BTC", orders: 2, markup: "0.3", markup_usd: "0.3", unpriced: 0 },
    ]);
    expect(s.coins).toEqual([
      { coin: "BTC", orders: 3, markup: "0.6", markup_usd: "0.3", unpriced: 1 },
      { coin: "ETH", orders: 1, markup: "1", markup_usd: "3000", unpriced: 0 },
    ]);
    expect(s).toMatchObject({ total_usd: "3000.3", volume_usd: "300030", orders: 4 });
  });
});

describe("overview", () => {
  it("counts today, 7 and 30 days; conversion of the orders created; a 30-day series", () => {
    const now = Date.parse("2026-11-23T12:00:00Z");
    const o = overview(
      [
        { day: "2026-10-20", created: 50, completed: 50 }, // outside 30 days
        { day: "2026-11-01", created: 10, completed: 5 },
        { day: "2026-11-20", created: 4, completed: 1 },
        { day: "2026-11-23", created: 2, completed: 1 },
      ],
      [row("2026-11-01T10:00:00Z", "BTC", "0.1", "6"), row("2026-11-23T10:00:00Z", "BTC", "0.1", "6.5")],
      now,
    );
    expect(o.windows).toEqual([
      { label: "Today", created: 2, completed: 1, conversion: 0.5, volume_usd: "650", earnings_usd: "6.5" },
      {
        label: "7 days",
        created: 6,
        completed: 2,
        conversion: 2 / 6,
        volume_usd: "650",
        earnings_usd: "6.5",
      },
      {
        label: "30 days",
        created: 16,
        completed: 7,
        conversion: 7 / 16,
        volume_usd: "1250",
        earnings_usd: "12.5",
      },
    ]);
    expect(o.chart.days).toHaveLength(30);
    expect(o.chart.days[0]).toBe("2026-10-25");
    expect(o.chart.days.at(-1)).toBe("2026-11-23");
    expect(o.chart.orders.at(-1)).toBe(2);
    expect(o.chart.earnings.at(-1)).toBe(6.5);
    expect(o.chart.earnings[o.chart.days.indexOf("2026-11-01")]).toBe(6);
    expect(overview([], [], now).windows[0]?.conversion).toBeNull();
  });
});

describe("csvField", () => {
  it("quotes separators and defuses spreadsheet formulas", () => {
    expect(csvField('a,"b"')).toBe('"a,""b"""');
    expect(csvField("=HYPERLINK(1)")).toBe("'=HYPERLINK(1)");
    expect(csvField(null)).toBe("");
    expect(csvField(3)).toBe("3");
  });
});
