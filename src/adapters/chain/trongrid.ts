import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
/**
 * ChainReader over the TronGrid API (https://api.trongrid.io, or a node exposing the same v1 and
 * /wallet endpoints) for TRX and TRC-20 tokens. An API key, when given, is sent as
 * `TRON-PRO-API-KEY` on every request.
 *
 * - Tip: `POST {base}/wallet/getnowblock` → `block_header.raw_data.number`.
 * - TRC-20 (asset.contract set):
 *   `GET {base}/v1/accounts/{a}/transactions/trc20?only_to=true&contract_address={c}&limit=200`
 *   (unconfirmed included: no `only_confirmed`). An item is credited only when `type` is
 *   "Transfer", `to` is the address, `token_info.address` is exactly the requested contract (fake
 *   "USDT" tokens share the symbol, never the contract) and the value is non-zero. The list has no
 *   block, so each credited tx costs `POST {base}/wallet/gettransactioninfobyid {"value": txid}`
 *   → `blockNumber` (absent: not in a block yet → unconfirmed; `result: "FAILED"` or a receipt
 *   result other than SUCCESS → not credited), and each distinct block
 *   `POST {base}/wallet/getblockbynum {"num": n}` → `blockID` (cached within the call).
 *   `index` tells apart several transfers to the address in one tx: TronGrid gives no log index, so
 *   it is the rank of the item among that tx's credited items ordered by (value, from) — stable
 *   across polls, not a log index. `from` = the item's `from` (developers.tron.network, "TRC-20
 *   transaction history": each transfer's from / to).
 * - Native TRX (asset.contract null): `GET {base}/v1/accounts/{a}/transactions?only_to=true&limit=200`;
 *   items whose `raw_data.contract[0]` is a `TransferContract` with `to_address` = the address
 *   (hex 41… or base58 T…) and `ret[0].contractRet` "SUCCESS"; amount = `amount` sun / 10^6,
 *   `blockHeight` = `blockNumber` (absent → unconfirmed), `index` 0, `from` = `owner_address` (in its
 *   T… spelling, as for `to_address`). TRX sent by contracts
 *   (internal transactions, listed by TronGrid with another shape) and TRC-10 transfers are NOT
 *   credited.
 * - Only the newest 200 items of each list are read (no `fingerprint` paging): fine for per-order
 *   deposit addresses, not for busy addresses.
 * - Cost: 1 + (credited txs) + (distinct blocks) requests per TRC-20 call, 1 + (distinct blocks)
 *   per TRX call — mind TronGrid's rate limits and the Workers subrequest limit.
 * - Reorgs: `isInBestChain` compares `getblockbynum(blockHeight).blockID` with `blockHash`; an
 *   empty answer (no block at that height on this node) is false.
 * - Whole blocks (`blockTransfers`, for the shared reads' block scan, ./block-scan.ts): one
 *   `POST {base}/wallet/getblockbynum {"num": h}` → `blockID` (the hash), `block_header.raw_data.
 *   {number, parentHash}` and `transactions[]` (absent in an empty block: protobuf JSON omits empty
 *   lists), each `{txID, ret[0].contractRet, raw_data.contract[0].{type, parameter.value}}` with
 *   hex 41… addresses (java-tron's HTTP API without `visible`; fields as QuickNode's
 *   `/wallet/getblockbynum` reference lists them, shapes as test/fixtures/chain/trongrid-*.json). TRX: each `TransferContract` paying a watched address (`to_address` turned into
 *   its T… spelling) with contractRet "SUCCESS" is credited exactly as the listing credits it.
 *   TRC-20 also reads `POST {base}/wallet/gettransactioninfobyblocknum {"num": h}`: an array with
 *   one TransactionInfo per transaction of the block (`id`, `blockNumber`, `result` ("FAILED" when
 *   it failed), `receipt.result`, `log[]` of `{address: 20-byte hex without 41, topics[], data}`;
 *   example in GetBlock-io/getblock-docs, api-reference/tron-trx, gettransactioninfobyblocknum).
 *   A log is a credit when its address is the token contract, `topics` are Transfer
 *   (ddf252ad…) / from / to with `to` watched, and the tx succeeded as the listing requires; the
 *   index is the listing's rank (value, then sender) among the tx's credits to that address. The
 *   info list must name exactly the block's transactions: a node that has not the block answers
 *   `[]` (java-tron's servlet; trident's client calls it "no transactions or the blockNum is
 *   incorrect"), which must never read as "no deposit". 1 request a block for TRX, 2 for a token,
 *   whatever the number of watched addresses (a block every 3 s); the scans of one network share
 *   each block's `getblockbynum` (one reader per network), so TRX and a token cost 2 a block.
 */
