import type { ServiceLevel } from "./service-status";

/**
 * A deposit-address pool's stock (networks without public derivation, SOL; docs/networks.md,
 * "Address pools"): what the service can still give new orders, and what that means for them.
 */
export interface PoolStock {
  /** Unassigned addresses: held by a regional shard or not. The quote's pre-check counts these. */
  free: number;
  /** Unassigned and held by no shard: what a shard that runs out can still take from D1. */
  unreserved: number;
}

/**
 * The pool's effect on the network's deposits: none left, every order is refused (`down`); none
 * left for the shards to take, a region whose shard runs out refuses orders (`degraded`).
 */
export function poolDepositLevel(s: PoolStock): { level: ServiceLevel; reason: string | null } {
  if (s.free === 0) return { level: "down", reason: "no deposit addresses are left: new orders are refused" };
  if (s.unreserved === 0)
    return { level: "degraded", reason: "deposit addresses are running out: some new orders are refused" };
  return { level: "operational", reason: null };
}

/** Below the low-water mark the operator is alerted, before the pool runs out. */
export const poolIsLow = (s: PoolStock, lowWater: number): boolean => s.free < lowWater;
