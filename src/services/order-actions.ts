import { sha256Hex } from "../domain/credentials";
import { checkDestination } from "../domain/destination";
import { DomainError } from "../domain/errors";
import type { OrderView } from "../domain/order";
import type { ActionKind } from "../domain/order-actions";
import type {
  ActionRequest,
  Actor,
  ActResult,
  HoldAfterDecision,
  HoldDecision,
  HoldResult,
  ResolveResult,
} from "../objects/order/object";
import { loadCatalog } from "../storage/catalog";
import { auditStatement } from "../storage/operator-audit";
import { canonicalJson, resolveOrderId } from "./orders";
import { refuseListed } from "./screening";

/** A decision as the API takes it: the action and its body fields. */
export type ActionBody =
  | {
      kind: "refund";
      refund_address?: string | undefined;
      refund_address_tag?: string | undefined;
      deposit?: string | undefined;
    }
  | { kind: "continue" }
  | { kind: "payout"; recipient_address: string; recipient_address_tag?: string | undefined };

const notFound = () => new DomainError("order_not_found", "Order not found.");

/**
 * POST …/orders/{id}/refund|continue|payout, for a partner (its own orders only) or the operator.
 * Addresses are checked against the order's networks before the object sees the decision, so bad
 * input changes nothing; the object then takes the decision once (docs/lifecycle.md).
 */
export async function takeOrderAction(
  env: Env,
  actor: Actor,
  orderRef: string,
  body: ActionBody,
  idempotencyKey: string | undefined,
  /** A partner key's mode: it decides only on orders of that mode (docs/test-mode.md). */
  keyLivemode?: boolean,
): Promise<OrderView> {
  return (await decide(env, actor, orderRef, body, idempotencyKey, keyLivemode)).order;
}

/**
 * The operator's decision (POST /admin/v1/orders/{id}/refund|continue|payout), and what it did to
 * the operator's hold on the order: ended, or kept and why (null when none stood).
 */
export async function takeOperatorAction(
  env: Env,
  orderRef: string,
  body: ActionBody,
  idempotencyKey: string | undefined,
): Promise<{ order: OrderView; hold: HoldAfterDecision | null }> {
  return decide(env, { kind: "operator" }, orderRef, body, idempotencyKey);
}

async function decide(
  env: Env,
  actor: Actor,
  orderRef: string,
  body: ActionBody,
  idempotencyKey: string | undefined,
  keyLivemode?: boolean,
): Promise<{ order: OrderView; hold: HoldAfterDecision | null }> {
  const id = await resolveOrderId(env, orderRef, actor.kind === "operator" ? null : actor.partnerId);
  if (!id) throw notFound();
  const stub = env.ORDERS.getByName(id);
  const order = actor.kind === "operator" ? (await stub.inspect())?.order : await stub.get(actor.partnerId);
  if (!order || (keyLivemode !== undefined && order.livemode !== keyLivemode)) throw notFound();
  const request = await checkedRequest(env, order, body);
  const idempotency = idempotencyKey
    ? { key: idempotencyKey, hash: await sha256Hex(canonicalJson(body)) }
    : null;
  return answer(await stub.act(actor, request, idempotency), body.kind);
}

async function checkedRequest(env: Env, order: OrderView, body: ActionBody): Promise<ActionRequest> {
  if (body.kind === "continue") return body;
  const network = body.kind === "refund" ? order.network_from : order.network_to;
  const coin = body.kind === "refund" ? order.coin_from : order.coin_to;
  const address = body.kind === "refund" ? body.refund_address : body.recipient_address;
  const tag = body.kind === "refund" ? body.refund_address_tag : body.recipient_address_tag;
  const deposit = body.kind === "refund" ? { deposit: body.deposit } : {};
  if (address === undefined) {
    if (tag !== undefined) throw new DomainError("invalid_tag", "refund_address_tag needs a refund_address.");
    return { kind: "refund", refundAddress: null, refundAddressTag: null, ...deposit };
  }
  const row = (await loadCatalog(env.DB)).find((c) => c.coin === coin && c.network === network);
  const field = body.kind === "refund" ? "refund_address" : "recipient_address";
  const checked = checkDestination(network, row?.is_memo === 1, address, tag, field);
  const contract = body.kind === "refund" ? order.token_from : order.token_to;
  await refuseListed(
    env,
    order.livemode,
    [{ field, network, address: checked.address, asset: { coin, contract: contract ?? null } }],
    Date.now(),
  );
  return body.kind === "refund"
    ? { kind: "refund", refundAddress: checked.address, refundAddressTag: checked.tag, ...deposit }
    : {
        kind: "payout",
        recipientAddress: checked.address,
        recipientAddressTag: checked.tag,
        recipientAddressGiven: address,
      };
}

