import { DomainError } from "../domain/errors";
import type { OrderView } from "../domain/order";
import { resolveOrderId } from "./orders";

/**
 * POST /partner/orders/{id}/cancel: a partner abandons an order nobody has paid, so an order made
 * at quote time costs nothing once the user walks away (docs/orders.md, "Cancelling an order").
 */
export async function cancelPartnerOrder(
  env: Env,
  partner: { id: string; livemode: boolean },
  orderRef: string,
): Promise<OrderView> {
  const id = await resolveOrderId(env, orderRef, partner.id);
  const result = id ? await env.ORDERS.getByName(id).cancel(partner) : { kind: "not_found" as const };
  switch (result.kind) {
    case "done":
      return result.order;
    case "not_found":
      throw new DomainError("order_not_found", "Order not found.");
    case "not_available":
      throw new DomainError("action_not_available", `Cannot cancel this order: ${result.reason}.`);
  }
}
