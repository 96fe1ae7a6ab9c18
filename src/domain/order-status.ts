// What the person who swaps may see of an order without a key: the keyless status
// (GET /api/v1/orders/{id}/status) and the tracking page's timeline in plain words.
import type { OrderView } from "./order";
import type { OrderStatus, StatusReason } from "./order-state";

/**
 * An address with its middle hidden: enough to recognise one's own wallet (first 6 and last 4
 * characters), not enough to learn it. Short values keep only their ends.
 */
export function maskAddress(address: string): string {
  if (address.length <= 10) return `${address.slice(0, 2)}…${address.slice(-2)}`;
  return `${address.slice(0, 6)}…${address.slice(-4)}`;
}

/**
 * The keyless status of an order: never the partner, never a full payout or refund address. Its
 * shape is stated once, by the route's OrderStatusSchema (the contract); this mapping is checked
 * against it where the route answers with it, and the type is the mapping's.
 */
export type PublicOrderStatus = ReturnType<typeof publicOrderStatus>;

export function publicOrderStatus(o: OrderView) {
  return {
    id: o.id,
    status: o.status,
    status_reason: o.status_reason,
    coin_from: o.coin_from,
    network_from: o.network_from,
    coin_to: o.coin_to,
    network_to: o.network_to,
    rate_type: o.rate_type,
    amount_from_expected: o.amount_from_expected,
    amount_from_received: o.amount_from_received,
    amount_to_expected: o.amount_to_expected,
    amount_to_actual: o.amount_to_actual,
    amount_to_min: o.amount_to_min,
    deposit_address: o.deposit_address,
    deposit_address_tag: o.deposit_address_tag,
    deposit_confirmations: o.deposit_confirmations,
    deposit_confirmations_required: o.deposit_confirmations_required,
    recipient_address: maskAddress(o.recipient_address),
    refund_address: o.refund_address === null ? null : maskAddress(o.refund_address),
    deposit_txid: o.deposit_txid,
    payout_txid: o.payout_txid,
    refund_txid: o.refund_txid,
    expires_at: o.expires_at,
    updated_at: o.updated_at,
    livemode: o.livemode,
    eta_seconds: o.eta_seconds,
    eta_source: o.eta_source,
    // What reached the deposit address on another EVM network and waits for its refund there.
    wrong_network_deposits: (o.actions?.wrong_network_deposits ?? []).map((w) => ({
      coin: w.coin,
      network: w.network,
      amount: w.amount_received,
    })),
    hold: o.hold,
  };
}

export type StepState = "done" | "current" | "todo" | "failed";

export interface TimelineStep {
  label: string;
  state: StepState;
  /** When the order reached this step (ISO time); absent for a step not reached. */
  at?: string;
}

/** When the order first reached each status (ISO times, from its log). */
export type StatusTimes = Partial<Record<OrderStatus, string>>;

/** The happy path, in the words the tracking page uses. */
const PATH: readonly { status: OrderStatus; label: string }[] = [
  { status: "waiting_deposit", label: "Waiting for your deposit" },
  { status: "confirming", label: "Confirming" },
  { status: "exchanging", label: "Exchanging" },
  { status: "sending", label: "Sending" },
  { status: "completed", label: "Sent" },
];

const REASONS: Record<StatusReason, string> = {
  amount_below_min: "The deposit was below the minimum for this pair.",
  amount_above_max: "The deposit was above the maximum for this pair.",
  fixed_amount_mismatch: "The deposit did not match the fixed amount.",
  fixed_rate_expired: "The deposit confirmed after the fixed rate's window closed.",
  late_deposit: "The deposit arrived after the order had expired.",
  exchange_failed: "The exchange could not be completed.",
  payout_failed: "The payout could not be sent.",
  refund_failed: "The refund could not be sent.",
  deposit_dropped: "The deposit was dropped from the chain.",
  cancelled: "The order was cancelled before any deposit arrived.",
  below_min_out:
    "The price moved: the payout would have been below the minimum you were promised, so nothing was exchanged.",
  source_screened: "The deposit came from a screened address and was sent back when its hold ended.",
};

export const reasonText = (r: StatusReason | null): string | null => (r === null ? null : REASONS[r]);

/** The step an order off the happy path shows last, and the step it left the path at. */
const OFF_PATH: Partial<Record<OrderStatus, { label: string; from: OrderStatus }>> = {
  expired: { label: "Expired: no deposit arrived in time", from: "waiting_deposit" },
  refunding: { label: "Refunding", from: "confirming" },
  refunded: { label: "Refunded", from: "confirming" },
  failed: { label: "On hold: support will contact you", from: "exchanging" },
};

/**
 * The timeline of an order: the happy path up to where it is, with "Confirming n/m" while the
 * deposit confirms; an order that left the path (expired, refunded, held) ends with that step.
 */
export function timeline(
  o: Pick<PublicOrderStatus, "status" | "deposit_confirmations" | "deposit_confirmations_required">,
  reached: StatusTimes = {},
): TimelineStep[] {
  const off = OFF_PATH[o.status];
  const at = PATH.findIndex((p) => p.status === (off ? off.from : o.status));
  const when = (s: OrderStatus) => (reached[s] ? { at: reached[s] } : {});
  const steps: TimelineStep[] = PATH.map((p, i) => {
    const state: StepState =
      i < at || o.status === "completed" ? "done" : i === at && !off ? "current" : "todo";
    return {
      label:
        p.status === "confirming" && o.status === "confirming"
          ? `Confirming ${o.deposit_confirmations ?? 0}/${o.deposit_confirmations_required}`
          : p.label,
      state,
      ...(state === "todo" ? {} : when(p.status)),
    };
  });
  if (!off) return steps;
  return [
    ...steps.slice(0, at),
    {
      label: off.label,
      state: o.status === "refunding" ? "current" : o.status === "refunded" ? "done" : "failed",
      ...when(o.status),
    },
  ];
}

/**
 * Whether the order can no longer change: the page stops polling. An expired order still can (a
 * late deposit), and so can a held one (a decision).
 */
export const isFinal = (s: OrderStatus): boolean => s === "completed" || s === "refunded";