import { z } from "zod";
import { decodeBase58Check } from "../../domain/addresses/encoding";
import { tronAddressFromAccountId, validateTronAddress } from "../../domain/addresses/tron";
import { Dec } from "../../domain/money";
import { ChainReaderError, type HttpReaderOptions, parseBody, readerBase, unitsToDecimal } from "./http-util";
import type { AssetRef, ChainReader, IncomingTransfer, ScannedBlock } from "./types";

export const TRONGRID_PAGE_LIMIT = 200;
/**
 * Blocks kept for the network's other scans: 72 s of TRON's 3-second blocks, more than one scan
 * falls behind another that follows the same tip (each catches up when its orders poll), at a few
 * hundred kilobytes a parsed mainnet block.
 */
const RECENT_BLOCKS = 24;
export const TRX_DECIMALS = 6;

export interface TronGridReaderOptions extends HttpReaderOptions {
  /** Sent as the `TRON-PRO-API-KEY` header when set. */
  apiKey?: string;
}

const hex64 = z.string().regex(/^[0-9a-fA-F]{64}$/);
const height = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

const trc20ListSchema = z.object({
  success: z.boolean().optional(),
  data: z.array(
    z.object({
      transaction_id: hex64,
      token_info: z.object({ address: z.string() }),
      from: z.string(),
      to: z.string(),
      type: z.string(),
      value: z.string(),
    }),
  ),
});

// Native list items are of several kinds (internal transactions have no raw_data): only the fields
// needed to recognise a TransferContract are required, and its parameters are checked later.
const trxListSchema = z.object({
  success: z.boolean().optional(),
  data: z.array(
    z.object({
      txID: hex64.optional(),
      blockNumber: height.optional(),
      ret: z.array(z.object({ contractRet: z.string().optional() })).optional(),
      raw_data: z
        .object({
          contract: z.array(z.object({ type: z.string(), parameter: z.object({ value: z.unknown() }) })),
        })
        .optional(),
    }),
  ),
});
const transferContractSchema = z.object({
  amount: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  owner_address: z.string(),
  to_address: z.string(),
});

const txInfoSchema = z.object({
  id: z.string().optional(),
  blockNumber: height.optional(),
  result: z.string().optional(),
  receipt: z.object({ result: z.string().optional() }).optional(),
});

const blockSchema = z.object({
  blockID: hex64.optional(),
  block_header: z.object({ raw_data: z.object({ number: height }) }).optional(),
});
const nowBlockSchema = z.object({
  blockID: hex64.optional(),
  block_header: z.object({ raw_data: z.object({ number: height }) }),
});

/** The keccak-256 of `Transfer(address,address,uint256)`: a TRC-20 transfer log's first topic. */
const TRANSFER_TOPIC = "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
const hex20 = /^[0-9a-f]{40}$/;

