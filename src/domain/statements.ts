// Monthly statements and the payout of a partner's earnings (docs/earnings.md, "Statements").
// Pure: what a month's statement says, given the month's completed orders, the adjustments
// waiting for it, what the previous statement carried over and the partner's minimum.
import { type EarningsRow, summariseEarnings } from "./earnings";
import { DomainError } from "./errors";
import { Dec, type Decimal, floorTo, parseDecimal, toDecimalString } from "./money";

/** A calendar month in UTC, `YYYY-MM`. */
export type Month = string;

export const MONTH_PATTERN = /^\d{4}-(0[1-9]|1[0-2])$/;

/** What a partner may be paid in (issue 30): the operator may restrict it further per deployment. */
export const PAYOUT_ASSETS = [
  { coin: "BTC", network: "BTC" },
  { coin: "ETH", network: "ETH" },
  { coin: "USDC", network: "ETH" },
  { coin: "USDT", network: "TRX" },
] as const;

export const DEFAULT_MINIMUM_USD = "50";
/** How long a new payout address waits before a payout may go to it. */
export const DEFAULT_COOLING_HOURS = 48;

export const STATEMENT_STATUSES = ["pending", "paid", "held", "carried_over"] as const;
export type StatementStatus = (typeof STATEMENT_STATUSES)[number];

/** The month's first instant and the next month's, ISO: a statement counts completions in [from, to). */
export function monthBounds(month: Month): { from: string; to: string } {
  if (!MONTH_PATTERN.test(month))
    throw new DomainError("invalid_amount", `month must be YYYY-MM, not ${month}`);
  const [y, m] = month.split("-").map(Number) as [number, number];
  return {
    from: new Date(Date.UTC(y, m - 1, 1)).toISOString(),
    to: new Date(Date.UTC(y, m, 1)).toISOString(),
  };
}

/** The UTC month an instant (epoch ms) falls in. */
export function monthOf(ms: number): Month {
  return new Date(ms).toISOString().slice(0, 7);
}

export function previousMonth(month: Month): Month {
  const [y, m] = month.split("-").map(Number) as [number, number];
  return monthOf(Date.UTC(y, m - 2, 1));
}

const SIGNED_USD = /^-?\d{1,12}(\.\d{1,6})?$/;

/** A signed USD amount (adjustments may take away): at most 6 decimals, as stored. */
export function parseSignedUsd(text: string): Decimal {
  if (!SIGNED_USD.test(text))
    throw new DomainError(
      "invalid_amount",
      `amount_usd must be a signed decimal with at most 6 decimals, not ${text}`,
    );
  return new Dec(text);
}

export interface AdjustmentLine {
  id: string;
  amount_usd: string;
  reason: string;
}

export interface StatementInput {
  /** The month's completed orders (completed_at inside monthBounds). */
  orders: readonly EarningsRow[];
  /** Every adjustment not yet on a statement. */
  adjustments: readonly AdjustmentLine[];
  /** What the previous statement carried over (0 when it was paid or there was none). */
  carryInUsd: string;
  minimumUsd: string;
}

export interface CoinLine {
  coin: string;
  orders: number;
  markup: string;
  markup_usd: string;
  /** Orders without a USD value (no price at completion): not in markup_usd, so not paid. */
  unpriced: number;
}

export interface StatementTotals {
  lines: CoinLine[];
  adjustments: AdjustmentLine[];
  orders: number;
  earnings_usd: string;
  adjustments_usd: string;
  carry_in_usd: string;
  total_usd: string;
  /** `pending` when the total reaches the minimum, else `carried_over` (the total moves to next month). */
  status: "pending" | "carried_over";
}

/**
 * total = Σ markup_usd of the month's completed orders + Σ adjustments + carry-over. Paid when it
 * reaches the minimum (and is positive); otherwise all of it, negative included, carries over.
 */
