/**
 * Address screening's lists (migrations/0052_screening.sql) and the one lookup every caller uses:
 * order creation, POST /partner/screen and the order object's payout step (docs/operators.md,
 * "Screening"). The lists are held in isolate memory, so screening an address costs a map lookup,
 * not a D1 query.
 */
import { type IssuerBlocklistReader, issuerReaderFor } from "../adapters/screening/issuer-blocklist";
import { type RiskVendor, riskVendorFor } from "../adapters/screening/risk-vendor";
import { getConfig } from "../config";
import { addressFamily } from "../domain/addresses";
import {
  addressWord,
  ISSUER_BLOCKLISTS,
  type Listing,
  type ScreenItem,
  type ScreeningCategory,
  type ScreenResult,
  screenLocally,
  TEST_LIST_VERSION,
  TEST_LISTING,
  withFinding,
} from "../domain/screening";
import { TtlCache } from "../lib/ttl-cache";

/** The sanctions list changes daily at most: a minute in memory costs nothing in freshness. */
const LIST_TTL_MS = 60_000;
/** The operator's entries: a few seconds, as the catalog (an edit applies at once in its own isolate). */
const ENTRIES_TTL_MS = 5_000;

export interface SanctionsAsset {
  fetched_at: string;
  keys: string[];
}

/** The stored list row. */
export interface SanctionsRow {
  version: string;
  assets: Record<string, SanctionsAsset>;
  attempted_at: string;
  error: string | null;
}

export interface SanctionsList {
  listing: Listing;
  version: string | null;
  /** The oldest asset file's last good download (the list's age); null before the first. */
  fetchedAt: string | null;
  addresses: number;
  attemptedAt: string | null;
  error: string | null;
}

/**
 * Issuer and vendor answers, per isolate: briefly, so a burst of orders to one address asks once
 * while a new listing still applies within minutes. Failed answers are not kept.
 */
const ANSWER_TTL_MS = 5 * 60_000;
const issuerAnswers = new TtlCache<boolean>(ANSWER_TTL_MS, 5_000);
const vendorAnswers = new TtlCache<ScreeningCategory[]>(ANSWER_TTL_MS, 5_000);

const lists = new TtlCache<SanctionsList>(LIST_TTL_MS, 1);
const entryCache = new TtlCache<Listing>(ENTRIES_TTL_MS, 1);

export async function readSanctionsRow(db: D1Database): Promise<SanctionsRow | null> {
  const row = await db
    .prepare("SELECT version, assets_json, attempted_at, error FROM sanctions_list WHERE id = 1")
    .first<{ version: string; assets_json: string; attempted_at: string; error: string | null }>();
  return row
    ? {
        version: row.version,
        assets: JSON.parse(row.assets_json) as Record<string, SanctionsAsset>,
        attempted_at: row.attempted_at,
        error: row.error,
      }
    : null;
}

export async function putSanctionsRow(db: D1Database, row: SanctionsRow): Promise<void> {
  await db
    .prepare(
      `INSERT INTO sanctions_list (id, version, assets_json, attempted_at, error) VALUES (1, ?1, ?2, ?3, ?4)
       ON CONFLICT (id) DO UPDATE SET version = ?1, assets_json = ?2, attempted_at = ?3, error = ?4`,
    )
    .bind(row.version, JSON.stringify(row.assets), row.attempted_at, row.error)
    .run();
  lists.clear();
}

/** The sanctions list this isolate screens against (refreshed from D1 every minute). */
export function loadSanctions(db: D1Database): Promise<SanctionsList> {
  return lists.get("all", async () => {
    const row = await readSanctionsRow(db);
    const listing = new Map<string, ScreeningCategory[]>();
    let fetchedAt: string | null = null;
    for (const asset of Object.values(row?.assets ?? {})) {
      for (const key of asset.keys) listing.set(key, ["sanctions"]);
      if (fetchedAt === null || asset.fetched_at < fetchedAt) fetchedAt = asset.fetched_at;
    }
    return {
      listing,
      version: row && listing.size > 0 ? row.version : null,
      fetchedAt,
      addresses: listing.size,
      attemptedAt: row?.attempted_at ?? null,
      error: row?.error ?? null,
    };
  });
}

export interface ScreeningEntry {
  id: string;
  network: string;
  address: string;
  category: ScreeningCategory;
  note: string;
  created_at: string;
  created_by: string;
}

function loadEntries(db: D1Database): Promise<Listing> {
  return entryCache.get("all", async () => {
    const { results } = await db
      .prepare("SELECT match_key, category FROM screening_entries")
      .all<{ match_key: string; category: ScreeningCategory }>();
    const out = new Map<string, ScreeningCategory[]>();
    for (const r of results) out.set(r.match_key, [...(out.get(r.match_key) ?? []), r.category]);
    return out;
  });
}

