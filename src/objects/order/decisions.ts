import type { Config } from "../../config";
import { extendHold, holdRefundTo, type OrderHold } from "../../domain/holds";
import { ledgerKey, sendKey } from "../../domain/ledger-keys";
import type { OrderRecord, OrderView } from "../../domain/order";
import { orderView, type SendKind } from "../../domain/order";
import {
  type ActionInputs,
  type ActionKind,
  actionUnavailable,
  type DecisionRequest,
  decisionPatch,
  orderActions,
  settlableByHand,
} from "../../domain/order-actions";
import { depositId, type ExtraDeposit, type ExtraDeposits } from "./extra-deposits";
import type { SendsLedger } from "./sends-ledger";
import type { EventData, OrderTransitions } from "./transitions";

/** A decision on a failed order's money, as the service has validated it. */
export type ActionRequest = DecisionRequest;

/** Who decides: a partner's key (only on its own orders) or the operator. */
export type Actor =
  | { kind: "partner"; partnerId: string; keyId: string }
  | { kind: "cabinet"; partnerId: string; user: string }
  | { kind: "operator" };

const decidedBy = (a: Actor) =>
  a.kind === "partner" ? `key:${a.keyId}` : a.kind === "cabinet" ? `cabinet:${a.user}` : "operator";

export type ActResult =
  | { kind: "done"; order: OrderView; hold?: HoldAfterDecision }
  | { kind: "not_found" }
  | { kind: "not_available"; reason: string }
  | { kind: "address_required" };

export type ResolveResult =
  | { kind: "done"; order: OrderView }
  | { kind: "not_found" }
  | { kind: "not_available"; reason: string }
  | { kind: "send_pending"; keys: string[] };

/** A decision's answer under its Idempotency-Key: `{hash, order}`, for the same response on a replay. */
const actionKey = (key: string) => `action:${key}`;
/** The operator's hold on the order's decisions: `{operator, note, at}` while it stands. */
const HOLD = "operator_hold";
const ON_HOLD = "the operator has put this order on hold";

const notSettlable = (r: OrderRecord) =>
  `the order is ${r.status}, neither waiting for a decision nor exchanging`;

export interface OperatorHold {
  operator: string;
  note: string;
  at: string;
}

/** What an operator's decision did to the hold it stood on: ended it, or kept it (and why). */
export type HoldAfterDecision = { released: true } | { released: false; reason: string };

/** Whether the operator's hold stands: the order's exchange places no leg meanwhile (OrderParts.step). */
export function operatorHeld(kv: SyncKvStorage): boolean {
  return kv.get<OperatorHold>(HOLD) !== undefined;
}

/** The order's hold of either origin: the operator's, or a screened deposit source's (`r.hold`). */
const held = (kv: SyncKvStorage, r: OrderRecord | undefined): boolean =>
  operatorHeld(kv) || (r?.hold ?? null) !== null;

/** An operator's decision on a screened deposit's hold (docs/lifecycle.md, "Holds"). */
export type HoldDecision =
  | { kind: "extend"; hours: number; reason: string }
  | { kind: "refund"; reason: string };

export type HoldResult =
  | { kind: "done"; order: OrderView; hold: OperatorHold | null; changed: boolean }
  | { kind: "not_found" }
  | { kind: "not_available"; reason: string };

/** What the decisions need of the order object. */
export interface DecisionsHost extends OrderTransitions {
  readonly config: Config;
  readonly kv: SyncKvStorage;
  readonly ledger: SendsLedger;
  readonly extraDeposits: ExtraDeposits;
  now(): number;
  record(): OrderRecord | undefined;
  actionInputs(r: OrderRecord, now: number): Promise<ActionInputs>;
  awaitingExtras(r: OrderRecord): ExtraDeposit[];
  /** Why an extra deposit cannot be refunded yet (not confirmed on chain now), or null. */
  unconfirmedExtra(r: OrderRecord, d: ExtraDeposit): Promise<string | null>;
  view(r: OrderRecord, now: number): Promise<OrderView>;
  arm(now: number): Promise<void>;
  changeHold(
    r: OrderRecord,
    hold: OrderHold | null,
    now: number,
    reason: string,
    data: EventData,
  ): OrderRecord;
}

/**
 * Decisions on the money a failed order holds, and transfers an operator made by hand
 * (docs/lifecycle.md, "Decisions on held funds"). Each check and its write run with no await
 * between them, so of two decisions fired together exactly one is taken; money then moves only
 * through the sends ledger, under a key no earlier request used.
 */
