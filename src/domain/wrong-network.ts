import type { CurrencyRow } from "./currency";
import { networkFacts } from "./networks";

/**
 * Wrong-network deposits (docs/lifecycle.md, "Deposits on another EVM network"): one EVM key gives
 * an order the same deposit address on every EVM chain, so a catalog asset sent to it on a sibling
 * chain reached an address the service controls. It is recorded on the order, never credited as its
 * deposit, and its refund is offered on the chain it arrived on.
 */

/** An asset of a sibling chain the order's address is watched for (a catalog row's). */
export interface SiblingAsset {
  coin: string;
  network: string;
  contract: string | null;
  decimals: number;
  /** The arrival chain's confirmations before its refund may be sent. */
  confirmations: number;
}

/**
 * The active catalog assets of every other EVM network: where a deposit to an order on `network`
 * lands if sent on the wrong chain. None off EVM (other families' addresses are their chain's own).
 */
export function siblingAssets(catalog: readonly CurrencyRow[], network: string): SiblingAsset[] {
  if (networkFacts(network)?.family !== "evm") return [];
  return catalog
    .filter((c) => c.is_active === 1 && c.network !== network && networkFacts(c.network)?.family === "evm")
    .map((c) => ({
      coin: c.coin,
      network: c.network,
      contract: c.contract_address,
      decimals: c.decimals,
      confirmations: c.min_confirmations,
    }));
}
