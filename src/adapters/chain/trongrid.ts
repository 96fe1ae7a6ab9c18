import { bytesToHex } from "@noble/hashes/utils.js";
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
 *   across polls, not a log index.
 * - Native TRX (asset.contract null): `GET {base}/v1/accounts/{a}/transactions?only_to=true&limit=200`;
 *   items whose `raw_data.contract[0]` is a `TransferContract` with `to_address` = the address
 *   (hex 41… or base58 T…) and `ret[0].contractRet` "SUCCESS"; amount = `amount` sun / 10^6,
 *   `blockHeight` = `blockNumber` (absent → unconfirmed), `index` 0. TRX sent by contracts
 *   (internal transactions, listed by TronGrid with another shape) and TRC-10 transfers are NOT
 *   credited.
 * - Only the newest 200 items of each list are read (no `fingerprint` paging): fine for per-order
 *   deposit addresses, not for busy addresses.
 * - Cost: 1 + (credited txs) + (distinct blocks) requests per TRC-20 call, 1 + (distinct blocks)
 *   per TRX call — mind TronGrid's rate limits and the Workers subrequest limit.
 * - Reorgs: `isInBestChain` compares `getblockbynum(blockHeight).blockID` with `blockHash`; an
 *   empty answer (no block at that height on this node) is false.
 */
import { z } from "zod";
import { decodeBase58Check } from "../../domain/addresses/encoding";
import { validateTronAddress } from "../../domain/addresses/tron";
import { Dec } from "../../domain/money";
import { ChainReaderError, type HttpReaderOptions, parseBody, readerBase, unitsToDecimal } from "./http-util";
import type { AssetRef, ChainReader, IncomingTransfer } from "./types";

export const TRONGRID_PAGE_LIMIT = 200;
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
      items.push({ from: item.from, value: item.value, amount });
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
      items.sort((a, b) => new Dec(a.value).cmp(b.value) || (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
      items.forEach((item, index) => {
        pending.push({
          txid,
          index,
          to,
          tag: null,
          amount: item.amount,
          blockHeight: info.blockNumber ?? null,
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
      });
    }
    return withBlockHashes(pending);
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

    async isInBestChain(transfer: IncomingTransfer): Promise<boolean> {
      if (transfer.blockHeight === null || transfer.blockHash === null) return true;
      const id = await blockIdAt(transfer.blockHeight);
      return id !== null && id === transfer.blockHash.toLowerCase();
    },
  };
}