export function statementTotals(input: StatementInput): StatementTotals {
  const summary = summariseEarnings(input.orders);
  const adjustments = input.adjustments.reduce((s, a) => s.plus(parseSignedUsd(a.amount_usd)), new Dec(0));
  const carryIn = parseSignedUsd(input.carryInUsd);
  const total = parseDecimal(summary.total_usd).plus(adjustments).plus(carryIn);
  const due = total.gt(0) && total.gte(parseDecimal(input.minimumUsd));
  return {
    lines: summary.coins,
    adjustments: [...input.adjustments],
    orders: summary.orders,
    earnings_usd: summary.total_usd,
    adjustments_usd: toDecimalString(adjustments),
    carry_in_usd: toDecimalString(carryIn),
    total_usd: toDecimalString(total),
    status: due ? "pending" : "carried_over",
  };
}

/** The payout in the asset: total_usd ÷ the asset's USD price, rounded down to its decimals. */
export function payoutAmount(totalUsd: string, assetUsdPrice: string, decimals: number): string {
  const price = parseDecimal(assetUsdPrice);
  if (!price.gt(0)) throw new RangeError("the payout asset's price must be positive");
  return toDecimalString(floorTo(parseDecimal(totalUsd).div(price), decimals));
}

/** Where a payout goes: the asset and the address (another network needs another address). */
export interface PayoutDestination {
  coin: string;
  network: string;
  address: string;
  tag: string | null;
}

/**
 * Where a payout decided at `at` goes: the pending destination once its cooling period is over,
 * the current one before (null: none in effect yet). Fixed on the statement when it is issued, so
 * a later change never redirects it.
 */
export function effectiveDestination(
  current: PayoutDestination | null,
  pending: (PayoutDestination & { effective_at: string }) | null,
  at: string,
): PayoutDestination | null {
  if (pending && pending.effective_at <= at) {
    const { effective_at: _, ...next } = pending;
    return next;
  }
  return current;
}

/** The ledger key of a statement's payout: one per partner, mode, month and round (a release after a refusal starts a new round). */
export function payoutKey(partnerId: string, livemode: boolean, month: Month, round: number): string {
  return `partner-payout:${partnerId}:${livemode ? "live" : "test"}:${month}:${round}`;
}

/** The statement's id: stable per partner, mode and month, so a re-run finds the same one. */
export function statementId(partnerId: string, livemode: boolean, month: Month): string {
  return `stmt_${livemode ? "live" : "test"}_${month.replace("-", "")}_${partnerId}`;
}

export interface OwedRow {
  coin: string | null;
  network: string | null;
  total_usd: string;
  amount: string | null;
}

export interface Owed {
  /** null: the partner has chosen no asset yet. */
  coin: string | null;
  network: string | null;
  statements: number;
  total_usd: string;
  /** In the asset, for the statements already converted (their price is recorded). */
  amount_converted: string;
  /** USD of the statements not converted yet (due later, or waiting for a price or an address). */
  unconverted_usd: string;
}

/** What the unpaid statements add up to per payout asset, for liquidity planning. */
export function owedPerAsset(rows: readonly OwedRow[]): Owed[] {
  const by = new Map<
    string,
    {
      coin: string | null;
      network: string | null;
      n: number;
      usd: Decimal;
      amount: Decimal;
      unconverted: Decimal;
    }
  >();
  for (const r of rows) {
    const k = `${r.coin ?? ""}/${r.network ?? ""}`;
    const acc = by.get(k) ?? {
      coin: r.coin,
      network: r.network,
      n: 0,
      usd: new Dec(0),
      amount: new Dec(0),
      unconverted: new Dec(0),
    };
    by.set(k, acc);
    const usd = parseSignedUsd(r.total_usd);
    acc.n += 1;
    acc.usd = acc.usd.plus(usd);
    if (r.amount === null) acc.unconverted = acc.unconverted.plus(usd);
    else acc.amount = acc.amount.plus(parseDecimal(r.amount));
  }
  return (
    [...by.values()]
      .map((a) => ({
        coin: a.coin,
        network: a.network,
        statements: a.n,
        total_usd: toDecimalString(a.usd),
        amount_converted: toDecimalString(a.amount),
        unconverted_usd: toDecimalString(a.unconverted),
      }))
      // Assets in name order; "no asset chosen" last.
      .sort((x, y) => {
        const a = `${x.coin ?? "~"}/${x.network}`;
        const b = `${y.coin ?? "~"}/${y.network}`;
        return a < b ? -1 : a > b ? 1 : 0;
      })
  );
}
