/**
 * Every network the service knows, one row each (docs/networks.md): everything else that needs a
 * network fact reads it here. Adding an EVM chain is one row below, its catalog rows (a
 * migration), its provider URL in configuration and one test row ("Add an EVM chain").
 */
import type { AddressFamily } from "./addresses/types";
import type { Refusal } from "./errors";

/**
 * How a network's blocks become final, which says what its confirmation count means:
 * - `probabilistic`: proof of work; each block on top makes a reorg exponentially less likely.
 * - `checkpointed`: blocks are final once a checkpoint (Casper FFG, BSC fast finality, TRON's
 *   solidified block, Solana's `finalized`) covers them; until then they can be reorganised.
 * - `rollup`: an L2 block is final when the L1 batch holding it is final on Ethereum.
 * - `instant`: a closed ledger or accepted block is final (XRPL, Stellar, TON, Avalanche).
 */
export type Finality = "probabilistic" | "checkpointed" | "rollup" | "instant";

/** How a memo network tells orders apart on its one shared address (docs/lifecycle.md). */
export type TagKind = "destination_tag" | "memo_text" | "comment";

export interface NetworkFacts {
  name: string;
  /** The address rules (src/domain/addresses). */
  family: AddressFamily;
  /** EIP-155 chain id (ethereum-lists/chains); null off EVM. */
  chainId: number | null;
  /** CAIP-2 chain id (ChainAgnostic/namespaces; docs/networks.md gives each one's source). */
  caip2: string;
  /** The gas coin and its SLIP-44 coin type (its CAIP-19 `slip44` asset reference). */
  native: { coin: string; slip44: number };
  /** The CAIP-19 asset namespace of the tokens the network's reader credits; null where it credits none. */
  tokenNamespace: "erc20" | "trc20" | "token" | null;
  /** The confirmations a deposit needs by default (a catalog row's `min_confirmations`) and where that figure comes from. */
  confirmations: { count: number; source: string };
  finality: Finality;
  /** Mean seconds between blocks (ledgers, slots), the ETA estimate's clock (src/domain/eta.ts); null where no figure is sourced yet (docs/networks.md, "Block times"). */
  blockSeconds: number | null;
  /** Mainnet explorer templates (`{txid}`, `{address}`), a catalog row's default. */
  explorer: { tx: string; address: string };
  /** The test network test orders' deposit addresses belong to (docs/test-mode.md); `addressExplorer` null where no explorer is relied on. */
  testnet: { name: string; chainId: number | null; addressExplorer: string | null };
  /** The deposit tag of a memo network; null elsewhere. */
  tag: TagKind | null;
  /**
   * What the venue (Binance) calls the network: `networkList[].network` of its
   * `GET /sapi/v1/capital/config/getall`, the name its deposits and withdrawals take (docs/networks.md,
   * "Venue network codes"); null where the venue has none, which refuses the network at quote when
   * the venue is the route's liquidity (venueRefusals).
   */
  venue: string | null;
}

const EXCHANGES = "what large exchanges publish (../shared/notes/chains-and-addresses.md §5)";
/** support.fireblocks.io, "Default Deposit Control and Confirmation Policy" (docs/networks.md). */
const FIREBLOCKS = "Fireblocks' default deposit confirmation policy";

/**
 * An EVM chain's row: EVM rows differ only in these facts (docs/networks.md, "Add an EVM chain").
 * Explorers follow EIP-3091 (`/tx/…`, `/address/…`).
 */
function evm(o: {
  name: string;
  chainId: number;
  native: { coin: string; slip44: number };
  confirmations: { count: number; source: string };
  finality: Finality;
  blockSeconds: number | null;
  explorer: string;
  testnet: { name: string; chainId: number; explorer: string | null };
  venue: string | null;
}): NetworkFacts {
  return {
    name: o.name,
    family: "evm",
    chainId: o.chainId,
    caip2: `eip155:${o.chainId}`,
    native: o.native,
    tokenNamespace: "erc20",
    confirmations: o.confirmations,
    finality: o.finality,
    blockSeconds: o.blockSeconds,
    explorer: { tx: `${o.explorer}/tx/{txid}`, address: `${o.explorer}/address/{address}` },
    testnet: {
      name: o.testnet.name,
      chainId: o.testnet.chainId,
      addressExplorer: o.testnet.explorer === null ? null : `${o.testnet.explorer}/address/{address}`,
    },
    tag: null,
    venue: o.venue,
  };
}

