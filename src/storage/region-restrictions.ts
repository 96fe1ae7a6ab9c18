import { NO_RESTRICTIONS, type RegionRestrictions } from "../domain/region-restrictions";
import { TtlCache } from "../lib/ttl-cache";

/** As the catalog: a few seconds in isolate memory, so a quote's region check costs no D1 query. */
const RESTRICTIONS_TTL_MS = 5_000;
const cache = new TtlCache<RegionRestrictions>(RESTRICTIONS_TTL_MS, 1);

/** The operator's region restrictions (none until set). */
export function loadRegionRestrictions(db: D1Database): Promise<RegionRestrictions> {
  return cache.get("all", async () => {
    const row = await db
      .prepare("SELECT config_json FROM region_restrictions WHERE id = 1")
      .first<{ config_json: string }>();
    return row ? (JSON.parse(row.config_json) as RegionRestrictions) : NO_RESTRICTIONS;
  });
}

/** Called after an operator edit so this isolate applies it at once. */
export function invalidateRegionRestrictions(): void {
  cache.clear();
}

/** The UPSERT of the whole configuration, for a batch with its audit entry. */
export function putRegionRestrictionsStatement(
  db: D1Database,
  r: RegionRestrictions,
  at: string,
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO region_restrictions (id, config_json, updated_at) VALUES (1, ?1, ?2)
       ON CONFLICT (id) DO UPDATE SET config_json = ?1, updated_at = ?2`,
    )
    .bind(JSON.stringify(r), at);
}