function answer(result: ActResult, kind: ActionKind): { order: OrderView; hold: HoldAfterDecision | null } {
  switch (result.kind) {
    case "done":
      return { order: result.order, hold: result.hold ?? null };
    case "not_found":
      throw notFound();
    case "address_required":
      throw new DomainError(
        "invalid_address",
        "refund_address is required: the order has no refund address it can use.",
      );
    case "not_available":
      throw new DomainError("action_not_available", `Cannot ${kind} this order: ${result.reason}.`);
  }
}

/** A transfer an operator made by hand, outside the service (POST /admin/v1/orders/{id}/resolve). */
export interface ResolveBody {
  kind: "payout" | "refund";
  txid: string;
  note: string;
}

/** Records a hand-made transfer on the order, once; the operator's name goes into its log. */
export async function resolveOrder(
  env: Env,
  operator: string,
  orderRef: string,
  body: ResolveBody,
): Promise<OrderView> {
  const id = await resolveOrderId(env, orderRef, null);
  if (!id) throw notFound();
  const result: ResolveResult = await env.ORDERS.getByName(id).resolve(
    body.kind,
    body.txid,
    body.note,
    operator,
  );
  switch (result.kind) {
    case "done":
      return result.order;
    case "not_found":
      throw notFound();
    case "send_pending":
      throw new DomainError(
        "send_pending",
        `A ${body.kind} of this order is pending or of unknown outcome at the gateway (${result.keys.join(", ")}): it may still be paid. Settle it at the gateway first.`,
      );
    case "not_available":
      throw new DomainError(
        "action_not_available",
        `Cannot record a ${body.kind} on this order: ${result.reason}.`,
      );
  }
}

/**
 * Puts an order on the operator's hold (`on`) or releases it (POST / DELETE
 * /admin/v1/orders/{id}/hold): partner decisions answer 409 while it stands, and `resolve` requires
 * it. A change is written to the operator audit log with the operator and the request id.
 */
export async function holdOrder(
  env: Env,
  actor: { operator: string; requestId: string },
  orderRef: string,
  on: boolean,
  note: string,
): Promise<OrderView> {
  const id = await resolveOrderId(env, orderRef, null);
  if (!id) throw notFound();
  const result: HoldResult = await env.ORDERS.getByName(id).hold(on, actor.operator, note);
  switch (result.kind) {
    case "not_found":
      throw notFound();
    case "not_available":
      throw new DomainError("action_not_available", `Cannot put this order on hold: ${result.reason}.`);
    case "done":
      if (result.changed)
        await auditStatement(env.DB, {
          at: new Date().toISOString(),
          operator: actor.operator,
          action: on ? "order.hold" : "order.release",
          entityType: "order",
          entityId: id,
          before: { held: !on },
          after: { held: on, note },
          requestId: actor.requestId,
        }).run();
      return result.order;
  }
}

/**
 * The operator's decision on a screened deposit's hold (POST /admin/v1/orders/{id}/hold/extend |
 * …/hold/refund): the deadline moved once, or the hold ended in a refund; audited with the reason.
 */
export async function decideOrderHold(
  env: Env,
  actor: { operator: string; requestId: string },
  orderRef: string,
  decision: HoldDecision,
): Promise<OrderView> {
  const id = await resolveOrderId(env, orderRef, null);
  if (!id) throw notFound();
  const result: HoldResult = await env.ORDERS.getByName(id).decideHold(decision, actor.operator);
  switch (result.kind) {
    case "not_found":
      throw notFound();
    case "not_available":
      throw new DomainError("action_not_available", `Cannot ${decision.kind} this hold: ${result.reason}.`);
    case "done":
      await auditStatement(env.DB, {
        at: new Date().toISOString(),
        operator: actor.operator,
        action: `order.hold_${decision.kind}`,
        entityType: "order",
        entityId: id,
        before: null,
        after: { reason: decision.reason, hold: result.order.hold },
        requestId: actor.requestId,
      }).run();
      return result.order;
  }
}