/** Called after an operator edit so this isolate applies it at once. */
export function invalidateScreeningEntries(): void {
  entryCache.clear();
}

export async function listScreeningEntries(db: D1Database): Promise<ScreeningEntry[]> {
  const { results } = await db
    .prepare(
      "SELECT id, network, address, category, note, created_at, created_by FROM screening_entries ORDER BY created_at, id",
    )
    .all<ScreeningEntry>();
  return results;
}

export function getScreeningEntry(db: D1Database, id: string): Promise<ScreeningEntry | null> {
  return db
    .prepare(
      "SELECT id, network, address, category, note, created_at, created_by FROM screening_entries WHERE id = ?",
    )
    .bind(id)
    .first<ScreeningEntry>();
}

export function insertScreeningEntryStatement(
  db: D1Database,
  e: ScreeningEntry,
  matchKey: string,
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO screening_entries (id, network, address, match_key, category, note, created_at, created_by)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(e.id, e.network, e.address, matchKey, e.category, e.note, e.created_at, e.created_by);
}

export function deleteScreeningEntryStatement(db: D1Database, id: string): D1PreparedStatement {
  return db.prepare("DELETE FROM screening_entries WHERE id = ?").bind(id);
}

export type ScreeningMode = "live" | "test";

/** An address to screen; with the asset sent to it, an issuer's blocklist is asked too (USDT, USDC). */
export interface ScreenTarget extends ScreenItem {
  asset?: { coin: string; contract: string | null } | undefined;
}

/** Drops the issuer's and vendor's cached answers (tests). */
export function forgetScreeningAnswers(): void {
  issuerAnswers.clear();
  vendorAnswers.clear();
}

/**
 * Screens addresses: live ones against the sanctions list, the stablecoin issuer's blocklist and
 * the risk vendor when configured; test ones against test mode's listed addresses
 * (src/domain/screening.ts TEST_LISTED); both against the operator's entries. Answers in the order
 * asked, and never throws for an address: a provider that fails or is late makes it "unknown".
 * The vendor is asked about the first `vendorAtMost` items only (the rest: the lists alone).
 */
export async function screenAddresses(
  env: Env,
  mode: ScreeningMode,
  items: readonly ScreenTarget[],
  now: number,
  vendorAtMost = items.length,
): Promise<ScreenResult[]> {
  const [list, entries] = await Promise.all([
    mode === "live" ? loadSanctions(env.DB) : { listing: TEST_LISTING, version: TEST_LIST_VERSION },
    loadEntries(env.DB),
  ]);
  const at = new Date(now).toISOString();
  const local = items.map(({ network, address }) => screenLocally({ network, address }, list, entries, at));
  if (mode === "test") return local;
  const config = getConfig(env);
  const vendor = riskVendorFor(config);
  return Promise.all(
    items.map(async (item, i) => {
      let r = local[i] as ScreenResult;
      const issuer = issuerFinding(issuerReaderFor(config, item.network.toUpperCase()), item, now);
      const risk =
        vendor && r.result !== "listed" && i < vendorAtMost ? vendorFinding(vendor, item, now) : null;
      for (const finding of await Promise.all([issuer, risk]))
        if (finding !== null) r = withFinding(r, finding);
      return r;
    }),
  );
}

type Finding = ScreeningCategory[] | "unknown";

async function issuerFinding(
  reader: IssuerBlocklistReader | null,
  item: ScreenTarget,
  now: number,
): Promise<Finding | null> {
  const blocklist = item.asset && ISSUER_BLOCKLISTS[item.asset.coin];
  const contract = item.asset?.contract;
  if (!blocklist || !contract || reader === null) return null;
  const family = addressFamily(item.network.toUpperCase());
  const word = family === reader.family ? addressWord(reader.family, item.address) : null;
  if (word === null) return null;
  try {
    const blocked = await issuerAnswers.get(
      `${item.network}\n${contract}\n${word}`,
      () => reader.isBlocked({ contract, word, ...blocklist }),
      now,
    );
    return blocked ? ["issuer_blocked"] : [];
  } catch (err) {
    console.error(
      JSON.stringify({ level: "warn", msg: "issuer blocklist check failed", error: String(err) }),
    );
    return "unknown";
  }
}

async function vendorFinding(vendor: RiskVendor, item: ScreenTarget, now: number): Promise<Finding> {
  try {
    return await vendorAnswers.get(item.address, () => vendor.screen(item.address), now);
  } catch (err) {
    console.error(
      JSON.stringify({ level: "warn", msg: "screening vendor did not answer", error: String(err) }),
    );
    return "unknown";
  }
}
