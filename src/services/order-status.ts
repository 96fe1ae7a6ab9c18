// The order as its keyless readers see it: the status API and the tracking page (docs/widget.md).
import type { Config } from "../config";
import { chainModeFor } from "../domain/chain-mode";
import type { OrderView } from "../domain/order";
import { parseTrackRef } from "../domain/order-link";
import {
  isFinal,
  type PublicOrderStatus,
  publicOrderStatus,
  type StatusTimes,
  type TimelineStep,
  timeline,
} from "../domain/order-status";
import { loadCatalog } from "../storage/catalog";
import { getPartner } from "../storage/partners";

/**
 * The order a keyless link names (`<uuid>.<token>`, or the bare UUID of an order from before
 * tokens; src/domain/order-link.ts), with its owner (for the tracking page's support contact; never
 * sent by the API). Every well-formed link asks its object, which checks the token, so an unknown
 * order costs the same time as a wrong token or a known one.
 */
export async function trackOrder(
  env: Env,
  ref: string,
): Promise<{ order: OrderView; partnerId: string; reached: StatusTimes } | null> {
  const link = parseTrackRef(ref);
  return link && env.ORDERS.getByName(link.id).track(link.token);
}

/** What the tracking page shows of an order. */
export interface Tracking {
  status: PublicOrderStatus;
  partnerId: string;
  steps: TimelineStep[];
  /** Explorer URL templates (`{txid}`) by network: only for live orders on real chains. */
  explorers: Record<string, string>;
  /** The partner's support contact (its cabinet contact e-mail), only for an order on hold or paid on another network. */
  support: string | null;
  final: boolean;
}

export async function tracking(env: Env, config: Config, ref: string): Promise<Tracking | null> {
  const found = await trackOrder(env, ref);
  if (!found) return null;
  const status = publicOrderStatus(found.order);
  const explorers: Record<string, string> = {};
  if (status.livemode) {
    for (const c of await loadCatalog(env.DB)) {
      const real = chainModeFor(config.CHAIN_MODE, c.network) !== "simulated";
      if (real && c.explorer_tx_url && [status.network_from, status.network_to].includes(c.network))
        explorers[c.network] = c.explorer_tx_url;
    }
  }
  const held = status.status === "failed" || status.wrong_network_deposits.length > 0;
  const support = held ? ((await getPartner(env.DB, found.partnerId))?.contact_email ?? null) : null;
  return {
    status,
    partnerId: found.partnerId,
    steps: timeline(status, found.reached),
    explorers,
    support,
    final: isFinal(status.status),
  };
}
