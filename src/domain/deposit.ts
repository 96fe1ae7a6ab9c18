import { addressFamily } from "./addresses";

export type DerivableFamily = "btc" | "ltc" | "doge" | "evm" | "tron";
const DERIVABLE: readonly string[] = ["btc", "ltc", "doge", "evm", "tron"];

/** How an order on a network gets its deposit address (DESIGN.md §4). */
export type DepositScheme =
  | { kind: "derive"; family: DerivableFamily; xpub: string; counter: string }
  | { kind: "memo"; address: string; counter: string }
  | { kind: "pool"; network: string }
  | { kind: "none"; reason: string };

export interface DepositConfig {
  /** DEPOSIT_XPUB_<FAMILY> values by upper-case family (BTC, LTC, DOGE, EVM, TRON). */
  xpubs: Readonly<Record<string, string>>;
  /** DEPOSIT_ADDRESS_<NETWORK> values by network (memo networks). */
  addresses: Readonly<Record<string, string>>;
}

/**
 * Memo networks share one configured address and tell orders apart by tag; secp256k1 chains derive
 * a fresh address per order from the account xpub (one counter per xpub, so ETH and BSC, which
 * share the EVM xpub, never hand out the same index twice); ed25519 chains without public
 * derivation draw from an operator-loaded pool.
 */
export function depositScheme(network: string, isMemo: boolean, config: DepositConfig): DepositScheme {
  if (isMemo) {
    const address = config.addresses[network];
    if (!address) return { kind: "none", reason: `no deposit address is configured for ${network}` };
    return { kind: "memo", address, counter: `tag:${network}` };
  }
  const family = addressFamily(network);
  if (family === "sol") return { kind: "pool", network };
  if (family && DERIVABLE.includes(family)) {
    const xpub = config.xpubs[family.toUpperCase()];
    if (!xpub) return { kind: "none", reason: `no deposit xpub is configured for ${network}` };
    return { kind: "derive", family: family as DerivableFamily, xpub, counter: `xpub:${xpub}` };
  }
  return { kind: "none", reason: `deposits on ${network} are not supported` };
}

/** Memo tags start at six digits: short enough to type, never confused with small ids. */
export const FIRST_MEMO_TAG = 100_000;
