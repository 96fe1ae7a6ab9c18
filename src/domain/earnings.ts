// The partner's earnings (docs/earnings.md): the markup it adds to the rate, taken on each
// completed order. The rate paid is mid × (1 − (spread + markup)/10000), so of the amount
// exchanged, `amount_from × markup_bps / 10000` (in coin_from) is the partner's. Valued in USD at
// coin_from's price when the order completes; both are fixed then, so history never changes.
import { bps, Dec, type Decimal, floorTo, parseDecimal, toDecimalString } from "./money";
import type { OrderRecord } from "./order";

/** Stored on the order when it completes. */
export interface OrderEarnings {
  completedAt: string;
  /** coin_from units, rounded down to the coin's decimals. */
  markupAmount: string;
  /** coin_from's USD price at completion; null when no price was stored then. */
  usdPriceFrom: string | null;
  markupUsd: string | null;
  /** The amount exchanged, in USD at the same price. */
  volumeUsd: string | null;
}

/** USD values keep cents and a little more: enough to sum without visible rounding. */
const USD_DECIMALS = 6;

/** The amount an order exchanged (or will): what it received once known, else what was expected. */
export function amountExchanged(r: Pick<OrderRecord, "amountFromReceived" | "amountFromExpected">): string {
  return r.amountFromReceived ?? r.amountFromExpected;
}

export function orderEarnings(
  r: Pick<OrderRecord, "amountFromReceived" | "amountFromExpected" | "markupBps" | "decimalsFrom">,
  completedAt: string,
  usdPriceFrom: string | null,
): OrderEarnings {
  const amount = parseDecimal(amountExchanged(r));
  const markup = floorTo(amount.times(bps(r.markupBps)), r.decimalsFrom);
  const price = usdPriceFrom === null ? null : parseDecimal(usdPriceFrom);
  const usd = (x: Decimal) =>
    price === null ? null : toDecimalString(floorTo(x.times(price), USD_DECIMALS));
  return {
    completedAt,
    markupAmount: toDecimalString(markup),
    usdPriceFrom,
    markupUsd: usd(markup),
    volumeUsd: usd(amount),
  };
}

/** One completed order as the earnings report reads it from the index. */
export interface EarningsRow {
  completed_at: string;
  coin_from: string;
  markup_amount: string | null;
  markup_usd: string | null;
  volume_usd: string | null;
}

export interface EarningsLine {
  day: string;
  coin: string;
  orders: number;
  markup: string;
  markup_usd: string;
  /** Orders whose USD value is unknown (no price stored at completion): not in markup_usd. */
  unpriced: number;
}

export interface EarningsSummary {
  /** Per day (UTC) and coin, newest day first, coins in name order. */
  lines: EarningsLine[];
  /** Per coin over the whole range. */
  coins: Omit<EarningsLine, "day">[];
  total_usd: string;
  volume_usd: string;
  orders: number;
}

interface Acc {
  orders: number;
  markup: Decimal;
  usd: Decimal;
  unpriced: number;
}

const zero = (): Acc => ({ orders: 0, markup: new Dec(0), usd: new Dec(0), unpriced: 0 });

function add(acc: Acc, row: EarningsRow): void {
  acc.orders += 1;
  acc.markup = acc.markup.plus(parseDecimal(row.markup_amount ?? "0"));
  if (row.markup_usd === null) acc.unpriced += 1;
  else acc.usd = acc.usd.plus(parseDecimal(row.markup_usd));
}

const line = (a: Acc) => ({
  orders: a.orders,
  markup: toDecimalString(a.markup),
  markup_usd: toDecimalString(a.usd),
  unpriced: a.unpriced,
});

/** Sums completed orders per UTC day and coin, in decimal arithmetic. */
export function summariseEarnings(rows: Iterable<EarningsRow>): EarningsSummary {
  const byDay = new Map<string, Acc>();
  const byCoin = new Map<string, Acc>();
  let total = new Dec(0);
  let volume = new Dec(0);
  let orders = 0;
  for (const row of rows) {
    const dayKey = `${row.completed_at.slice(0, 10)}\n${row.coin_from}`;
    for (const [map, key] of [
      [byDay, dayKey],
      [byCoin, row.coin_from],
    ] as const) {
      const acc = map.get(key) ?? zero();
      map.set(key, acc);
      add(acc, row);
    }
    if (row.markup_usd !== null) total = total.plus(parseDecimal(row.markup_usd));
    if (row.volume_usd !== null) volume = volume.plus(parseDecimal(row.volume_usd));
    orders += 1;
  }
  const lines = [...byDay.entries()]
    .map(([key, acc]) => {
      const [day = "", coin = ""] = key.split("\n");
      return { day, coin, ...line(acc) };
    })
    .sort((a, b) => (a.day === b.day ? a.coin.localeCompare(b.coin) : a.day < b.day ? 1 : -1));
  const coins = [...byCoin.entries()]
    .map(([coin, acc]) => ({ coin, ...line(acc) }))
    .sort((a, b) => a.coin.localeCompare(b.coin));
  return {
    lines,
    coins,
    total_usd: toDecimalString(total),
    volume_usd: toDecimalString(volume),
    orders,
  };
}
