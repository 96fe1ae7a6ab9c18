// The order index row's searchable and summable part, as the OrderObject projects it to D1.
import { amountExchanged } from "./earnings";
import type { OrderRecord } from "./order";

/** Mirrors storage's OrderIndexDetails (the domain imports nothing from storage). */
export interface IndexDetails {
  rate_type: string;
  amount_from: string;
  amount_to: string;
  deposit_txid: string | null;
  payout_txid: string | null;
  refund_txid: string | null;
  markup_bps: number;
  completed_at: string | null;
  markup_amount: string | null;
  usd_price_from: string | null;
  markup_usd: string | null;
  volume_usd: string | null;
  /** The widget the order came through (migration 0030); null: the API. */
  widget_id: string | null;
  partner_order_id: string | null;
  /** The partner's metadata as JSON text (migration 0039); null when the order has none. */
  metadata: string | null;
  /** When the deposit was first seen (migration 0042): the start of the time an ETA measures. */
  deposit_seen_at: string | null;
  /** What opens the order without a key (migration 0043); null on orders from before it. */
  track_token: string | null;
}

export function indexDetails(r: OrderRecord): IndexDetails {
  const e = r.earnings;
  return {
    rate_type: r.rateType,
    amount_from: amountExchanged(r),
    amount_to: r.amountToActual ?? r.amountToExpected,
    deposit_txid: r.depositTxid,
    payout_txid: r.payoutTxid,
    refund_txid: r.refundTxid,
    markup_bps: r.markupBps,
    completed_at: e?.completedAt ?? null,
    markup_amount: e?.markupAmount ?? null,
    usd_price_from: e?.usdPriceFrom ?? null,
    markup_usd: e?.markupUsd ?? null,
    volume_usd: e?.volumeUsd ?? null,
    widget_id: r.widgetId ?? null,
    partner_order_id: r.partnerOrderId ?? null,
    metadata: r.metadata === undefined ? null : JSON.stringify(r.metadata),
    deposit_seen_at: r.depositSeenAt ?? null,
    track_token: r.trackToken ?? null,
  };
}
