import { chainIdOf } from "./asset-identity";
import type { OrderEarnings } from "./earnings";
import type { Eta, EtaRange, EtaSource } from "./eta";
import type { StoredFees } from "./fees";
import type { OrderHold } from "./holds";
import { parseDecimal, toJsonNumber } from "./money";
import type { OrderActions } from "./order-actions";
import { type OrderLinks, orderLinks } from "./order-link";
import type { OrderStatus, StatusReason } from "./order-state";
import { type StepTimes, stepDurations } from "./order-timing";
import type { PayoutOperation } from "./payout-activation";
import type { OrderSource } from "./widget";

export type RateType = "float" | "fixed";

/** Everything an OrderObject stores about its order (camelCase; the API view is snake_case). */
export interface OrderRecord extends StepTimes {
  id: string;
  shortId: string;
  partnerId: string;
  status: OrderStatus;
  statusReason: StatusReason | null;
  createdAt: string;
  updatedAt: string;
  expiresAt: string;
  /** End of the late-deposit watch of an expired order. */
  lateWatchEndsAt: string;
  coinFrom: string;
  networkFrom: string;
  contractFrom: string | null;
  decimalsFrom: number;
  coinTo: string;
  networkTo: string;
  contractTo: string | null;
  decimalsTo: number;
  amountFromExpected: string;
  amountToExpected: string;
  rateType: RateType;
  rateQuoted: string;
  quoteId: string | null;
  spreadBps: number;
  markupBps: number;
  depositAddress: string;
  depositAddressTag: string | null;
  /** Canonical form (EIP-55, lower-case bech32, classic XRP address): where the payout goes. */
  recipientAddress: string;
  /** The tag the payout carries (an X-address's own tag, decoded). */
  recipientAddressTag: string | null;
  /** Exactly as the partner sent it: the contract shows recipient_address "as given at creation". */
  recipientAddressGiven: string;
  refundAddress: string | null;
  refundAddressTag: string | null;
  depositTxid: string | null;
  /** Whom the deposit came from, where its chain names a single sender (account chains). */
  depositSender?: string | null;
  /** A screened deposit source's hold (src/domain/holds.ts); absent or null: none. */
  hold?: OrderHold | null;
  /** Output / log index of the deposit inside its transaction. */
  depositIndex: number | null;
  depositConfirmations: number | null;
  depositConfirmationsRequired: number;
  amountFromReceived: string | null;
  amountToActual: string | null;
  payoutTxid: string | null;
  refundTxid: string | null;
  idempotencyKey: string | null;
  /** SHA-256 of the canonical request, to tell a replay from a conflicting reuse of the key. */
  requestHash: string;
  /** The region whose liquidity shard holds this order's reservation; absent: nothing reserved. */
  liquidityRegion?: string;
  /**
   * What the shard reserved for the order at creation (decimal string, in coin_to); absent when the
   * coin was not liquidity-limited then, so its exchange never asks the shard (docs/liquidity.md).
   */
  liquidityReserved?: string;
  /**
   * The reservation waits for the deposit (a widget order: anyone may create one, so only money on
   * its way locks the service's coins): taken when the deposit is seen, checked again before the
   * exchange (docs/liquidity.md, "Widget orders").
   */
  liquidityAtDeposit?: true;
  /**
   * False for a test order (created with a test key): it runs on its own SimChain and simulated
   * venues whatever the deployment's modes (docs/test-mode.md). Absent on orders from before test
   * mode, which are all live.
   */
  livemode?: boolean;
  /**
   * The ledger key of the current exchange, payout or refund when a decision started a new one
   * (`<id>:refund:2` after a refund that failed); absent means `<id>:<kind>`. A key is never reused
   * for another request.
   */
  sendKeys?: Partial<Record<SendKind, string>>;
  /**
   * What the current refund pays (coin units, decimal string), fixed when the refund was decided —
   * by the partner's or operator's action, or by the failure that moved the order to `refunding` —
   * at the amount that decision was priced at. Absent on records from before, whose refund is
   * priced at its first send.
   */
  refundAmountDecided?: string;
  /** The partner's markup on the order, fixed when it completes (docs/earnings.md). */
  earnings?: OrderEarnings;
  /** The widget or referral link the order was created through (docs/widget.md); absent: the API. */
  widgetId?: string;
  /** Created through Ledger's Partner Swap Service (docs/ledger.md): its status changes go to Ledger too. */
  ledgerSwap?: true;
  /**
   * The API key that created the order; absent on widget orders and orders from before, which no
   * app key can read (docs/auth-and-limits.md, "App keys").
   */
  createdByKey?: string;
  /** The fees of amount_to_expected, named at creation (src/domain/fees.ts); absent on older orders. */
  fees?: StoredFees;
  /** When the order became `completed`; absent until then (older orders: earnings.completedAt). */
  completedAt?: string;
  /** The partner's own reference, unique per partner and mode (docs/orders.md). */
  partnerOrderId?: string;
  /** The partner's string pairs, returned as given. */
  metadata?: Record<string, string>;
  /**
   * How the payout must be sent because the recipient account did not exist at creation
   * (src/domain/payout-activation.ts); absent: an ordinary transfer, or nobody could tell.
   */
  payoutOperation?: PayoutOperation;
  /** How long the swap was quoted to take at creation (src/domain/eta.ts); absent on older orders. */
  eta?: Eta;
  /**
   * The least the order pays (docs/orders.md, "The least you receive"): float, from the partner's
   * max_slippage_bps at creation; fixed, amount_to_expected. Absent on orders from before it.
   */
  amountToMin?: string;
  /**
   * What opens the order without a key, with its UUID (src/domain/order-link.ts). Absent on orders
   * created before it, which open by their UUID alone.
   */
  trackToken?: string;
}