const TABLE = {
  BTC: {
    name: "Bitcoin",
    family: "btc",
    chainId: null,
    caip2: "bip122:000000000019d6689c085ae165831e93",
    native: { coin: "BTC", slip44: 0 },
    tokenNamespace: null,
    confirmations: { count: 2, source: `${EXCHANGES}: WhiteBIT 2, CEX.IO 3, Kraken 4` },
    finality: "probabilistic",
    blockSeconds: 600,
    explorer: { tx: "https://mempool.space/tx/{txid}", address: "https://mempool.space/address/{address}" },
    testnet: {
      name: "Bitcoin testnet4",
      chainId: null,
      addressExplorer: "https://mempool.space/testnet4/address/{address}",
    },
    tag: null,
    venue: "BTC",
  },
  BCH: {
    name: "Bitcoin Cash",
    family: "bch",
    chainId: null,
    // Not the genesis (Bitcoin's): the first block after the fork (docs/networks.md, CAIP-2 ids).
    caip2: "bip122:000000000000000000651ef99cb9fcbe",
    native: { coin: "BCH", slip44: 145 },
    tokenNamespace: null,
    confirmations: { count: 6, source: "the seed catalog's BCH row (migrations/0002_seed_catalog.sql)" },
    finality: "probabilistic",
    blockSeconds: 600,
    explorer: {
      tx: "https://blockchair.com/bitcoin-cash/transaction/{txid}",
      address: "https://blockchair.com/bitcoin-cash/address/{address}",
    },
    testnet: { name: "Bitcoin Cash testnet", chainId: null, addressExplorer: null },
    tag: null,
    venue: "BCH",
  },
  LTC: {
    name: "Litecoin",
    family: "ltc",
    chainId: null,
    caip2: "bip122:12a765e31ffd4059bada1e25190f6e98",
    native: { coin: "LTC", slip44: 2 },
    tokenNamespace: null,
    confirmations: { count: 6, source: `${EXCHANGES}: WhiteBIT 6` },
    finality: "probabilistic",
    blockSeconds: 150,
    explorer: {
      tx: "https://litecoinspace.org/tx/{txid}",
      address: "https://litecoinspace.org/address/{address}",
    },
    testnet: { name: "Litecoin testnet", chainId: null, addressExplorer: null },
    tag: null,
    venue: "LTC",
  },
  DOGE: {
    name: "Dogecoin",
    family: "doge",
    chainId: null,
    caip2: "bip122:1a91e3dace36e2be3bf030a65679fe82",
    native: { coin: "DOGE", slip44: 3 },
    tokenNamespace: null,
    confirmations: { count: 15, source: `${EXCHANGES}: WhiteBIT 15, Kraken 40` },
    finality: "probabilistic",
    blockSeconds: 60,
    explorer: {
      tx: "https://blockchair.com/dogecoin/transaction/{txid}",
      address: "https://blockchair.com/dogecoin/address/{address}",
    },
    testnet: { name: "Dogecoin testnet", chainId: null, addressExplorer: null },
    tag: null,
    venue: "DOGE",
  },
  ETH: evm({
    name: "Ethereum",
    chainId: 1,
    native: { coin: "ETH", slip44: 60 },
    confirmations: { count: 12, source: `${EXCHANGES}: Cryptopay 2–6, Kraken 20` },
    finality: "checkpointed",
    blockSeconds: 12,
    explorer: "https://etherscan.io",
    testnet: { name: "Sepolia", chainId: 11155111, explorer: "https://sepolia.etherscan.io" },
    venue: "ETH",
  }),
  BSC: evm({
    name: "BNB Smart Chain",
    chainId: 56,
    native: { coin: "BNB", slip44: 714 },
    confirmations: { count: 15, source: `${EXCHANGES}: Cryptopay 15` },
    finality: "checkpointed",
    blockSeconds: 0.75,
    explorer: "https://bscscan.com",
    testnet: { name: "BSC testnet", chainId: 97, explorer: "https://testnet.bscscan.com" },
    venue: "BSC",
  }),
  ARBITRUM: evm({
    name: "Arbitrum One",
    chainId: 42161,
    native: { coin: "ETH", slip44: 60 },
    confirmations: { count: 1, source: `${FIREBLOCKS}: 1 for chains it does not list otherwise` },
    finality: "rollup",
    blockSeconds: 0.25,
    explorer: "https://arbiscan.io",
    testnet: { name: "Arbitrum Sepolia", chainId: 421614, explorer: "https://sepolia.arbiscan.io" },
    venue: "ARBITRUM",
  }),
  OPTIMISM: evm({
    name: "OP Mainnet",
    chainId: 10,
    native: { coin: "ETH", slip44: 60 },
    confirmations: { count: 1, source: `${FIREBLOCKS}: 1 for chains it does not list otherwise` },
    finality: "rollup",
    blockSeconds: 2,
    explorer: "https://optimistic.etherscan.io",
    testnet: { name: "OP Sepolia", chainId: 11155420, explorer: "https://sepolia-optimism.etherscan.io" },
    venue: "OPTIMISM",
  }),
  BASE: evm({
    name: "Base",
    chainId: 8453,
    native: { coin: "ETH", slip44: 60 },
    confirmations: { count: 1, source: `${FIREBLOCKS}: Base 1, a chain with a finality property` },
    finality: "rollup",
    blockSeconds: 2,
    explorer: "https://basescan.org",
    testnet: { name: "Base Sepolia", chainId: 84532, explorer: "https://base-sepolia.blockscout.com" },
    venue: "BASE",
  }),
  POLYGON: evm({
    name: "Polygon PoS",
    chainId: 137,
    native: { coin: "POL", slip44: 966 },
    confirmations: { count: 1, source: `${FIREBLOCKS}: 1 for chains it does not list otherwise` },
    finality: "checkpointed",
    blockSeconds: 1,
    explorer: "https://polygonscan.com",
    testnet: { name: "Polygon Amoy", chainId: 80002, explorer: "https://amoy.polygonscan.com" },
    venue: "MATIC",
  }),
  AVAXC: evm({
    name: "Avalanche C-Chain",
    chainId: 43114,
    native: { coin: "AVAX", slip44: 9005 },
    confirmations: { count: 1, source: `${FIREBLOCKS}: 1 for chains it does not list otherwise` },
    finality: "instant",
    blockSeconds: 1,
    explorer: "https://snowtrace.io",
    testnet: { name: "Avalanche Fuji", chainId: 43113, explorer: "https://testnet.snowtrace.io" },
    venue: "AVAXC",
  }),
  ETC: evm({
    name: "Ethereum Classic",
    chainId: 61,
    native: { coin: "ETC", slip44: 61 },
    confirmations: { count: 372, source: `${FIREBLOCKS}: 372, as the chain is exposed to 51% attacks` },
    finality: "probabilistic",
    blockSeconds: 13,
    explorer: "https://blockscout.com/etc/mainnet",
    testnet: { name: "Mordor", chainId: 63, explorer: null },
    venue: "ETC",
  }),
  TRX: {
    name: "TRON",
    family: "tron",
    chainId: null,
    caip2: "tron:0x2b6653dc",
    native: { coin: "TRX", slip44: 195 },
    tokenNamespace: "trc20",
    confirmations: { count: 20, source: `${EXCHANGES}: WhiteBIT 20` },
    finality: "checkpointed",
    blockSeconds: 3,
    explorer: {
      tx: "https://tronscan.org/#/transaction/{txid}",
      address: "https://tronscan.org/#/address/{address}",
    },
    testnet: {
      name: "Nile",
      chainId: null,
      addressExplorer: "https://nile.tronscan.org/#/address/{address}",
    },
    tag: null,
    venue: "TRX",
  },
  SOL: {
    name: "Solana",
    family: "sol",
    chainId: null,
    caip2: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
    native: { coin: "SOL", slip44: 501 },
    tokenNamespace: "token",
    confirmations: { count: 1, source: `${EXCHANGES}: Cryptopay 1 at \`finalized\` commitment` },
    finality: "checkpointed",
    blockSeconds: 0.4,
    explorer: { tx: "https://solscan.io/tx/{txid}", address: "https://solscan.io/account/{address}" },
    testnet: { name: "Solana devnet", chainId: null, addressExplorer: null },
    tag: null,
    venue: "SOL",
  },
  XRP: {
    name: "XRP Ledger",
    family: "xrp",
    chainId: null,
    caip2: "xrpl:0",
    native: { coin: "XRP", slip44: 144 },
    tokenNamespace: null,
    confirmations: { count: 1, source: `${EXCHANGES}: 1 validated ledger` },
    finality: "instant",
    blockSeconds: 4,
    explorer: { tx: "https://xrpscan.com/tx/{txid}", address: "https://xrpscan.com/account/{address}" },
    testnet: { name: "XRPL testnet", chainId: null, addressExplorer: null },
    tag: "destination_tag",
    venue: "XRP",
  },
  XLM: {
    name: "Stellar",
    family: "xlm",
    chainId: null,
    caip2: "stellar:pubnet",
    native: { coin: "XLM", slip44: 148 },
    tokenNamespace: null,
    confirmations: { count: 1, source: "a closed ledger is final (Stellar consensus)" },
    finality: "instant",
    blockSeconds: 5,
    explorer: {
      tx: "https://stellar.expert/explorer/public/tx/{txid}",
      address: "https://stellar.expert/explorer/public/account/{address}",
    },
    testnet: { name: "Stellar testnet", chainId: null, addressExplorer: null },
    tag: "memo_text",
    venue: "XLM",
  },
  TON: {
    name: "TON",
    family: "ton",
    chainId: null,
    caip2: "tvm:-239",
    native: { coin: "TON", slip44: 607 },
    tokenNamespace: null,
    confirmations: { count: 1, source: "a masterchain-committed block is final (TON consensus)" },
    finality: "instant",
    blockSeconds: 5,
    explorer: { tx: "https://tonviewer.com/transaction/{txid}", address: "https://tonviewer.com/{address}" },
    testnet: { name: "TON testnet", chainId: null, addressExplorer: null },
    tag: "comment",
    venue: "TON",
  },
} as const satisfies Record<string, NetworkFacts>;

