import { addressFamily, validateAddress } from "./addresses";
import type { CurrencyRow } from "./currency";
import { DomainError } from "./errors";
import { parseDecimal } from "./money";

/** The catalog fields an operator sets; identity (id, coin, network) is fixed at creation. */
export type CurrencyFields = Omit<CurrencyRow, "id" | "coin" | "network">;

export interface CurrencyProblem {
  field: string;
  message: string;
}

const PLACEHOLDER = { explorer_tx_url: "{txid}", explorer_address_url: "{address}" } as const;

function explorerProblem(field: keyof typeof PLACEHOLDER, template: string | null): string | null {
  if (template === null) return null;
  const placeholder = PLACEHOLDER[field];
  if (!template.includes(placeholder)) return `must contain ${placeholder}`;
  let url: URL;
  try {
    url = new URL(template.replaceAll(placeholder, "x"));
  } catch {
    return "must be an absolute URL";
  }
  // Partners render these links to end users: never a script or plain-http link.
  return url.protocol === "https:" ? null : "must be an https URL";
}

function precisionProblem(value: string, decimals: number): string | null {
  return parseDecimal(value).decimalPlaces() > decimals ? `has more than ${decimals} decimal places` : null;
}

/**
 * Everything wrong with a catalog row as it would be after an operator's change (all problems at
 * once, so one round trip shows them all). `inUse`: an order already names this row, so its
 * decimals are frozen (stored amounts and quotes were rounded with them).
 */
export function currencyProblems(
  next: CurrencyRow,
  before: CurrencyRow | null,
  inUse: boolean,
): CurrencyProblem[] {
  const problems: CurrencyProblem[] = [];
  const add = (field: string, message: string | null) => {
    if (message !== null) problems.push({ field, message });
  };
  // Rows seeded for networks without address rules stay editable; new ones need the rules.
  const family = addressFamily(next.network);
  if (family === undefined && before === null)
    add("network", `unsupported network ${next.network} (docs/networks.md lists the supported ones)`);
  if (next.contract_address !== null && next.contract_address !== before?.contract_address) {
    const check = validateAddress(next.network, next.contract_address);
    if (!check.ok) add("contract_address", `not a valid ${next.network} address: ${check.reason}`);
  }
  const min = parseDecimal(next.min_amount);
  if (min.isZero()) add("min_amount", "must be greater than 0");
  if (min.greaterThan(parseDecimal(next.max_amount))) add("max_amount", "must not be below min_amount");
  for (const field of ["min_amount", "max_amount", "withdraw_fee"] as const)
    add(field, precisionProblem(next[field], next.decimals));
  add("explorer_tx_url", explorerProblem("explorer_tx_url", next.explorer_tx_url));
  add("explorer_address_url", explorerProblem("explorer_address_url", next.explorer_address_url));
  if (before && inUse && before.decimals !== next.decimals)
    add("decimals", "cannot change once an order uses this currency");
  return problems;
}

/** The canonical form of a contract address (as the network's rules print it), stored instead of the input. */
export function canonicalContract(network: string, address: string | null): string | null {
  if (address === null) return null;
  const check = validateAddress(network, address);
  return check.ok ? check.address : address;
}

/** Throws the problems as one 422 `invalid_catalog_change`; nothing is written. */
export function requireValidCurrency(next: CurrencyRow, before: CurrencyRow | null, inUse: boolean): void {
  const problems = currencyProblems(next, before, inUse);
  if (problems.length === 0) return;
  const detail = problems.map((p) => `${p.field}: ${p.message}`).join("; ");
  throw new DomainError("invalid_catalog_change", `Invalid catalog change: ${detail}.`);
}
