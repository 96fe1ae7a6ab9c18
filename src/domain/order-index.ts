// The order index row's searchable and summable part, as the OrderObject projects it to D1.
import { amountExchanged } from "./earnings";
import type { OrderHold } from "./holds";
import { type AssetIds, assetIds, numOrNull, type OrderRecord, paidOut } from "./order";
import type { StatusReason } from "./order-state";

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
  // The order's public view (migration 0049), as stored: null on rows projected before it.
  status_reason: StatusReason | null;
  amount_from_expected: string | null;
  amount_to_expected: string | null;
  amount_from_received: string | null;
  /** Only once paid out, as the view's amount_to_actual. */
  amount_to_actual: string | null;
  rate_quoted: string | null;
  recipient_address: string | null;
  recipient_address_tag: string | null;
  refund_address: string | null;
  refund_address_tag: string | null;
  contract_from: string | null;
  contract_to: string | null;
  /** The screened deposit's hold as JSON text (migration 0055); null while none stands. */
  hold: string | null;
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
    status_reason: r.statusReason,
    amount_from_expected: r.amountFromExpected,
    amount_to_expected: r.amountToExpected,
    amount_from_received: r.amountFromReceived,
    amount_to_actual: paidOut(r),
    rate_quoted: r.rateQuoted,
    recipient_address: r.recipientAddressGiven,
    recipient_address_tag: r.recipientAddressTag,
    refund_address: r.refundAddress,
    refund_address_tag: r.refundAddressTag,
    contract_from: r.contractFrom,
    contract_to: r.contractTo,
    hold: r.hold ? JSON.stringify(r.hold) : null,
  };
}

/** The index columns listedView reads. */
export const LISTED_VIEW_COLUMNS = [
  "status_reason",
  "rate_type",
  "amount_from_expected",
  "amount_to_expected",
  "amount_from_received",
  "amount_to_actual",
  "rate_quoted",
  "recipient_address",
  "recipient_address_tag",
  "refund_address",
  "refund_address_tag",
  "deposit_txid",
  "payout_txid",
  "refund_txid",
  "contract_from",
  "contract_to",
  "hold",
] as const satisfies readonly (keyof IndexDetails)[];

type ListedViewRow = Pick<IndexDetails, (typeof LISTED_VIEW_COLUMNS)[number]> & {
  network_from: string;
  network_to: string;
};

/**
 * An index row's part of the order's public view, shaped as the order's own view shows it, for the
 * list's rows (GET /partner/orders): one paged call by date reports a month, no read per order.
 * A row projected before migration 0049 has nulls (its token fields too) until its order changes.
 */
export function listedView(r: ListedViewRow) {
  return {
    status_reason: r.status_reason,
    rate_type: r.rate_type as "float" | "fixed",
    amount_from_expected: numOrNull(r.amount_from_expected),
    amount_to_expected: numOrNull(r.amount_to_expected),
    amount_from_received: numOrNull(r.amount_from_received),
    amount_to_actual: numOrNull(r.amount_to_actual),
    rate_quoted: numOrNull(r.rate_quoted),
    recipient_address: r.recipient_address,
    recipient_address_tag: r.recipient_address_tag,
    refund_address: r.refund_address,
    refund_address_tag: r.refund_address_tag,
    deposit_txid: r.deposit_txid,
    payout_txid: r.payout_txid,
    refund_txid: r.refund_txid,
    hold: r.hold === null ? null : (JSON.parse(r.hold) as OrderHold),
    ...(assetIds({
      networkFrom: r.network_from,
      contractFrom: r.contract_from,
      networkTo: r.network_to,
      contractTo: r.contract_to,
    }) satisfies AssetIds),
  };
}
