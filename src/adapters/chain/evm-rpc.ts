/**
 * ChainReader over Ethereum JSON-RPC (ETH, BSC and other EVM chains), POSTed to `baseUrl` as is.
 *
 * - Newest block: `eth_blockNumber`.
 * - ERC-20 (asset.contract set): one `eth_getLogs` with
 *   `{fromBlock: hex(head − lookbackBlocks), toBlock: "latest", address: contract,
 *     topics: [TRANSFER_TOPIC, null, "0x000000000000000000000000" + address]}`.
 *   A log is credited only when it is not `removed` (dropped in a reorg), its `address` is the
 *   requested contract (case-insensitive: a node that ignores the filter, or a look-alike token,
 *   must never be credited), it has exactly the 3 topics of ERC-20 `Transfer` (ERC-721 has 4) with
 *   the watched address as `to`, and a non-zero 32-byte value. `index` = `logIndex`, so several
 *   transfers in one tx stay apart; amounts are value / 10^asset.decimals, exact; `from` = the
 *   sender topic's address, lower case (EIP-20: `Transfer(address indexed _from, address indexed
 *   _to, uint256 _value)`, so topics are [event, _from, _to]).
 *   Transfers older than `lookbackBlocks` are not returned (ETH ~12 s blocks: 5000 ≈ 17 h; BSC
 *   ~0.75 s: 5000 ≈ 1 h — set it per network). Providers cap eth_getLogs ranges (often 1k–10k
 *   blocks) and answer with a JSON-RPC error beyond, which surfaces as `rpc_error`.
 * - Native coin (asset.contract null): there are no logs. The reader scans the newest
 *   `nativeScanBlocks` blocks (default 20) with `eth_getBlockByNumber(n, true)` — one JSON-RPC
 *   *batch* request — and credits every transaction with `to` = address and `value` > 0
 *   (`index` 0, txid = tx hash, `from` = the tx's `from`, lower case). Limitations, by design:
 *     · it only looks back `nativeScanBlocks` blocks, so it must be polled more often than that
 *       window (20 blocks ≈ 4 min on ETH, 15 s on BSC); a deposit missed while the poller was down
 *       is not found again — reconcile with `nativeBalance(address)` (`eth_getBalance`);
 *     · internal transfers (value sent by a contract, e.g. from an exchange's or smart wallet's
 *       withdrawal contract) produce no top-level tx to the address and are NOT seen — again only
 *       `nativeBalance` shows them;
 *     · the deposit address is assumed to be an EOA (no code): a value transfer to an EOA cannot
 *       revert, so no receipt is fetched. A contract deposit address would need receipt checks;
 *     · the whole window is fetched per call; `incomingTransfersMany` serves many addresses with
 *       one window (what the shared reads use, ./shared-reads.ts).
 * - Several addresses: `incomingTransfersMany` makes the same one request for all of them (the
 *   token filter's third topic is then an OR list of the addresses).
 * - Tip: `eth_blockNumber`, or with `confirmationTag` "finalized" the number of
 *   `eth_getBlockByNumber("finalized", false)`: confirmations then count finalized blocks only
 *   (a rollup's, src/domain/networks.ts `confirmationTag`), while the windows above stay on the
 *   newest block. A node without the tag (null) fails the read: never a silent fall back to `latest`.
 * - Reorgs: `isInBestChain` reads `eth_getBlockByNumber(hex(blockHeight), false)` and compares the
 *   hash with the transfer's; a missing block (height above the node's head) also answers false.
 *
 * JSON-RPC `{error:{code,message}}` answers throw ChainReaderError("rpc_error") with `rpcCode`.
 */
import { z } from "zod";
import {
  baseUnitsToDecimal,
  ChainReaderError,
  type HttpReaderOptions,
  parseBody,
  positiveIntOption,
  readerBase,
} from "./http-util";
import { createJsonRpc } from "./json-rpc";
import type { AssetRef, ChainReader, IncomingTransfer } from "./types";

/** keccak256("Transfer(address,address,uint256)"). */
export const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
export const DEFAULT_LOOKBACK_BLOCKS = 5000;
export const DEFAULT_NATIVE_SCAN_BLOCKS = 20;
/** Decimals of ETH / BNB (wei). */
export const NATIVE_DECIMALS = 18;

export interface EvmReaderOptions extends HttpReaderOptions {
  /** ERC-20 log window: logs from blocks head − lookbackBlocks … latest. Default 5000. */
  lookbackBlocks?: number;
  /** Native coin window: the newest this-many blocks are scanned. Default 20. */
  nativeScanBlocks?: number;
  /** Decimals of the native coin, for nativeBalance; default 18. */
  nativeDecimals?: number;
  /** The block `tipHeight` answers, which confirmations count from; default "latest". */
  confirmationTag?: "latest" | "finalized";
}

