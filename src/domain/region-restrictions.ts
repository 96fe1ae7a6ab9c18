/**
 * Where the service may not serve (operator-configured, docs/operators.md "Region restrictions"):
 * countries refused everything, and coins refused in some countries. Countries are ISO 3166-1
 * alpha-2 codes as Cloudflare reports them (`request.cf.country`), upper case.
 */
import type { Refusal } from "./errors";

export interface RegionRestrictions {
  /** Countries served nothing. */
  countries: string[];
  /** Coin ticker → countries where that coin is neither accepted nor paid out. */
  coins: Record<string, string[]>;
}

export const NO_RESTRICTIONS: RegionRestrictions = { countries: [], coins: {} };

export const COUNTRY_RE = /^[A-Z]{2}$/;

/** Whether any country is refused anything: without restrictions, where a request comes from does not matter. */
export function restrictsAny(r: RegionRestrictions): boolean {
  if (r.countries.length > 0) return true;
  for (const _ in r.coins) return true;
  return false;
}

/** Whether a country is refused everything. Without a country (unknown origin) nothing is refused. */
export function countryRestricted(r: RegionRestrictions, country: string | null): boolean {
  return country !== null && r.countries.includes(country);
}

/** The coins refused in a country (besides the whole country being refused), sorted. */
export function restrictedCoins(r: RegionRestrictions, country: string | null): string[] {
  if (country === null) return [];
  return Object.keys(r.coins)
    .filter((coin) => r.coins[coin]?.includes(country))
    .sort();
}

/** The region reasons a request from `country` meets, for the coins on each side it names. */
export function regionRefusals(
  r: RegionRestrictions,
  country: string | null,
  coins: { from?: string | undefined; to?: string | undefined },
): Refusal[] {
  if (country === null) return [];
  if (countryRestricted(r, country))
    return [{ code: "region_restricted", detail: `The service is not available in ${country}.` }];
  const refused = restrictedCoins(r, country);
  const out: Refusal[] = [];
  for (const side of ["from", "to"] as const) {
    const coin = coins[side];
    if (coin !== undefined && refused.includes(coin))
      out.push({ code: "region_restricted", side, detail: `${coin} is not available in ${country}.` });
  }
  return out;
}

/** GET /partner/permissions: whether a user in `country` can swap at all, and which coins not. */
export function permissionsFor(
  r: RegionRestrictions,
  country: string | null,
): { country: string | null; allowed: boolean; restricted_coins: string[] } {
  return {
    country,
    allowed: !countryRestricted(r, country),
    restricted_coins: countryRestricted(r, country) ? [] : restrictedCoins(r, country),
  };
}

/** The restrictions as stored: upper-case, de-duplicated, sorted, and no coin left with no country. */
export function normalizeRestrictions(r: RegionRestrictions): RegionRestrictions {
  const tidy = (list: readonly string[]) => [...new Set(list.map((c) => c.toUpperCase()))].sort();
  const merged = new Map<string, string[]>();
  for (const [coin, list] of Object.entries(r.coins))
    merged.set(coin.toUpperCase(), [...(merged.get(coin.toUpperCase()) ?? []), ...list]);
  const coins: Record<string, string[]> = {};
  for (const coin of [...merged.keys()].sort()) {
    const list = tidy(merged.get(coin) ?? []);
    if (list.length > 0) coins[coin] = list;
  }
  return { countries: tidy(r.countries), coins };
}