export type SendKind = "exchange" | "payout" | "refund";

/** What the Worker decides before the object allocates the deposit address, short id and token. */
export type OrderDraft = Omit<OrderRecord, "shortId" | "depositAddress" | "depositAddressTag" | "trackToken">;

/** The Order of the contract (§2.3) plus the documented extras. */
/**
 * Each side's asset as a wallet names it: its token contract (null: the network's native coin) and
 * its EIP-155 chain id (null off EVM networks), as the request's token_* and chain_id_* name it.
 */
export interface AssetIds {
  token_from: string | null;
  token_to: string | null;
  chain_id_from: number | null;
  chain_id_to: number | null;
}

export function assetIds(
  r: Pick<OrderRecord, "networkFrom" | "contractFrom" | "networkTo" | "contractTo">,
): AssetIds {
  return {
    token_from: r.contractFrom,
    token_to: r.contractTo,
    chain_id_from: chainIdOf(r.networkFrom),
    chain_id_to: chainIdOf(r.networkTo),
  };
}

/**
 * What was paid out, so only once it was: a held or failed order's exchanged amount may never leave
 * (its `actions` offer it instead).
 */
export const paidOut = (r: Pick<OrderRecord, "payoutTxid" | "amountToActual">): string | null =>
  r.payoutTxid === null ? null : r.amountToActual;

export interface OrderView extends OrderLinks, AssetIds {
  id: string;
  short_id: string;
  status: OrderStatus;
  status_reason: StatusReason | null;
  created_at: string;
  updated_at: string;
  expires_at: string;
  coin_from: string;
  network_from: string;
  coin_to: string;
  network_to: string;
  amount_from_expected: number;
  amount_to_expected: number;
  /** The least the order pays; null on orders from before the floor. */
  amount_to_min: number | null;
  amount_from_received: number | null;
  amount_to_actual: number | null;
  rate_type: RateType;
  rate_quoted: number;
  deposit_address: string;
  deposit_address_tag: string | null;
  recipient_address: string;
  recipient_address_tag: string | null;
  refund_address: string | null;
  refund_address_tag: string | null;
  deposit_txid: string | null;
  deposit_confirmations: number | null;
  deposit_confirmations_required: number;
  payout_txid: string | null;
  refund_txid: string | null;
  /** What can be done with the money a failed order holds; null when nothing waits for a decision. */
  actions: OrderActions | null;
  /** False for a test order. */
  livemode: boolean;
  /** `widget` for an order created through a widget or referral link, else `api`. */
  source: OrderSource;
  widget_id: string | null;
  /** The fees of amount_to_expected in coin_to; null on orders from before fees were named. */
  fees: OrderFees | null;
  completed_at: string | null;
  partner_order_id: string | null;
  metadata: Record<string, string> | null;
  /** Seconds from the deposit seen to the payout sent, as quoted at creation; null on older orders. */
  eta_seconds: EtaRange | null;
  eta_source: EtaSource | null;
  /** Seconds from the deposit seen to its confirmation; null until it is confirmed. */
  deposit_confirmation_seconds: number | null;
  /** Seconds from the deposit's confirmation to the payout sent; null until it is sent. */
  payout_seconds: number | null;
  /** The hold a screened deposit source put on the order, while it stands (docs/lifecycle.md, "Holds"). */
  hold: OrderHold | null;
}

