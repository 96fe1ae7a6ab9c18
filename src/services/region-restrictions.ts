import { normalizeRestrictions, type RegionRestrictions } from "../domain/region-restrictions";
import { auditStatement } from "../storage/operator-audit";
import {
  invalidateRegionRestrictions,
  loadRegionRestrictions,
  putRegionRestrictionsStatement,
} from "../storage/region-restrictions";
import type { Actor } from "./catalog-admin";

/**
 * PUT /admin/v1/region-restrictions: replaces the whole configuration, audited in the same D1
 * batch. This isolate applies it at once; others within the cache's few seconds.
 */
export async function setRegionRestrictions(
  env: Env,
  actor: Actor,
  input: RegionRestrictions,
): Promise<RegionRestrictions> {
  invalidateRegionRestrictions();
  const before = await loadRegionRestrictions(env.DB);
  const after = normalizeRestrictions(input);
  const at = new Date().toISOString();
  await env.DB.batch([
    putRegionRestrictionsStatement(env.DB, after, at),
    auditStatement(env.DB, {
      at,
      operator: actor.operator,
      action: "region_restrictions.set",
      entityType: "region_restrictions",
      entityId: "global",
      before,
      after,
      requestId: actor.requestId,
    }),
  ]);
  invalidateRegionRestrictions();
  return after;
}
