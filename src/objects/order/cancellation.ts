import { isLive, type OrderView } from "../../domain/order";
import type { OrderContext } from "./context";
import type { PartnerView } from "./view";

export type CancelResult =
  | { kind: "done"; order: OrderView }
  | { kind: "not_found" }
  | { kind: "not_available"; reason: string };

/**
 * A partner abandons an order nobody has paid (docs/orders.md, "Cancelling an order"): it expires
 * now with `status_reason: "cancelled"`, through the same transition as an expiry, so its deposit
 * watch ends and the late-deposit watch starts at once (a deposit sent anyway is seen and refunded
 * like any late deposit). `expires_at` and the watch's end move to the moment of cancelling, so the
 * order reads as expired then. Cancelling a cancelled order answers it again; the check and the
 * write run with no await between them, so a deposit seen meanwhile wins.
 */
export async function cancelOrder(
  c: OrderContext,
  view: PartnerView,
  partner: { id: string; livemode: boolean },
): Promise<CancelResult> {
  const r = c.record();
  // A key sees only its own mode's orders (docs/test-mode.md).
  if (!r || r.partnerId !== partner.id || isLive(r) !== partner.livemode) return { kind: "not_found" };
  const now = c.now();
  if (r.status === "expired" && r.statusReason === "cancelled")
    return { kind: "done", order: await view.view(r, now) };
  if (r.status !== "waiting_deposit")
    return {
      kind: "not_available",
      reason: `the order is ${r.status}; only an order waiting for its deposit can be cancelled`,
    };
  const next = c.apply(r, { type: "cancel" }, now, {
    expiresAt: new Date(now).toISOString(),
    lateWatchEndsAt: new Date(now + c.config.LATE_DEPOSIT_WATCH_HOURS * 3_600_000).toISOString(),
  });
  if (!next) return { kind: "not_available", reason: `the order cannot be cancelled in ${r.status}` };
  await c.arm(now);
  return { kind: "done", order: await view.view(next, now) };
}