/** Fees as the API shows them: numbers in coin_to. */
export interface OrderFees {
  gross: number;
  service: number;
  partner: number;
  network: number;
  coin: string;
}

/** The split in the API's shape. */
export function feesView(f: StoredFees, coin: string): OrderFees {
  return {
    gross: num(f.gross),
    service: num(f.service),
    partner: num(f.partner),
    network: num(f.network),
    coin,
  };
}

const num = (s: string) => toJsonNumber(parseDecimal(s));
/** A stored decimal as the API's JSON number; null stays null. */
export const numOrNull = (s: string | null) => (s === null ? null : num(s));

/** `publicOrigin`: where the keyless links point (CABINET_ORIGIN, the service's public origin). */
export function orderView(
  r: OrderRecord,
  publicOrigin: string,
  actions: OrderActions | null = null,
): OrderView {
  return {
    id: r.id,
    short_id: r.shortId,
    status: r.status,
    status_reason: r.statusReason,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    expires_at: r.expiresAt,
    coin_from: r.coinFrom,
    network_from: r.networkFrom,
    coin_to: r.coinTo,
    network_to: r.networkTo,
    amount_from_expected: num(r.amountFromExpected),
    amount_to_expected: num(r.amountToExpected),
    amount_to_min: r.amountToMin === undefined ? null : num(r.amountToMin),
    amount_from_received: numOrNull(r.amountFromReceived),
    amount_to_actual: numOrNull(paidOut(r)),
    rate_type: r.rateType,
    rate_quoted: num(r.rateQuoted),
    deposit_address: r.depositAddress,
    deposit_address_tag: r.depositAddressTag,
    recipient_address: r.recipientAddressGiven,
    recipient_address_tag: r.recipientAddressTag,
    refund_address: r.refundAddress,
    refund_address_tag: r.refundAddressTag,
    deposit_txid: r.depositTxid,
    deposit_confirmations: r.depositConfirmations,
    deposit_confirmations_required: r.depositConfirmationsRequired,
    payout_txid: r.payoutTxid,
    refund_txid: r.refundTxid,
    actions,
    livemode: isLive(r),
    source: r.widgetId ? "widget" : "api",
    widget_id: r.widgetId ?? null,
    fees: r.fees ? feesView(r.fees, r.coinTo) : null,
    completed_at: r.completedAt ?? r.earnings?.completedAt ?? null,
    partner_order_id: r.partnerOrderId ?? null,
    metadata: r.metadata ?? null,
    eta_seconds: r.eta?.range ?? null,
    eta_source: r.eta?.source ?? null,
    hold: r.hold ?? null,
    ...stepDurations({ ...r, completedAt: r.completedAt ?? r.earnings?.completedAt }),
    ...assetIds(r),
    ...orderLinks(publicOrigin, r),
  };
}

/** Whether an order is live (orders from before test mode carry no flag and are live). */
export const isLive = (r: Pick<OrderRecord, "livemode">): boolean => r.livemode !== false;

/**
 * The order id for a request carrying an Idempotency-Key: a UUID (RFC 9562 version 8) derived from
 * the partner and the key, so concurrent duplicates reach the same OrderObject and create one order.
 */
export async function idempotentOrderId(partnerId: string, key: string): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${partnerId}\n${key}`)),
  );
  const b = digest.slice(0, 16);
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x80;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
