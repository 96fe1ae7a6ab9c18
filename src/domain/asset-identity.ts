/**
 * An asset named the way a wallet knows it: its network (or, on EVM networks, the EIP-155 chain
 * id) and its token contract, with no ticker to map (docs/integrate.md, "For wallet teams").
 */
import { addressFamily } from "./addresses";
import { networkFacts } from "./networks";

export { networkOfChainId } from "./networks";

/** The EIP-155 chain id of an EVM network; null elsewhere. */
export function chainIdOf(network: string): number | null {
  return networkFacts(network)?.chainId ?? null;
}

/**
 * Whether a contract a caller gave is the catalog's: EVM addresses are hex and their letter case
 * is only a checksum, so they compare case-insensitively; elsewhere (TRON base58, Solana mints)
 * case is part of the address and they compare exactly.
 */
export function sameContract(network: string, given: string, stored: string): boolean {
  return addressFamily(network) === "evm" ? given.toLowerCase() === stored.toLowerCase() : given === stored;
}