export interface EvmReader extends ChainReader {
  /**
   * Native balance of `address` in coin units (decimal string), at `block` (a height) or "latest".
   * For reconciliation: it also counts internal transfers the block scan cannot see.
   */
  nativeBalance(address: string, block?: number | "latest"): Promise<string>;
}

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** An address as a 32-byte log topic: 12 zero bytes, then the 20 of the address. */
const ADDRESS_TOPIC = /^0x0{24}[0-9a-fA-F]{40}$/;
const quantity = z.string().regex(/^0x[0-9a-fA-F]{1,64}$/);
const hash32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/);
const data = z.string().regex(/^0x(?:[0-9a-fA-F]{2})*$/);

const logSchema = z.object({
  address: z.string(),
  topics: z.array(z.string()),
  data,
  blockNumber: quantity.nullable(),
  blockHash: hash32.nullable(),
  transactionHash: hash32,
  logIndex: quantity,
  removed: z.boolean().optional(),
});
const logsSchema = z.array(logSchema);

const fullTxSchema = z.object({
  hash: hash32,
  from: z.string().regex(EVM_ADDRESS),
  to: z.string().nullable().optional(),
  value: quantity,
});
const fullBlockSchema = z.object({
  number: quantity,
  hash: hash32,
  transactions: z.array(fullTxSchema),
});
const headerSchema = z.object({ hash: hash32 }).nullable();
const taggedHeaderSchema = z.object({ number: quantity });

function toHex(n: number): string {
  return `0x${n.toString(16)}`;
}

function checkAddress(source: string, address: string): string {
  if (!EVM_ADDRESS.test(address))
    throw new TypeError(`${source}: not an EVM address: ${address.slice(0, 100)}`);
  return address.toLowerCase();
}

