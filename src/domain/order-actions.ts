import { parseDecimal, toDecimalString, toJsonNumber } from "./money";
import type { OrderRecord } from "./order";
import type { OrderStatus, StatusReason } from "./order-state";
import { type PricingInput, pairLimits, quoteForward } from "./pricing";

/**
 * Order actions (docs/lifecycle.md, "Decisions on held funds"): an order that holds a user's money
 * and cannot go on by itself stays `failed` with its status_reason, and says what can be done with
 * the money. These are pure decisions over the record and the inputs of the moment (the source
 * network's payout fee, the pair's pricing now); the object serialises the decision itself.
 */

export const ACTION_KINDS = ["refund", "continue", "payout"] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

/**
 * The address a decision sends funds to when the order did not carry it (a typed refund address,
 * any payout to another recipient), or null: the cabinet asks for a step-up before such a send.
 */
export function newDestination(body: {
  kind: ActionKind;
  refund_address?: string | undefined;
  recipient_address?: string | undefined;
}): string | null {
  const address = body.kind === "refund" ? body.refund_address : body.recipient_address;
  return body.kind === "continue" ? null : (address ?? null);
}

/** Failures where the deposit is still held in coin_from: refund it, or exchange it after all. */
const HELD_IN_FROM: readonly StatusReason[] = [
  "amount_below_min",
  "amount_above_max",
  "fixed_amount_mismatch",
  "fixed_rate_expired",
  "late_deposit",
  "exchange_failed",
  "below_min_out",
  "refund_failed",
];

export interface RefundAction {
  available: boolean;
  amount: number | null;
  coin: string;
  network: string;
  address: string | null;
  requires_address: boolean;
  unavailable_reason: string | null;
}

export interface ContinueAction {
  available: boolean;
  amount_to_estimate: number | null;
  rate: number | null;
  /** Always null: a continued order is exchanged at the float rate of its exchange, not a locked one. */
  valid_until: string | null;
  unavailable_reason: string | null;
}

export interface PayoutAction {
  available: boolean;
  amount: number | null;
  coin: string;
  network: string;
  unavailable_reason: string | null;
}

/** A deposit beyond the one the order runs on: its own refund, decided and paid once. */
export interface ExtraDepositAction {
  /** `<txid>:<index>`: what POST …/refund takes as `deposit`. */
  deposit: string;
  txid: string;
  index: number;
  amount_received: number;
  refund: RefundAction;
}

/**
 * A deposit that reached the order's address on another EVM network (src/domain/wrong-network.ts):
 * never credited to the order, its refund is sent on the network it arrived on.
 */
export interface WrongNetworkDepositAction extends ExtraDepositAction {
  /** Always `wrong_network_deposit`: why this deposit waits for a decision. */
  reason: "wrong_network_deposit";
  /** The coin and network it arrived as (the refund's). */
  coin: string;
  network: string;
}

export interface OrderActions {
  /** The order's status_reason; null when only extra or wrong-network deposits wait for a decision. */
  reason: StatusReason | null;
  refund: RefundAction;
  continue: ContinueAction;
  /** Only after payout_failed: the money is in coin_to, so it can go to another recipient address. */
  payout: PayoutAction | null;
  /** Deposits beyond the one the order runs on whose refund waits for a decision. */
  extra_deposits: ExtraDepositAction[];
  /** Deposits to the order's address on another EVM network whose refund waits for a decision. */
  wrong_network_deposits: WrongNetworkDepositAction[];
}

/** What the moment contributes: the refund as it would be sent now, and the pair's float pricing now. */
export interface ActionInputs {
  /** The deposit less the source network's current payout fee (decimal string), or why it is not known now. */
  refund: { amount: string } | { unavailable: string };
  /** Float pricing of the pair with the partner's markup, or why there is none now. */
  pricing: PricingInput | { unavailable: string };
  /** The extra deposits waiting for a decision (src/objects/order/extra-deposits.ts); none when absent. */
  extras?: ExtraDepositInput[];
}

export interface ExtraDepositInput {
  txid: string;
  index: number;
  /** As received (decimal string). */
  amount: string;
  /** The deposit less the source network's payout fee now, or why it is not known. */
  refund: { amount: string } | { unavailable: string };
  /** An earlier refund of it was refused for good: it needs a new address. */
  refundFailed: boolean;
  /** A wrong-network deposit's coin and network; absent on the order's own. */
  arrival?: { coin: string; network: string };
}

type ActionOrder = Pick<
  OrderRecord,
  | "status"
  | "statusReason"
  | "coinFrom"
  | "networkFrom"
  | "coinTo"
  | "networkTo"
  | "amountFromReceived"
  | "amountToActual"
  | "refundAddress"
>;

