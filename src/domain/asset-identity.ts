/**
 * An asset named the way a wallet knows it: its network (or, on EVM networks, the EIP-155 chain
 * id) and its token contract, or its CAIP-19 id, with no ticker to map (docs/integrate.md, "For
 * wallet teams"; docs/networks.md, "Chain-agnostic ids").
 */
import { addressFamily } from "./addresses";
import { toChecksumAddress } from "./addresses/evm";
import { NETWORK_CODES, NETWORKS, type NetworkCode, networkFacts } from "./networks";

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

const EVM_HEX = /^0x[0-9a-fA-F]{40}$/;

/** A contract as answered: EVM in EIP-55 checksum case whatever case the catalog stores; elsewhere as stored. */
export function displayContract(network: string, contract: string): string {
  return addressFamily(network) === "evm" && EVM_HEX.test(contract)
    ? toChecksumAddress(contract.slice(2))
    : contract;
}

/**
 * A catalog row's CAIP-2 chain id and CAIP-19 asset id: the native coin by its SLIP-44 coin type
 * (CAIP-20), a token by its network's token namespace and contract. Null on a network the table
 * does not know.
 */
export function assetIds(
  network: string,
  contract: string | null,
): { caip2: string; caip19: string } | { caip2: null; caip19: null } {
  const facts = networkFacts(network);
  if (!facts || (contract !== null && facts.tokenNamespace === null)) return { caip2: null, caip19: null };
  const asset =
    contract === null
      ? `slip44:${facts.native.slip44}`
      : `${facts.tokenNamespace}:${displayContract(network, contract)}`;
  return { caip2: facts.caip2, caip19: `${facts.caip2}/${asset}` };
}

const BY_CAIP2: ReadonlyMap<string, NetworkCode> = new Map(NETWORK_CODES.map((c) => [NETWORKS[c].caip2, c]));

/** CAIP-19 `chain_id/asset_namespace:asset_reference` (ChainAgnostic/CAIPs caip-19.md), without a token id. */
const CAIP19 = /^([-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32})\/([-a-z0-9]{3,8}):([-.%a-zA-Z0-9]{1,128})$/;

/**
 * The network and token (null: the native coin) a CAIP-19 id names, or why it names nothing this
 * service knows: a malformed id, an unknown chain, a namespace the chain's assets are not in, or a
 * SLIP-44 coin type other than the chain's gas coin.
 */
export function parseAssetId(
  id: string,
): { network: NetworkCode; token: string | null } | { problem: string } {
  const m = CAIP19.exec(id);
  if (!m) return { problem: `${id} is not a CAIP-19 asset id (chain_id/namespace:reference)` };
  const [, caip2, namespace, reference] = m as unknown as [string, string, string, string];
  const network = BY_CAIP2.get(caip2);
  if (network === undefined) return { problem: `No network with CAIP-2 id ${caip2} is offered.` };
  const facts = NETWORKS[network];
  if (namespace === "slip44") {
    if (reference === String(facts.native.slip44)) return { network, token: null };
    return {
      problem: `slip44:${reference} is not the native coin of ${caip2} (slip44:${facts.native.slip44}).`,
    };
  }
  if (namespace === facts.tokenNamespace) return { network, token: reference };
  return { problem: `${caip2} has no assets in namespace ${namespace}.` };
}