export class OrderDecisions {
  readonly #host: DecisionsHost;

  constructor(host: DecisionsHost) {
    this.#host = host;
  }

  get #kv(): SyncKvStorage {
    return this.#host.kv;
  }

  /**
   * Takes one decision on the money a failed order holds (docs/lifecycle.md, "Decisions on held
   * funds"). The check and the transition run with no await between them, so of two decisions
   * fired together exactly one is taken; the other finds the order no longer waiting and is refused.
   * Money then moves only through the ledger, under a key no earlier request used.
   */
  async act(
    actor: Actor,
    action: ActionRequest,
    idempotency: { key: string; hash: string } | null,
  ): Promise<ActResult> {
    const now = this.#host.now();
    const first = this.#host.record();
    if (!first || (actor.kind !== "operator" && first.partnerId !== actor.partnerId))
      return { kind: "not_found" };
    const replayed = idempotency && this.#replay(idempotency);
    if (replayed) return replayed;
    if (action.kind === "refund" && action.deposit !== undefined)
      return this.#refundExtra(actor, first, { ...action, deposit: action.deposit }, idempotency, now);
    const inputs = await this.#host.actionInputs(first, now);
    // Everything below is synchronous: no other decision can slip in between the check and the write.
    const r = this.#host.record() ?? first;
    const again = idempotency && this.#replay(idempotency);
    if (again) return again;
    if (this.#held(actor)) return { kind: "not_available", reason: ON_HOLD };
    const actions = orderActions(r, inputs);
    const refusal = actionUnavailable(actions, action.kind);
    if (refusal || !actions) return { kind: "not_available", reason: refusal ?? "no actions" };
    const kind: SendKind = action.kind === "continue" ? "exchange" : action.kind;
    const pending = this.#host.ledger.get(sendKey(r, kind));
    if (pending && pending.outcome === null)
      return { kind: "not_available", reason: `a ${kind} of this order is still pending` };
    const key = pending ? ledgerKey(r.id, kind, this.#host.ledger.count(kind) + 1) : sendKey(r, kind);
    const decision = decisionPatch(
      r,
      actions,
      action,
      { ...r.sendKeys, [kind]: key },
      this.#host.config.SPREAD_FLOAT_BPS,
    );
    if (decision === "address_required") return { kind: "address_required" };
    const decided: ActionKind = action.kind;
    // The refund pays what the partner was shown and chose, whatever the fee is at its first send.
    const refundAmountDecided =
      decided === "refund" && "amount" in inputs.refund ? inputs.refund.amount : undefined;
    const patch = { ...decision.patch, ...(refundAmountDecided && { refundAmountDecided }) };
    const next = this.#host.apply(r, { type: `${decided}_chosen` }, now, patch, {
      decided_by: decidedBy(actor),
      ledger_key: key,
      ...decision.log,
    });
    if (!next) return { kind: "not_available", reason: `the order cannot take a ${decided} now` };
    // The operator decided what happens to the money it held the order for: the hold is over.
    const hold = this.#endHold(actor, next, now, null);
    const order = orderView(next, this.#host.config.CABINET_ORIGIN);
    if (idempotency) this.#kv.put(actionKey(idempotency.key), { hash: idempotency.hash, order });
    await this.#host.arm(now);
    return { kind: "done", order, ...(hold && { hold }) };
  }

  /**
   * The refund of one extra deposit (docs/lifecycle.md, "Extra deposits"): offered once the order
   * can no longer take the deposit as its own, and taken only if the deposit is confirmed on chain
   * now. The check and the ledger write run with no await between them, so it is decided once.
   */
  async #refundExtra(
    actor: Actor,
    first: OrderRecord,
    action: { refundAddress: string | null; refundAddressTag: string | null; deposit: string },
    idempotency: { key: string; hash: string } | null,
    now: number,
  ): Promise<ActResult> {
    const offered = (r: OrderRecord) =>
      this.#host.awaitingExtras(r).find((e) => depositId(e) === action.deposit);
    const target = offered(first);
    if (!target)
      return { kind: "not_available", reason: `no extra deposit ${action.deposit} waits for a refund` };
    const unconfirmed = await this.#host
      .unconfirmedExtra(first, target)
      .catch((err: unknown) => `the deposit's confirmations cannot be read now (${String(err)}): try again`);
    if (unconfirmed) return { kind: "not_available", reason: unconfirmed };
    const inputs = await this.#host.actionInputs(first, now);
    // Everything below is synchronous: no other decision can slip in between the check and the write.
    const r = this.#host.record() ?? first;
    const again = idempotency && this.#replay(idempotency);
    if (again) return again;
    if (this.#held(actor)) return { kind: "not_available", reason: ON_HOLD };
    const before = orderActions(r, inputs);
    const offer = [...(before?.extra_deposits ?? []), ...(before?.wrong_network_deposits ?? [])].find(
      (e) => e.deposit === action.deposit,
    );
    if (!offer || !offered(r))
      return { kind: "not_available", reason: `no extra deposit ${action.deposit} waits for a refund` };
    if (!offer.refund.available || offer.refund.amount === null)
      return { kind: "not_available", reason: `refund is not available: ${offer.refund.unavailable_reason}` };
    if (offer.refund.requires_address && action.refundAddress === null) return { kind: "address_required" };
    const to = action.refundAddress ?? r.refundAddress ?? "";
    const tag = action.refundAddress === null ? r.refundAddressTag : action.refundAddressTag;
    const amount = (inputs.extras ?? []).find((e) => depositId(e) === action.deposit)?.refund;
    if (!amount || !("amount" in amount))
      return { kind: "not_available", reason: "the refund amount is not known now" };
    const at = new Date(now).toISOString();
    const key = this.#host.extraDeposits.startRefund(
      r.id,
      target,
      {
        orderId: r.id,
        kind: "refund",
        // A wrong-network deposit goes back on the network it arrived on.
        network: target.arrival?.network ?? r.networkFrom,
        coin: target.arrival?.coin ?? r.coinFrom,
        contract: target.arrival ? target.arrival.contract : r.contractFrom,
        to,
        tag,
        amount: amount.amount,
      },
      at,
    );
    this.#host.note(r, now, "refund of an extra deposit chosen", {
      decided_by: decidedBy(actor),
      deposit: action.deposit,
      refund_address: to,
      refund_address_tag: tag,
      amount: offer.refund.amount,
      ledger_key: key,
    });
    this.#host.markProjection(now);
    const rest = { ...inputs, extras: (inputs.extras ?? []).filter((e) => depositId(e) !== action.deposit) };
    const actions = orderActions(r, rest);
    // The hold may have been taken for what still waits: it ends only when nothing does.
    const hold = this.#endHold(
      actor,
      r,
      now,
      actions && "the order still waits for another decision (its own deposit or another extra deposit)",
    );
    const order = orderView(r, this.#host.config.CABINET_ORIGIN, actions);
    if (idempotency) this.#kv.put(actionKey(idempotency.key), { hash: idempotency.hash, order });
    await this.#host.arm(now);
    return { kind: "done", order, ...(hold && { hold }) };
  }

  /**
   * After an operator's decision: the hold it stood on ends (logged), unless `keep` says why it
   * must stand. Null when the actor is not the operator or no hold stands.
   */
  #endHold(actor: Actor, r: OrderRecord, now: number, keep: string | null): HoldAfterDecision | null {
    if (actor.kind !== "operator" || !operatorHeld(this.#kv)) return null;
    if (keep) return { released: false, reason: keep };
    this.#kv.delete(HOLD);
    this.#host.note(r, now, "operator hold released", {
      operator: "operator",
      note: "ended by the operator's decision",
    });
    return { released: true };
  }

  /**
   * Records a transfer an operator made by hand (docs/lifecycle.md, "Transfers made by hand"): the
   * order ends completed or refunded with its txid, so no action can start another. Refused while a
   * send of that kind is unfinished in the ledger: the gateway may still pay it.
   */
  async resolve(
    kind: "payout" | "refund",
    txid: string,
    note: string,
    operator: string,
  ): Promise<ResolveResult> {
    const now = this.#host.now();
    const r = this.#host.record();
    if (!r) return { kind: "not_found" };
    const done =
      kind === "payout"
        ? r.status === "completed" && r.payoutTxid === txid
        : r.status === "refunded" && r.refundTxid === txid;
    if (done) return { kind: "done", order: await this.#host.view(r, now) };
    const unfinished = this.#host.ledger.unfinished(kind);
    if (unfinished.length > 0) return { kind: "send_pending", keys: unfinished };
    if (!settlableByHand(r)) return { kind: "not_available", reason: notSettlable(r) };
    if (!operatorHeld(this.#kv))
      return {
        kind: "not_available",
        reason: "put the order on hold first, so that no partner action runs meanwhile",
      };
    const next = this.#host.apply(
      r,
      { type: `${kind}_resolved`, txid },
      now,
      {},
      {
        decided_by: "operator",
        operator,
        note,
      },
    );
    if (!next) return { kind: "not_available", reason: `the order cannot record a ${kind} now` };
    // The exchange the hold stopped is over: the operator settled the order instead.
    if (r.status === "exchanging")
      this.#host.ledger.finish(
        sendKey(r, "exchange"),
        "failed",
        null,
        `stopped by an operator: ${kind} ${txid} made by hand`,
        new Date(now).toISOString(),
      );
    // The order is terminal: nothing is left to hold.
    this.#kv.delete(HOLD);
    await this.#host.arm(now);
    return { kind: "done", order: await this.#host.view(next, now) };
  }

  /**
   * Puts the order on the operator's hold (`on`), or releases it (docs/lifecycle.md, "Operator
   * hold"): while it stands, partner and cabinet decisions answer 409, so the operator can settle
   * the money by hand (`resolve` requires the hold). Only an order waiting for a decision can be
   * held; holding a held order, or releasing one that is not, changes nothing.
   */
  async hold(on: boolean, operator: string, note: string): Promise<HoldResult> {
    const now = this.#host.now();
    const r = this.#host.record();
    if (!r) return { kind: "not_found" };
    // A screened deposit's hold is the same hold: putting it again changes nothing, releasing ends it.
    if (r.hold) {
      const next = on ? r : this.#host.changeHold(r, null, now, "hold released", { operator, note });
      if (!on) await this.#host.arm(now);
      return { kind: "done", order: await this.#host.view(next, now), hold: null, changed: !on };
    }
    const current = this.#kv.get<OperatorHold>(HOLD) ?? null;
    if (on && !current && !settlableByHand(r)) return { kind: "not_available", reason: notSettlable(r) };
    const changed = on !== (current !== null);
    const hold = on ? (current ?? { operator, note, at: new Date(now).toISOString() }) : null;
    if (changed) {
      if (hold) this.#kv.put(HOLD, hold);
      else this.#kv.delete(HOLD);
      // A held exchange places no leg: the order stops waking for it until the hold is released.
      if (r.status === "exchanging") {
        const key = sendKey(r, "exchange");
        if (on) this.#host.ledger.sleep(key);
        else this.#host.ledger.wake(key, now);
      }
      this.#host.note(r, now, on ? "operator hold" : "operator hold released", { operator, note });
      await this.#host.arm(now);
    }
    return { kind: "done", order: await this.#host.view(r, now), hold, changed };
  }

  /**
   * The operator's decision on a screened deposit's hold: its deadline moved once (the partner sees
   * the new one), or its end brought to now as a refund — which goes once the deposit is confirmed,
   * to the refund address or the single sender (none known: refused; settle it by hand).
   */
  async decideHold(decision: HoldDecision, operator: string): Promise<HoldResult> {
    const now = this.#host.now();
    const r = this.#host.record();
    if (!r) return { kind: "not_found" };
    if (!r.hold) return { kind: "not_available", reason: "the order is not held for a screened deposit" };
    let next: OrderHold;
    if (decision.kind === "extend") {
      const extended = extendHold(r.hold, decision.hours, decision.reason, now);
      if (typeof extended === "string") return { kind: "not_available", reason: extended };
      next = extended;
    } else {
      if (!holdRefundTo(r))
        return { kind: "not_available", reason: "no refund address and no single sender to refund to" };
      next = { ...r.hold, at_deadline: "refund", deadline_at: new Date(now).toISOString() };
    }
    const after = this.#host.changeHold(
      r,
      next,
      now,
      decision.kind === "extend" ? "hold extended" : "hold ends in a refund",
      { operator, reason: decision.reason, deadline_at: next.deadline_at },
    );
    await this.#host.arm(now);
    return { kind: "done", order: await this.#host.view(after, now), hold: null, changed: true };
  }

  /** Whether the order's hold refuses this actor's decisions (the operator's own are never held). */
  #held(actor: Actor): boolean {
    return actor.kind !== "operator" && held(this.#kv, this.#host.record());
  }

  /** The first answer to this Idempotency-Key, or a refusal when it was used for another decision. */
  #replay(idempotency: { key: string; hash: string }): ActResult | null {
    const stored = this.#kv.get<{ hash: string; order: OrderView }>(actionKey(idempotency.key));
    if (!stored) return null;
    return stored.hash === idempotency.hash
      ? { kind: "done", order: stored.order }
      : { kind: "not_available", reason: "this Idempotency-Key was used for another decision" };
  }
}