/** Whether the order holds money and waits for someone's decision (its `actions` is not null). */
export function awaitsDecision(o: Pick<ActionOrder, "status" | "statusReason">): boolean {
  return (
    o.status === "failed" &&
    o.statusReason !== null &&
    (HELD_IN_FROM.includes(o.statusReason) || o.statusReason === "payout_failed")
  );
}

/**
 * Whether an operator may settle the order's money by hand (hold it, then `resolve`): it waits for
 * a decision on its own deposit, or its exchange is under way on the venue, where a later leg may
 * be refused for good after a filled one (a hold stops its legs: docs/lifecycle.md, "Operator hold").
 */
export function settlableByHand(o: Pick<ActionOrder, "status" | "statusReason">): boolean {
  return awaitsDecision(o) || o.status === "exchanging";
}

/**
 * Whether the order can no longer take an extra deposit as the one it runs on (a dropped first
 * deposit, a late one): only then is an extra deposit's refund offered, so none is both refunded
 * and exchanged. `lateWatchEnded` is asked only for an expired order: it is a storage read, and
 * a status poll of any other order should not pay for it.
 */
export function extrasDecidable(status: OrderStatus, lateWatchEnded: () => boolean): boolean {
  if (status === "waiting_deposit" || status === "confirming") return false;
  return status !== "expired" || lateWatchEnded();
}

/** The order's `actions`: null when nothing waits for a decision. */
export function orderActions(o: ActionOrder, inputs: ActionInputs): OrderActions | null {
  const extras = inputs.extras ?? [];
  const extra_deposits = extras.filter((e) => !e.arrival).map((e) => extraDepositAction(o, e));
  const wrong_network_deposits = extras.flatMap((e) =>
    e.arrival ? [wrongNetworkAction(o, e, e.arrival)] : [],
  );
  const own = ownActions(o, inputs);
  if (own) return { ...own, extra_deposits, wrong_network_deposits };
  if (extra_deposits.length === 0 && wrong_network_deposits.length === 0) return null;
  const idle = "the order's own deposit waits for no decision";
  return {
    reason: null,
    refund: {
      ...refundBase(o),
      available: false,
      amount: null,
      requires_address: o.refundAddress === null,
      unavailable_reason: idle,
    },
    continue: unavailableContinue(idle),
    payout: null,
    extra_deposits,
    wrong_network_deposits,
  };
}

/**
 * A wrong-network deposit's refund, on its arrival network. It always asks for an address: the
 * order's refund address was given for the order's own network, and an exchange account behind it
 * may not credit another chain.
 */
function wrongNetworkAction(
  o: ActionOrder,
  e: ExtraDepositInput,
  arrival: { coin: string; network: string },
): WrongNetworkDepositAction {
  const base = extraDepositAction(o, { ...e, refundFailed: true });
  return {
    ...base,
    deposit: `${arrival.network}:${base.deposit}`,
    reason: "wrong_network_deposit",
    coin: arrival.coin,
    network: arrival.network,
    refund: { ...base.refund, coin: arrival.coin, network: arrival.network },
  };
}

function extraDepositAction(o: ActionOrder, e: ExtraDepositInput): ExtraDepositAction {
  const amount = "amount" in e.refund ? positive(e.refund.amount) : null;
  // A refused address will not take the refund the next time either.
  const address = e.refundFailed ? null : o.refundAddress;
  return {
    deposit: `${e.txid}:${e.index}`,
    txid: e.txid,
    index: e.index,
    amount_received: toJsonNumber(parseDecimal(e.amount)),
    refund: {
      available: amount !== null,
      amount: amount === null ? null : toJsonNumber(amount),
      coin: o.coinFrom,
      network: o.networkFrom,
      address,
      requires_address: address === null,
      unavailable_reason:
        amount !== null
          ? null
          : "unavailable" in e.refund
            ? e.refund.unavailable
            : "the deposit does not cover the network fee of sending it back",
    },
  };
}

/** The decisions on the order's own deposit, or null when it waits for none. */
function ownActions(
  o: ActionOrder,
  inputs: ActionInputs,
): Omit<OrderActions, "extra_deposits" | "wrong_network_deposits"> | null {
  if (!awaitsDecision(o) || o.statusReason === null) return null;
  const reason = o.statusReason;
  if (reason === "payout_failed") {
    const amount = positive(o.amountToActual);
    return {
      reason,
      refund: {
        ...refundBase(o),
        available: false,
        amount: null,
        unavailable_reason: "the deposit was already exchanged into coin_to: send it to another recipient",
      },
      continue: unavailableContinue("the deposit was already exchanged"),
      payout: {
        available: amount !== null,
        amount: amount === null ? null : toJsonNumber(amount),
        coin: o.coinTo,
        network: o.networkTo,
        unavailable_reason: amount === null ? "no exchanged amount to pay out" : null,
      },
    };
  }
  const refund = "amount" in inputs.refund ? positive(inputs.refund.amount) : null;
  const noRefund =
    "unavailable" in inputs.refund
      ? inputs.refund.unavailable
      : "the deposit does not cover the network fee of sending it back";
  return {
    reason,
    refund: {
      ...refundBase(o),
      available: refund !== null,
      amount: refund === null ? null : toJsonNumber(refund),
      unavailable_reason: refund === null ? noRefund : null,
    },
    continue: continueOffer(o.amountFromReceived, inputs.pricing),
    payout: null,
  };
}

