/**
 * Chain readers: how the order lifecycle sees deposits. One implementation per chain family
 * (simulated SimChain, Esplora, Blockbook, EVM JSON-RPC, TronGrid, Solana JSON-RPC, rippled, Horizon,
 * toncenter), chosen per network by config.
 */

/** The asset being watched: a native coin (contract null) or a token on its chain. */
export interface AssetRef {
  coin: string;
  network: string;
  /** Token contract / mint address; null for the network's native coin. */
  contract: string | null;
  decimals: number;
}

export interface IncomingTransfer {
  txid: string;
  /** Output index (UTXO), log index (EVM) or 0: tells apart several credits in one transaction. */
  index: number;
  to: string;
  /** Memo / destination tag, on memo networks; null elsewhere. */
  tag: string | null;
  /** Amount in coin units, decimal string (never a float). */
  amount: string;
  /** Block height, or null while unconfirmed (mempool). */
  blockHeight: number | null;
  /** Hash of the including block, or null while unconfirmed. */
  blockHash: string | null;
  /**
   * The sender, on account chains where a transfer has exactly one (XRP, XLM, TON, SOL, EVM, TRON):
   * the deposit's source that is screened, and whom a deposit no order can claim (wrong or missing
   * memo) or a held one would be refunded to. Absent elsewhere.
   */
  from?: string;
  /**
   * UTXO chains (BTC, BCH, LTC, DOGE): the addresses the transaction's inputs spend from, distinct,
   * in input order — the deposit's sources that are screened. Inputs without an address (a coinbase,
   * a non-standard script) are left out. No one of them is "the sender": nothing is sent back to
   * them. Absent elsewhere.
   */
  sources?: readonly string[];
}

export interface ChainReader {
  /** Height of the best chain's tip. */
  tipHeight(): Promise<number>;
  /**
   * Current incoming transfers of `asset` to `address` (and `tag`, on memo networks), unconfirmed
   * ones included. Transfers that were dropped, replaced or reorged out are absent.
   */
  incomingTransfers(asset: AssetRef, address: string, tag: string | null): Promise<IncomingTransfer[]>;
  /** Whether a transfer's block is still in the best chain (false once reorged out). */
  isInBestChain(transfer: IncomingTransfer): Promise<boolean>;
  /**
   * Memo networks only: every current incoming transfer of `asset` to the shared deposit
   * `address`, whatever its tag (`tag` null when it carries none, else the memo / destination tag /
   * comment as sent). For an address-wide watch that logs, for the operator, the deposits whose tag
   * matches no order — such a deposit never drives an order. `incomingTransfers(asset, address, t)`
   * is this list filtered on `tag === t` (there, block hashes the listing lacks are looked up;
   * here `blockHash` may be null beside a `blockHeight`, to keep a busy address cheap to read).
   */
  addressTransfers?(asset: AssetRef, address: string): Promise<IncomingTransfer[]>;
  /**
   * Memo networks: the hash of the block at `height`, or null while the provider does not have it
   * yet — what `incomingTransfers` fills in where `addressTransfers` lists none, so the shared reads
   * can serve every tag from one address-wide listing (./shared-reads.ts).
   */
  blockHashAt?(height: number): Promise<string | null>;
  /**
   * Several untagged addresses' incoming transfers of `asset` in one provider request, where the
   * provider has a multi-address query (EVM: one `eth_getLogs` whose `to` topic is an OR of the
   * addresses; the native coin: one batch of the recent blocks). Each listed address is a key of
   * the answer (an empty list when nothing came), spelt as given. Used by the shared reads
   * (./shared-reads.ts) so that one request serves every open order of a network.
   */
  incomingTransfersMany?(
    asset: AssetRef,
    addresses: readonly string[],
  ): Promise<Map<string, IncomingTransfer[]>>;
  /**
   * The shared reads over a multi-address query only: `address`'s untagged transfers as the last
   * listing of every watched address has them, the address joining the watch; no new listing is
   * read for it before the last one is `addressMs` old (./shared-reads.ts). For a watch that may
   * wait: another network's order watching its address for wrong-network deposits.
   */
  watchedTransfers?(asset: AssetRef, address: string): Promise<IncomingTransfer[]>;
  /**
   * What each address holds of `asset` now — on the account its deposits credit (Solana: the
   * address for SOL, its associated token account for a token) — as a decimal string, null while
   * that account does not exist; many addresses in few provider requests (Solana:
   * `getMultipleAccounts`, 100 accounts a call). Each listed address is a key of the answer, spelt
   * as given. A later `incomingTransfers` of the same reader lists every transfer these balances
   * include (never an older state). For per-order addresses without a multi-address listing or a
   * block scan: the shared reads list an address again only when its balance moved
   * (./balance-watch.ts).
   */
  balancesMany?(asset: AssetRef, addresses: readonly string[]): Promise<Map<string, string | null>>;
  /**
   * The best chain's block at `height`, read whole: its hash, its parent's, and the incoming
   * transfers of `asset` in it to every address `watched` accepts (asked as each transaction is
   * read), each exactly as `incomingTransfers` would list it once mined. For per-order addresses
   * without a multi-address query (Esplora, Blockbook, TronGrid): the shared reads scan each new block once for all
   * the network's watched addresses instead of listing each address (./block-scan.ts).
   */
  blockTransfers?(
    asset: AssetRef,
    height: number,
    watched: (address: string) => boolean,
  ): Promise<ScannedBlock>;
}

/** One block read whole by `blockTransfers`. */
export interface ScannedBlock {
  hash: string;
  /** The parent block's hash: a block whose parent is not the one read at `height − 1` means a reorg. */
  previous: string;
  transfers: IncomingTransfer[];
}

/** Confirmations of a transfer at a tip: 0 in the mempool, 1 in the tip block. */
export { confirmations } from "../../domain/deposit-tracking";