export type NetworkCode = keyof typeof TABLE;

export const NETWORKS: Readonly<Record<NetworkCode, NetworkFacts>> = TABLE;

export const NETWORK_CODES = Object.keys(TABLE) as readonly NetworkCode[];

/** A network's row by its catalog code (matched exactly: the catalog stores codes upper case). */
export function networkFacts(network: string): NetworkFacts | undefined {
  return Object.hasOwn(TABLE, network) ? NETWORKS[network as NetworkCode] : undefined;
}

const UTXO_FAMILIES: ReadonlySet<AddressFamily> = new Set(["btc", "bch", "ltc", "doge"]);

/**
 * Whether a deposit on `network` spends UTXO inputs (its sources: the inputs' addresses) rather than
 * coming from one sender account.
 */
export function isUtxo(network: string): boolean {
  const family = networkFacts(network)?.family;
  return family !== undefined && UTXO_FAMILIES.has(family);
}

const BY_CHAIN_ID: ReadonlyMap<number, NetworkCode> = new Map(
  NETWORK_CODES.flatMap((code) => {
    const id = NETWORKS[code].chainId;
    return id === null ? [] : [[id, code] as const];
  }),
);

/**
 * The block an EVM network's confirmations count from (the reader's tip, src/adapters/chain/evm-rpc.ts):
 * a rollup's `finalized` block — derived from its batches in finalized Ethereum blocks, the tag OP
 * Stack and Arbitrum Nitro nodes serve (docs/networks.md, "Finality") — so its `confirmations.count`
 * counts finalized blocks; elsewhere the newest block, `confirmations.count` deep.
 */