/** Why the order offers no such action now, or null when it does. */
export function actionUnavailable(actions: OrderActions | null, kind: ActionKind): string | null {
  if (!actions || actions.reason === null) return "the order is not waiting for a decision";
  const offer = kind === "payout" ? actions.payout : actions[kind];
  if (!offer) return `${kind} is not offered after ${actions.reason}`;
  return offer.available ? null : `${kind} is not available: ${offer.unavailable_reason}`;
}

function refundBase(o: ActionOrder) {
  return {
    coin: o.coinFrom,
    network: o.networkFrom,
    address: o.statusReason === "refund_failed" ? null : o.refundAddress,
    // A refund the gateway refused for good will not go through to the same address.
    requires_address: o.refundAddress === null || o.statusReason === "refund_failed",
  };
}

/** Continue: within the pair's limits now, at the current float rate with the partner's markup. */
function continueOffer(received: string | null, pricing: ActionInputs["pricing"]): ContinueAction {
  const amount = positive(received);
  if (amount === null) return unavailableContinue("no received amount to exchange");
  if ("unavailable" in pricing) return unavailableContinue(pricing.unavailable);
  const limits = pairLimits(pricing);
  if (!limits.ok) return unavailableContinue(`pair unavailable: ${limits.reason}`);
  if (amount.lt(limits.min) || amount.gt(limits.max)) {
    return unavailableContinue(
      `the received amount is outside the pair's limits now (min ${toDecimalString(limits.min)}, max ${toDecimalString(limits.max)})`,
    );
  }
  const q = quoteForward(pricing, amount);
  if (!q.amountTo.gt(0)) return unavailableContinue("the exchange would pay out nothing");
  return {
    available: true,
    amount_to_estimate: toJsonNumber(q.amountTo),
    rate: toJsonNumber(q.rate),
    valid_until: null,
    unavailable_reason: null,
  };
}

function unavailableContinue(why: string): ContinueAction {
  return {
    available: false,
    amount_to_estimate: null,
    rate: null,
    valid_until: null,
    unavailable_reason: why,
  };
}

function positive(s: string | null) {
  if (s === null) return null;
  const d = parseDecimal(s);
  return d.gt(0) ? d : null;
}

/** A decision on a failed order's money, as the service has validated it. */
export type DecisionRequest =
  | {
      kind: "refund";
      refundAddress: string | null;
      refundAddressTag: string | null;
      /** An extra deposit ("txid:index") to refund instead of the order's own (not `decisionPatch`'s). */
      deposit?: string | undefined;
    }
  | { kind: "continue" }
  | {
      kind: "payout";
      recipientAddress: string;
      recipientAddressTag: string | null;
      recipientAddressGiven: string;
    };

/**
 * What a decision the order offers (`actions`, checked available) changes on the record, and what
 * its log row says; `address_required` when a refund must name an address and does not. A continue
 * turns the order into a float order: it is exchanged at the rate of its exchange.
 */
export function decisionPatch(
  r: OrderRecord,
  actions: OrderActions,
  decision: DecisionRequest,
  sendKeys: OrderRecord["sendKeys"],
  spreadFloatBps: number,
): { patch: Partial<OrderRecord>; log: Record<string, string | number | null> } | "address_required" {
  switch (decision.kind) {
    case "refund": {
      if (actions.refund.requires_address && decision.refundAddress === null) return "address_required";
      const to = decision.refundAddress ?? r.refundAddress;
      const tag = decision.refundAddress === null ? r.refundAddressTag : decision.refundAddressTag;
      return {
        patch: { sendKeys, refundAddress: to, refundAddressTag: tag },
        log: { refund_address: to, refund_address_tag: tag, amount: actions.refund.amount },
      };
    }
    case "continue": {
      const c = actions.continue;
      return {
        patch: {
          sendKeys,
          rateType: "float",
          spreadBps: spreadFloatBps,
          rateQuoted: String(c.rate),
          amountToExpected: String(c.amount_to_estimate),
        },
        log: { amount_to_estimate: c.amount_to_estimate, rate: c.rate },
      };
    }
    case "payout":
      return {
        patch: {
          sendKeys,
          recipientAddress: decision.recipientAddress,
          recipientAddressTag: decision.recipientAddressTag,
          recipientAddressGiven: decision.recipientAddressGiven,
        },
        log: {
          recipient_address: decision.recipientAddressGiven,
          recipient_address_tag: decision.recipientAddressTag,
          amount: actions.payout?.amount ?? null,
        },
      };
  }
}