export function createEvmReader(options: EvmReaderOptions): EvmReader {
  const { source, url, http } = readerBase(options, "evm-rpc", { rpc: true });
  const lookback = positiveIntOption(
    source,
    "lookbackBlocks",
    options.lookbackBlocks ?? DEFAULT_LOOKBACK_BLOCKS,
  );
  const scanBlocks = positiveIntOption(
    source,
    "nativeScanBlocks",
    options.nativeScanBlocks ?? DEFAULT_NATIVE_SCAN_BLOCKS,
  );
  const nativeDecimals = options.nativeDecimals ?? NATIVE_DECIMALS;
  if (!Number.isInteger(nativeDecimals) || nativeDecimals < 0 || nativeDecimals > 30) {
    throw new RangeError(`${source}: nativeDecimals must be an integer in [0, 30]`);
  }
  const { call, batch } = createJsonRpc(source, http, url);

  const invalid = (message: string) => new ChainReaderError(source, "invalid_body", message);

  const parseQuantity = (hex: string, what: string): number => {
    const n = Number.parseInt(hex.slice(2), 16);
    if (!Number.isSafeInteger(n)) throw invalid(`${what} out of range: ${hex}`);
    return n;
  };

  const headHeight = async (): Promise<number> =>
    parseQuantity(
      parseBody(source, quantity, await call("eth_blockNumber", []), "eth_blockNumber"),
      "block number",
    );

  const tag = options.confirmationTag ?? "latest";
  const tipHeight = async (): Promise<number> => {
    if (tag === "latest") return headHeight();
    const block = await call("eth_getBlockByNumber", [tag, false]);
    if (block === null) throw invalid(`the node has no ${tag} block`);
    const { number } = parseBody(source, taggedHeaderSchema, block, "eth_getBlockByNumber");
    return parseQuantity(number, "block number");
  };

  const amountOf = (units: bigint, decimals: number): string => {
    try {
      return baseUnitsToDecimal(units, decimals);
    } catch (err) {
      throw new ChainReaderError(source, "invalid_body", `amount out of range: ${units}`, { cause: err });
    }
  };

  /**
   * Token transfers to any of `wanted` (lower-case address → the caller's spelling, reported back
   * as is): one `eth_getLogs` whose third topic is the OR of the addresses.
   */
  const tokenTransfers = async (
    asset: AssetRef,
    contract: string,
    wanted: ReadonlyMap<string, string>,
  ): Promise<Map<string, IncomingTransfer[]>> => {
    const head = await headHeight();
    const byTopic = new Map([...wanted.keys()].map((to) => [`0x000000000000000000000000${to.slice(2)}`, to]));
    const toTopics = [...byTopic.keys()];
    const filter = {
      fromBlock: toHex(Math.max(0, head - lookback)),
      toBlock: "latest",
      address: contract,
      topics: [TRANSFER_TOPIC, null, toTopics.length === 1 ? toTopics[0] : toTopics],
    };
    const logs = parseBody(source, logsSchema, await call("eth_getLogs", [filter]), "eth_getLogs");
    const out = emptyLists(wanted);
    for (const log of logs) {
      if (log.removed === true) continue;
      if (log.address.toLowerCase() !== contract) continue;
      const [topic0, topic1, topic2] = log.topics;
      if (log.topics.length !== 3 || topic0?.toLowerCase() !== TRANSFER_TOPIC) continue;
      const to = byTopic.get(topic2?.toLowerCase() ?? "");
      if (to === undefined) continue;
      if (log.data.length !== 66)
        throw invalid(`Transfer log of ${log.transactionHash} has ${log.data} as value`);
      const value = BigInt(log.data);
      if (value === 0n) continue; // zero-value transfers: address-poisoning spam, nothing to credit
      if ((log.blockNumber === null) !== (log.blockHash === null)) {
        throw invalid(`log of ${log.transactionHash} has only one of blockNumber/blockHash`);
      }
      if (!ADDRESS_TOPIC.test(topic1 ?? ""))
        throw invalid(`Transfer log of ${log.transactionHash} has ${topic1} as sender`);
      out.get(wanted.get(to)!)!.push({
        txid: log.transactionHash.toLowerCase(),
        index: parseQuantity(log.logIndex, "logIndex"),
        to: wanted.get(to)!,
        tag: null,
        amount: amountOf(value, asset.decimals),
        blockHeight: log.blockNumber === null ? null : parseQuantity(log.blockNumber, "blockNumber"),
        blockHash: log.blockHash?.toLowerCase() ?? null,
        from: `0x${topic1!.slice(26).toLowerCase()}`,
      });
    }
    return out;
  };

  /** Native transfers to any of `wanted` in the newest `scanBlocks` blocks: one batch request. */
  const nativeTransfers = async (
    asset: AssetRef,
    wanted: ReadonlyMap<string, string>,
  ): Promise<Map<string, IncomingTransfer[]>> => {
    const head = await headHeight();
    const first = Math.max(0, head - scanBlocks + 1);
    const heights: number[] = [];
    for (let n = first; n <= head; n++) heights.push(n);
    const results = await batch(
      "eth_getBlockByNumber",
      heights.map((n) => [toHex(n), true]),
    );
    const out = emptyLists(wanted);
    results.forEach((result, i) => {
      const height = heights[i]!;
      if (result === null) throw invalid(`block ${height} not found although the head is ${head}`);
      const block = parseBody(source, fullBlockSchema, result, "eth_getBlockByNumber");
      if (parseQuantity(block.number, "block number") !== height) {
        throw invalid(`asked for block ${height}, got ${block.number}`);
      }
      for (const tx of block.transactions) {
        const address = wanted.get(tx.to?.toLowerCase() ?? "");
        if (address === undefined) continue;
        const value = BigInt(tx.value);
        if (value === 0n) continue;
        out.get(address)!.push({
          txid: tx.hash.toLowerCase(),
          index: 0,
          to: address,
          tag: null,
          amount: amountOf(value, asset.decimals),
          blockHeight: height,
          blockHash: block.hash.toLowerCase(),
          from: tx.from.toLowerCase(),
        });
      }
    });
    return out;
  };

  const transfersTo = (asset: AssetRef, addresses: readonly string[]) => {
    // Lower case → the caller's spelling: EVM addresses are case-insensitive (EIP-55 is a checksum).
    const wanted = new Map(addresses.map((a) => [checkAddress(source, a), a]));
    if (asset.contract === null) return nativeTransfers(asset, wanted);
    return tokenTransfers(asset, checkAddress(source, asset.contract), wanted);
  };

  return {
    tipHeight,

    async incomingTransfers(
      asset: AssetRef,
      address: string,
      tag: string | null,
    ): Promise<IncomingTransfer[]> {
      if (tag !== null) return [];
      return (await transfersTo(asset, [address])).get(address) ?? [];
    },

    async incomingTransfersMany(asset: AssetRef, addresses: readonly string[]) {
      if (addresses.length === 0) return new Map<string, IncomingTransfer[]>();
      return transfersTo(asset, addresses);
    },

    async isInBestChain(transfer: IncomingTransfer): Promise<boolean> {
      if (transfer.blockHeight === null || transfer.blockHash === null) return true;
      const result = await call("eth_getBlockByNumber", [toHex(transfer.blockHeight), false]);
      const header = parseBody(source, headerSchema, result, "eth_getBlockByNumber");
      return header !== null && header.hash.toLowerCase() === transfer.blockHash.toLowerCase();
    },

    async nativeBalance(address: string, block: number | "latest" = "latest"): Promise<string> {
      const tagParam = block === "latest" ? "latest" : toHex(positiveOrZero(source, block));
      const result = await call("eth_getBalance", [checkAddress(source, address), tagParam]);
      return amountOf(BigInt(parseBody(source, quantity, result, "eth_getBalance")), nativeDecimals);
    },
  };
}

/** One empty list per address (the callers' spellings). */
function emptyLists(wanted: ReadonlyMap<string, string>): Map<string, IncomingTransfer[]> {
  return new Map([...wanted.values()].map((a) => [a, [] as IncomingTransfer[]]));
}

function positiveOrZero(source: string, n: number): number {
  if (!Number.isSafeInteger(n) || n < 0)
    throw new RangeError(`${source}: block must be a non-negative integer`);
  return n;
}
