/**
 * Address screening (docs/operators.md, "Screening"): which addresses are listed, and why. Pure:
 * the lists themselves are loaded by src/storage/screening.ts.
 *
 * Addresses are matched by address family, not by network: the same key controls an address on
 * every EVM chain (and OFAC lists a person's address, whatever the chain), so an address on the
 * ETH list is listed on BSC, Arbitrum and the others too. The match key is the family's canonical
 * form: lower-case hex on EVM chains, lower-case bech32, prefixed lower-case CashAddr for Bitcoin
 * Cash (a legacy address matches its CashAddr), and case-sensitive base58 where the chain is so.
 */
import { addressFamily, validateForFamily } from "./addresses";
import { decodeBase58Check } from "./addresses/encoding";
import type { AddressFamily } from "./addresses/types";
import { DomainError, type Refusal } from "./errors";

/**
 * Why an address is listed: `sanctions` (the OFAC SDN list), `issuer_blocked` (a stablecoin
 * issuer's blocklist), `operator` (the operator's own entries), `risk` (a risk vendor's finding).
 */
export const SCREENING_CATEGORIES = ["sanctions", "issuer_blocked", "operator", "risk"] as const;
export type ScreeningCategory = (typeof SCREENING_CATEGORIES)[number];

export type ScreenVerdict = "clear" | "listed" | "unknown";

export interface ScreenItem {
  network: string;
  address: string;
}

/** One address's answer (POST /partner/screen, order creation, the payout step). */
export interface ScreenResult {
  network: string;
  address: string;
  result: ScreenVerdict;
  categories: ScreeningCategory[];
  /** The sanctions list's version the answer used (`test` in test mode); null when none is loaded. */
  list_version: string | null;
  checked_at: string;
}

/** The key an address is listed under in its family, or null for a network the service does not know. */
export function matchKey(network: string, address: string): string | null {
  const family = addressFamily(network.toUpperCase());
  return family === undefined ? null : familyKey(family, address.trim());
}

export function familyKey(family: AddressFamily, address: string): string {
  const checked = validateForFamily(family, address);
  const canonical = checked.ok ? checked.address : address;
  return `${family}:${family === "evm" ? canonical.toLowerCase() : canonical}`;
}

/**
 * Test mode's listed addresses (docs/test-mode.md, "Screening"): valid addresses nobody holds the
 * key of, one per category a partner may want to see refused. Test orders are screened against
 * these (and the operator's entries), never against the live sanctions list.
 */
export const TEST_LISTED: readonly { family: AddressFamily; address: string; category: ScreeningCategory }[] =
  [
    { family: "evm", address: "0x5C12ee0000000000000000000000000000005c12", category: "sanctions" },
    { family: "evm", address: "0x5C12EE000000000000000000000000000000715C", category: "risk" },
    { family: "btc", address: "bc1qt3w9chzut3w9chzut3w9chzut3w9chzufdsq3l", category: "sanctions" },
    { family: "tron", address: "TJPZp3h26cfFoz7mzyxNofcNR7GGenKf8V", category: "issuer_blocked" },
  ];

export const TEST_LIST_VERSION = "test";

/** Listed keys and their categories. */
export type Listing = ReadonlyMap<string, readonly ScreeningCategory[]>;

export const TEST_LISTING: Listing = new Map(
  TEST_LISTED.map((t) => [familyKey(t.family, t.address), [t.category]] as const),
);

/** What a list says of one address, besides what other sources (vendor, issuer) add. */
export function screenLocally(
  item: ScreenItem,
  list: { listing: Listing; version: string | null },
  entries: Listing,
  checkedAt: string,
): ScreenResult {
  const key = matchKey(item.network, item.address);
  const found = new Set<ScreeningCategory>(
    key === null ? [] : [...(list.listing.get(key) ?? []), ...(entries.get(key) ?? [])],
  );
  const r = withFinding(
    { ...item, result: "clear", categories: [], list_version: list.version, checked_at: checkedAt },
    [...found],
  );
  // Without a list, what is not listed by the entries is not known to be clear.
  return list.version === null ? withFinding(r, "unknown") : r;
}

/**
 * An answer with another source's finding: its categories (none: clear), or "unknown" when it could
 * not answer. A listed answer stays listed; an unknown one never hides a listing.
 */
export function withFinding(
  r: ScreenResult,
  finding: readonly ScreeningCategory[] | "unknown",
): ScreenResult {
  if (finding === "unknown") return r.result === "clear" ? { ...r, result: "unknown" } : r;
  const categories = [...new Set([...r.categories, ...finding])].sort(
    (a, b) => SCREENING_CATEGORIES.indexOf(a) - SCREENING_CATEGORIES.indexOf(b),
  );
  return { ...r, categories, result: categories.length > 0 ? "listed" : r.result };
}