// A block read whole: only what the scan reads of every transaction is required (its id, its
// contract's type); a TransferContract's parameters are checked when it pays a watched address,
// so an odd transaction of a stranger's does not stop the network's reads.
const fullBlockSchema = z.object({
  blockID: hex64,
  block_header: z.object({ raw_data: z.object({ number: height, parentHash: hex64 }) }),
  transactions: z
    .array(
      z.object({
        txID: hex64,
        ret: z.array(z.object({ contractRet: z.string().optional() })).optional(),
        raw_data: z.object({
          contract: z.array(
            z.object({ type: z.string(), parameter: z.object({ value: z.unknown() }).optional() }),
          ),
        }),
      }),
    )
    .optional(),
});
type FullBlock = z.infer<typeof fullBlockSchema>;

const toAddressSchema = z.object({ to_address: z.string() });
const blockTxInfosSchema = z.array(
  txInfoSchema.extend({
    id: hex64,
    log: z
      .array(
        z.object({
          address: z.string(),
          topics: z.array(z.string()).optional(),
          data: z.string().optional(),
        }),
      )
      .optional(),
  }),
);

/** A 41… hex or T… address as the orders spell it (T…), or null when it is neither. */
function tronAddress(spelt: string): string | null {
  if (spelt.startsWith("T")) return spelt;
  const hex = spelt.toLowerCase();
  if (hex.length !== 42 || !hex.startsWith("41") || !hex20.test(hex.slice(2))) return null;
  return tronAddressFromAccountId(hexToBytes(hex.slice(2)));
}

/** The address in a 32-byte log topic (the last 20 bytes), or null when it is not one. */
function topicAddress(topic: string): string | null {
  const hex = topic.toLowerCase();
  if (!/^0{24}[0-9a-f]{40}$/.test(hex)) return null;
  return tronAddressFromAccountId(hexToBytes(hex.slice(24)));
}

/**
 * TronGrid gives no log index: several credits to one address in one tx are told apart by their
 * rank in this order, the same whether the listing or the block scan found them.
 */
function byValueThenSender(a: { value: string; from: string }, b: { value: string; from: string }): number {
  return new Dec(a.value).cmp(b.value) || (a.from < b.from ? -1 : a.from > b.from ? 1 : 0);
}

// TronGrid answers errors as `{success:false, error:"...", statusCode:...}` (usually with a 4xx).
const failureSchema = z.object({ success: z.literal(false), error: z.string().optional() });

