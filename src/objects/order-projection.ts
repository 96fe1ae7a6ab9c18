import { isLive, type OrderRecord } from "../domain/order";
import { indexDetails } from "../domain/order-index";
import { type OrderIndexRow, projectOrderIndex } from "../storage/orders";

/** The D1 index row of an order: what lists, the cabinet and the sweep read. */
export function indexRow(r: OrderRecord, needsAction = false): OrderIndexRow {
  return {
    id: r.id,
    short_id: r.shortId,
    partner_id: r.partnerId,
    status: r.status,
    coin_from: r.coinFrom,
    network_from: r.networkFrom,
    coin_to: r.coinTo,
    network_to: r.networkTo,
    deposit_address: r.depositAddress,
    deposit_address_tag: r.depositAddressTag,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    expires_at: r.expiresAt,
    livemode: isLive(r) ? 1 : 0,
    needs_action: needsAction ? 1 : 0,
  };
}

/**
 * Projects an order into the D1 index as of `version`, its event-log position (the object's
 * outbox step, run from its alarm). The object is the source of truth and keeps a pending flag
 * until this succeeds, so a failed or evicted projection is retried; the version guard makes the
 * retry, and any stale duplicate, change nothing.
 */
export function projectOrder(
  db: D1Database,
  r: OrderRecord,
  version: number,
  needsAction = false,
): Promise<boolean> {
  return projectOrderIndex(db, indexRow(r, needsAction), indexDetails(r), version);
}