export function confirmationTag(facts: Pick<NetworkFacts, "finality">): "latest" | "finalized" {
  return facts.finality === "rollup" ? "finalized" : "latest";
}

/**
 * Seconds a rollup's block takes to be `finalized`, where its confirmations start (confirmationTag):
 * its batch posted to Ethereum (a few minutes) and Ethereum's own finality, two epochs of 32
 * twelve-second slots (768 s; ethereum.org, "Proof-of-stake"); docs/networks.md, "Finality".
 */
export const ROLLUP_FINALITY_SECONDS = 960;

/**
 * How many of an EVM network's newest blocks its native-coin scan reads: enough to cover the
 * longest gap between two polls of an order (8 × the poll interval, at least a minute: README,
 * `CHAIN_SCAN_BLOCKS_<NETWORK>`) at the network's block time, and never fewer than `floor`. A
 * deposit that fell out of a shorter window on a fast chain would never be seen.
 */
export function nativeScanBlocks(
  facts: Pick<NetworkFacts, "blockSeconds">,
  pollSeconds: number,
  floor: number,
): number {
  if (!facts.blockSeconds) return floor;
  const gapSeconds = Math.max(60, 8 * pollSeconds);
  return Math.max(floor, Math.ceil(gapSeconds / facts.blockSeconds));
}

/** How long a block waits to be final before its confirmations count: 0 but on a rollup. */
export function finalitySeconds(facts: Pick<NetworkFacts, "finality">): number {
  return facts.finality === "rollup" ? ROLLUP_FINALITY_SECONDS : 0;
}

/** The network code of an EIP-155 chain id, if the service knows it. */
export function networkOfChainId(chainId: number): NetworkCode | undefined {
  return BY_CHAIN_ID.get(chainId);
}

/**
 * Why a pair is refused when the venue is the route's liquidity (EXCHANGE_MODE=binance): its
 * destination network has no venue code. The venue only trades; payouts leave the operator's
 * wallets through the gateway, and those wallets are refilled by withdrawing from the venue on the
 * payout's network (docs/liquidity.md). Payouts on a network the venue cannot withdraw to would
 * drain its wallet with no way to refill it from the venue (docs/networks.md, "Venue network codes").
 */
export function venueRefusals(networkTo: string): Refusal[] {
  if (networkFacts(networkTo)?.venue) return [];
  return [
    {
      code: "venue_network_unsupported",
      side: "to",
      detail: `Pair unavailable: the venue cannot withdraw to ${networkTo}, so its payouts could not be refilled.`,
    },
  ];
}