export function createTronGridReader(options: TronGridReaderOptions): ChainReader {
  const {
    source,
    url: base,
    http,
  } = readerBase(options, "trongrid", {
    headers: options.apiKey ? { "TRON-PRO-API-KEY": options.apiKey } : undefined,
  });
  const invalid = (message: string) => new ChainReaderError(source, "invalid_body", message);

  /** A transfer's sender (41… hex or T…), spelt T… as the orders spell TRON addresses. */
  const senderOf = (spelt: string, txid: string): string => {
    const from = tronAddress(spelt);
    if (from === null) throw invalid(`${txid} has ${spelt.slice(0, 100)} as sender`);
    return from;
  };

  const checkAddress = (address: string, what: string): { base58: string; hex: string } => {
    const check = validateTronAddress(address);
    const decoded = decodeBase58Check("bitcoin", address);
    if (!check.ok || !decoded.ok)
      throw new TypeError(`${source}: ${what} is not a TRON address: ${address.slice(0, 100)}`);
    return { base58: address, hex: bytesToHex(decoded.bytes) };
  };

  const getList = async (url: string, what: string): Promise<unknown> => {
    const body = await http.getJson(url);
    const failure = failureSchema.safeParse(body);
    if (failure.success) {
      throw new ChainReaderError(source, "rpc_error", `${what}: ${failure.data.error ?? "success: false"}`);
    }
    return body;
  };

  /** blockID of block `num`, or null when this node has no block at that height. */
  const blockIdAt = async (num: number): Promise<string | null> => {
    const body = await http.postJson(`${base}/wallet/getblockbynum`, { num });
    const block = parseBody(source, blockSchema, body, "getblockbynum");
    if (block.blockID === undefined) return null;
    if (block.block_header && block.block_header.raw_data.number !== num) {
      throw invalid(`asked for block ${num}, got ${block.block_header.raw_data.number}`);
    }
    return block.blockID.toLowerCase();
  };

  /** Attaches blockHash to confirmed transfers, one getblockbynum per distinct height. */
  const withBlockHashes = async (
    pending: Array<Omit<IncomingTransfer, "blockHash">>,
  ): Promise<IncomingTransfer[]> => {
    const ids = new Map<number, string | null>();
    const out: IncomingTransfer[] = [];
    for (const t of pending) {
      if (t.blockHeight === null) {
        out.push({ ...t, blockHash: null });
        continue;
      }
      if (!ids.has(t.blockHeight)) ids.set(t.blockHeight, await blockIdAt(t.blockHeight));
      const blockHash = ids.get(t.blockHeight) ?? null;
      // A node behind the one that indexed the tx: count it as unconfirmed until it catches up.
      out.push(blockHash === null ? { ...t, blockHeight: null, blockHash } : { ...t, blockHash });
    }
    return out;
  };

  const trc20Transfers = async (
    asset: AssetRef,
    contract: string,
    to: string,
  ): Promise<IncomingTransfer[]> => {
    const query = new URLSearchParams({
      only_to: "true",
      contract_address: contract,
      limit: String(TRONGRID_PAGE_LIMIT),
    });
    const url = `${base}/v1/accounts/${to}/transactions/trc20?${query}`;
    const list = parseBody(source, trc20ListSchema, await getList(url, "trc20 list"), "trc20 list");

    // Credited items grouped by tx, in list order.
    const byTx = new Map<string, Array<{ from: string; value: string; amount: string }>>();
    for (const item of list.data) {
      if (item.type !== "Transfer" || item.to !== to || item.token_info.address !== contract) continue;
      const txid = item.transaction_id.toLowerCase();
      const amount = unitsToDecimal(source, item.value, asset.decimals, txid);
      if (amount === "0") continue; // zero-value transfers: address-poisoning spam
      const items = byTx.get(txid) ?? [];
      items.push({ from: senderOf(item.from, txid), value: item.value, amount });
      byTx.set(txid, items);
    }

    const pending: Array<Omit<IncomingTransfer, "blockHash">> = [];
    for (const [txid, items] of byTx) {
      const body = await http.postJson(`${base}/wallet/gettransactioninfobyid`, { value: txid });
      const info = parseBody(source, txInfoSchema, body, "gettransactioninfobyid");
      if (info.id !== undefined && info.id.toLowerCase() !== txid) {
        throw invalid(`asked for tx ${txid}, got ${info.id}`);
      }
      if (info.result === "FAILED") continue;
      if (info.receipt?.result !== undefined && info.receipt.result !== "SUCCESS") continue;
      items.sort(byValueThenSender);
      items.forEach((item, index) => {
        pending.push({
          txid,
          index,
          to,
          tag: null,
          amount: item.amount,
          blockHeight: info.blockNumber ?? null,
          from: item.from,
        });
      });
    }
    return withBlockHashes(pending);
  };

  const trxTransfers = async (
    asset: AssetRef,
    to: { base58: string; hex: string },
  ): Promise<IncomingTransfer[]> => {
    const query = new URLSearchParams({ only_to: "true", limit: String(TRONGRID_PAGE_LIMIT) });
    const url = `${base}/v1/accounts/${to.base58}/transactions?${query}`;
    const list = parseBody(
      source,
      trxListSchema,
      await getList(url, "transactions list"),
      "transactions list",
    );
    const pending: Array<Omit<IncomingTransfer, "blockHash">> = [];
    const seen = new Set<string>();
    for (const item of list.data) {
      const contract = item.raw_data?.contract[0];
      if (!item.txID || contract?.type !== "TransferContract") continue;
      if (item.ret?.[0]?.contractRet !== "SUCCESS") continue;
      const txid = item.txID.toLowerCase();
      const value = parseBody(source, transferContractSchema, contract.parameter.value, "TransferContract");
      const target = value.to_address;
      const isOurs = target.startsWith("T") ? target === to.base58 : target.toLowerCase() === to.hex;
      if (!isOurs || value.amount === 0 || seen.has(txid)) continue;
      seen.add(txid);
      pending.push({
        txid,
        index: 0,
        to: to.base58,
        tag: null,
        amount: unitsToDecimal(source, value.amount, asset.decimals, txid),
        blockHeight: item.blockNumber ?? null,
        from: senderOf(value.owner_address, txid),
      });
    }
    return withBlockHashes(pending);
  };

  /** Block `num` read whole; a node without it (an empty answer) or another block fails the read. */
  const fetchBlock = async (num: number) => {
    const body = await http.postJson(`${base}/wallet/getblockbynum`, { num });
    if (blockSchema.safeParse(body).data?.blockID === undefined)
      throw new ChainReaderError(source, "invalid_body", `no block ${num} on this node yet`);
    const block = parseBody(source, fullBlockSchema, body, "getblockbynum");
    if (block.block_header.raw_data.number !== num)
      throw invalid(`asked for block ${num}, got ${block.block_header.raw_data.number}`);
    return block;
  };

  /**
   * Block `num` for one asset's scan. The scans of TRX and of each token on this network go through
   * one reader (the network's ChainWatch) and read the same new blocks, so a block fetched for one
   * serves the others; a scan that reads a height again (after a reorg) fetches it afresh.
   */
  const recentBlocks = new Map<number, { block: Promise<FullBlock>; scans: Set<string> }>();
  const fullBlock = (num: number, scan: string): Promise<FullBlock> => {
    const kept = recentBlocks.get(num);
    if (kept && !kept.scans.has(scan)) {
      kept.scans.add(scan);
      return kept.block;
    }
    const block = fetchBlock(num);
    recentBlocks.delete(num);
    recentBlocks.set(num, { block, scans: new Set([scan]) });
    block.catch(() => {
      if (recentBlocks.get(num)?.block === block) recentBlocks.delete(num);
    });
    for (const oldest of recentBlocks.keys()) {
      if (recentBlocks.size <= RECENT_BLOCKS) break;
      recentBlocks.delete(oldest);
    }
    return block;
  };

  /** The block's successful TransferContracts to watched addresses, as `trxTransfers` credits them. */
  const trxInBlock = (
    asset: AssetRef,
    block: FullBlock,
    watched: (address: string) => boolean,
  ): Array<Omit<IncomingTransfer, "blockHash">> => {
    const credited: Array<Omit<IncomingTransfer, "blockHash">> = [];
    for (const tx of block.transactions ?? []) {
      const contract = tx.raw_data.contract[0];
      if (contract?.type !== "TransferContract" || tx.ret?.[0]?.contractRet !== "SUCCESS") continue;
      const target = toAddressSchema.safeParse(contract.parameter?.value).data?.to_address;
      const to = target === undefined ? null : tronAddress(target);
      if (to === null || !watched(to)) continue;
      const txid = tx.txID.toLowerCase();
      const value = parseBody(source, transferContractSchema, contract.parameter?.value, "TransferContract");
      if (value.amount === 0) continue;
      credited.push({
        txid,
        index: 0,
        to,
        tag: null,
        amount: unitsToDecimal(source, value.amount, asset.decimals, txid),
        blockHeight: block.block_header.raw_data.number,
        from: senderOf(value.owner_address, txid),
      });
    }
    return credited;
  };

  /** The block's `contract` Transfer logs to watched addresses in successful txs, as `trc20Transfers` credits them. */
  const trc20InBlock = async (
    asset: AssetRef,
    contract: string,
    block: FullBlock,
    watched: (address: string) => boolean,
  ): Promise<Array<Omit<IncomingTransfer, "blockHash">>> => {
    const num = block.block_header.raw_data.number;
    const body = await http.postJson(`${base}/wallet/gettransactioninfobyblocknum`, { num });
    const infos = parseBody(source, blockTxInfosSchema, body, "gettransactioninfobyblocknum");
    const txids = new Set((block.transactions ?? []).map((tx) => tx.txID.toLowerCase()));
    const listed = new Set(infos.map((info) => info.id.toLowerCase()));
    if (listed.size !== txids.size || infos.length !== txids.size || [...listed].some((id) => !txids.has(id)))
      throw invalid(`block ${num}: ${infos.length} tx infos for ${txids.size} transactions`);
    const token = contract.slice(2);
    const credited: Array<Omit<IncomingTransfer, "blockHash">> = [];
    for (const info of infos) {
      if (info.blockNumber !== undefined && info.blockNumber !== num)
        throw invalid(`block ${num}: tx info ${info.id} is in block ${info.blockNumber}`);
      if (info.result === "FAILED") continue;
      if (info.receipt?.result !== undefined && info.receipt.result !== "SUCCESS") continue;
      const txid = info.id.toLowerCase();
      const byTo = new Map<string, Array<{ from: string; value: string; amount: string }>>();
      for (const log of info.log ?? []) {
        const address = log.address.toLowerCase();
        if ((address.length === 42 ? address.slice(2) : address) !== token) continue;
        const [topic, fromTopic, toTopic] = log.topics ?? [];
        if (log.topics?.length !== 3 || topic?.toLowerCase() !== TRANSFER_TOPIC) continue;
        const to = topicAddress(toTopic!);
        if (to === null || !watched(to)) continue;
        const from = topicAddress(fromTopic!);
        if (from === null || !/^[0-9a-fA-F]{64}$/.test(log.data ?? ""))
          throw invalid(`block ${num}: malformed Transfer log in ${txid}`);
        const value = BigInt(`0x${log.data}`).toString();
        const amount = unitsToDecimal(source, value, asset.decimals, txid);
        if (amount === "0") continue;
        const items = byTo.get(to) ?? [];
        items.push({ from, value, amount });
        byTo.set(to, items);
      }
      for (const [to, items] of byTo)
        items.sort(byValueThenSender).forEach((item, index) => {
          credited.push({
            txid,
            index,
            to,
            tag: null,
            amount: item.amount,
            blockHeight: num,
            from: item.from,
          });
        });
    }
    return credited;
  };

  return {
    async tipHeight(): Promise<number> {
      const body = await http.postJson(`${base}/wallet/getnowblock`, {});
      return parseBody(source, nowBlockSchema, body, "getnowblock").block_header.raw_data.number;
    },

    async incomingTransfers(
      asset: AssetRef,
      address: string,
      tag: string | null,
    ): Promise<IncomingTransfer[]> {
      if (tag !== null) return [];
      const to = checkAddress(address, "address");
      if (asset.contract === null) return trxTransfers(asset, to);
      return trc20Transfers(asset, checkAddress(asset.contract, "contract").base58, to.base58);
    },

    async blockTransfers(asset, height, watched): Promise<ScannedBlock> {
      const block = await fullBlock(height, asset.contract ?? "");
      const hash = block.blockID.toLowerCase();
      const found =
        asset.contract === null
          ? trxInBlock(asset, block, watched)
          : await trc20InBlock(asset, checkAddress(asset.contract, "contract").hex, block, watched);
      return {
        hash,
        previous: block.block_header.raw_data.parentHash.toLowerCase(),
        transfers: found.map((t) => ({ ...t, blockHash: hash })),
      };
    },

    async isInBestChain(transfer: IncomingTransfer): Promise<boolean> {
      if (transfer.blockHeight === null || transfer.blockHash === null) return true;
      const id = await blockIdAt(transfer.blockHeight);
      return id !== null && id === transfer.blockHash.toLowerCase();
    },
  };
}