/**
 * Of several screened addresses (a deposit's inputs), the one that decides a hold: the first listed
 * under the gravest category (SCREENING_CATEGORIES' order, as each answer's categories are sorted),
 * so a sanctioned input is never outweighed by another input's lesser match; null when none is listed.
 */
export function gravestListed(
  results: readonly ScreenResult[],
): { address: string; category: ScreeningCategory } | null {
  let found: { address: string; category: ScreeningCategory } | null = null;
  for (const r of results) {
    const category = r.result === "listed" ? r.categories[0] : undefined;
    if (
      category &&
      (!found || SCREENING_CATEGORIES.indexOf(category) < SCREENING_CATEGORIES.indexOf(found.category))
    )
      found = { address: r.address, category };
  }
  return found;
}

/**
 * The sanctions mirror's asset files (0xB10C/ofac-sanctioned-digital-currency-addresses, branch
 * `lists`, `sanctioned_addresses_<ASSET>.txt`) and the address families their lines may be. A
 * stablecoin's file holds addresses of every chain it runs on.
 */
export const SANCTIONS_ASSETS: Readonly<Record<string, readonly AddressFamily[]>> = {
  XBT: ["btc"],
  BCH: ["bch"],
  LTC: ["ltc"],
  ETH: ["evm"],
  ETC: ["evm"],
  BSC: ["evm"],
  USDC: ["evm", "tron", "sol"],
  USDT: ["evm", "tron", "sol"],
  TRX: ["tron"],
  XRP: ["xrp"],
  SOL: ["sol"],
};

/** One address per line (the mirror's documented TXT format); no line may be anything else. */
const ADDRESS_TOKEN = /^[A-Za-z0-9:]{20,128}$/;

export type ParsedList = { ok: true; keys: string[] } | { ok: false; reason: string };

/**
 * An asset file's match keys, or why it must not replace the list held: an empty file, a line
 * that is not an address token (an HTML error page, JSON), or more lines failing the asset's
 * address rules than passing. A line that fails its rules is still kept under the asset's first
 * family (an EVM address with a wrong checksum is still that address in lower case).
 */
export function parseSanctionsFile(asset: string, body: string): ParsedList {
  const families = SANCTIONS_ASSETS[asset];
  if (!families?.[0]) return { ok: false, reason: `unknown asset ${asset}` };
  const lines = body
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
  if (lines.length === 0) return { ok: false, reason: "empty" };
  const keys = new Set<string>();
  let invalid = 0;
  for (const line of lines) {
    if (!ADDRESS_TOKEN.test(line))
      return { ok: false, reason: `a line is not an address: ${line.slice(0, 40)}` };
    const family = families.find((f) => validateForFamily(f, line).ok);
    if (family === undefined) invalid++;
    keys.add(familyKey(family ?? families[0], line));
  }
  if (invalid * 2 > lines.length)
    return { ok: false, reason: `${invalid} of ${lines.length} lines are not ${asset} addresses` };
  return { ok: true, keys: [...keys].sort() };
}

/** A screened address on an order, by the request field it came in. */
export interface ScreenedField {
  field: "recipient_address" | "refund_address";
  result: ScreenResult;
}

/**
 * 422 `address_screened` for the listed fields (docs/errors.md): one `errors[]` item per field and
 * category. The detail names the category, never the list's source beyond it.
 */
export function screenedError(listed: readonly ScreenedField[]): DomainError {
  const reasons: Refusal[] = listed.flatMap(({ field, result }) =>
    result.categories.map((category) => ({
      code: "address_screened" as const,
      detail: `${field} is listed (${category}); this service cannot send to it.`,
      field,
      category,
    })),
  );
  const first = reasons[0];
  if (!first) throw new Error("screenedError() needs a listed field");
  return new DomainError("address_screened", first.detail, undefined, reasons);
}

/**
 * The stablecoins whose issuer keeps an on-chain blocklist, and its getter: Tether's USDT
 * `isBlackListed(address)` and Circle's FiatToken (USDC) `isBlacklisted(address)`; the selector is
 * the first 4 bytes of the signature's keccak-256 (test/domain/screening.test.ts checks them).
 */
export const ISSUER_BLOCKLISTS: Readonly<Record<string, { signature: string; selector: string }>> = {
  USDT: { signature: "isBlackListed(address)", selector: "e47d6060" },
  USDC: { signature: "isBlacklisted(address)", selector: "fe575a87" },
};

/** An address as one ABI word (32 bytes, hex): its 20-byte account id, left-padded. */
export function addressWord(family: "evm" | "tron", address: string): string | null {
  let hex: string;
  if (family === "evm") {
    if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return null;
    hex = address.slice(2).toLowerCase();
  } else {
    const decoded = decodeBase58Check("bitcoin", address);
    if (!decoded.ok || decoded.bytes.length !== 21 || decoded.bytes[0] !== 0x41) return null;
    hex = [...decoded.bytes.subarray(1)].map((b) => b.toString(16).padStart(2, "0")).join("");
  }
  return hex.padStart(64, "0");
}
