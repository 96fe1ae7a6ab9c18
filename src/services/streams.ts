// Live order events (docs/events.md): which object holds a stream, and opening it there.
import { DomainError } from "../domain/errors";
import type { Partner } from "../domain/partner";
import { partnerEventsName, type StreamOpen, streamOpenRequest } from "../domain/streams";
import { trackOrder } from "./order-status";
import { readOrder } from "./orders";

/** The object that holds a stream: an order's own, or the partner's event log of one mode. */
export interface StreamTarget {
  fetch(request: Request): Promise<Response>;
}

/** The order a key streams: exactly the orders it may read (readOrder), by UUID or short_id. */
export async function partnerOrderStream(
  env: Env,
  partner: Partner,
  ref: string,
  createdBy?: string,
): Promise<StreamTarget> {
  const { id } = JSON.parse(await readOrder(env, partner, ref, createdBy)) as { id: string };
  return env.ORDERS.getByName(id);
}

/** The order a keyless link opens (`<uuid>.<token>`, as the status API). */
export async function publicOrderStream(env: Env, ref: string): Promise<StreamTarget> {
  const found = await trackOrder(env, ref);
  if (!found) throw new DomainError("order_not_found", "Order not found.");
  return env.ORDERS.getByName(found.order.id);
}

/** The partner's order events in the key's mode. */
export function partnerEventStream(env: Env, partner: Partner): StreamTarget {
  return env.PARTNER_EVENTS.getByName(partnerEventsName(partner.id, partner.livemode ? "live" : "test"));
}

/** Opens the stream on its object: an SSE answer, or a WebSocket upgrade's 101. */
export async function openStream(target: StreamTarget, open: StreamOpen): Promise<Response> {
  const res = await target.fetch(streamOpenRequest(open));
  if (res.status === 404)
    throw new DomainError(
      "event_not_found",
      `Last event id ${open.lastEventId} is not in this stream's log (a partner's stream keeps at least 7 days): reconnect without it and read the orders' current state.`,
    );
  return res;
}
