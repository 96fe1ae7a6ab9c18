// The overview's figures: orders, completed volume, conversion and earnings for today and the
// last 7 and 30 days, and the daily series the chart draws. Pure: counts and earnings in, figures out.
import { type EarningsRow, summariseEarnings } from "./earnings";
import { Dec, type Decimal, parseDecimal, toDecimalString } from "./money";

export interface DayCount {
  day: string;
  created: number;
  completed: number;
}

export interface WindowFigures {
  label: string;
  created: number;
  /** Orders created in the window that are completed now. */
  completed: number;
  /** completed ÷ created of the orders created in the window; null when none were created. */
  conversion: number | null;
  /** Of the orders completed in the window: the amount exchanged, and the markup, in USD at completion. */
  volume_usd: string;
  earnings_usd: string;
}

export interface Overview {
  windows: WindowFigures[];
  chart: { days: string[]; orders: number[]; earnings: number[] };
}

export const CHART_DAYS = 30;
const DAY_MS = 86_400_000;

/** The UTC day `n` days before `now`'s, as YYYY-MM-DD. */
export function dayBefore(now: number, n: number): string {
  return new Date(now - n * DAY_MS).toISOString().slice(0, 10);
}

export function overview(
  counts: readonly DayCount[],
  completed: readonly EarningsRow[],
  now: number,
): Overview {
  const windows = (
    [
      ["Today", 0],
      ["7 days", 6],
      ["30 days", CHART_DAYS - 1],
    ] as const
  ).map(([label, back]) => {
    const from = dayBefore(now, back);
    const inWindow = counts.filter((c) => c.day >= from);
    const created = inWindow.reduce((n, c) => n + c.created, 0);
    const done = inWindow.reduce((n, c) => n + c.completed, 0);
    const sums = summariseEarnings(completed.filter((r) => r.completed_at.slice(0, 10) >= from));
    return {
      label,
      created,
      completed: done,
      conversion: created === 0 ? null : done / created,
      volume_usd: sums.volume_usd,
      earnings_usd: sums.total_usd,
    };
  });
  const days = Array.from({ length: CHART_DAYS }, (_, i) => dayBefore(now, CHART_DAYS - 1 - i));
  const perDay = new Map<string, Decimal>();
  for (const l of summariseEarnings(completed).lines)
    perDay.set(l.day, (perDay.get(l.day) ?? new Dec(0)).plus(parseDecimal(l.markup_usd)));
  const created = new Map(counts.map((c) => [c.day, c.created]));
  return {
    windows,
    chart: {
      days,
      orders: days.map((d) => created.get(d) ?? 0),
      // Chart points only: the figures above stay decimal strings.
      earnings: days.map((d) => Number(toDecimalString((perDay.get(d) ?? new Dec(0)).toDecimalPlaces(2)))),
    },
  };
}
