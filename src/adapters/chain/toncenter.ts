import { bytesToHex } from "@noble/hashes/utils.js";
/**
 * ChainReader over the toncenter API v3 (https://toncenter.com/api/v3, or a self-hosted TON
 * indexer with the same API) for native TON on the memo scheme: one shared deposit wallet, orders
 * told apart by the text comment. An API key, when given, is sent as `X-API-Key`.
 *
 * - Tip: `GET {base}/masterchainInfo` → `last.seqno`. TON blocks are final once a masterchain
 *   block commits them; confirmations count masterchain blocks from `mc_block_seqno`.
 * - Transfers: `GET {base}/transactions?account={a}&limit={n}&offset={k}&sort=desc`, while a page is
 *   full, at most `maxPages` pages. A transaction is credited when its `in_msg` is an internal
 *   message (has a `source`) that is not `bounced`, to the deposit account, with a non-zero `value`
 *   (nanotons), and the transaction was not `aborted` (an aborted transaction bounces the value
 *   back). Addresses are compared as accounts (`wc:hex`, src/domain/addresses/ton.ts): the
 *   bounceable EQ… and non-bounceable UQ… spellings of the deposit wallet are one address.
 * - `tag` is the text comment (`in_msg.message_content.decoded` of type `text_comment`), exactly as
 *   sent; any other body (none, binary, encrypted) → null, which reaches no order.
 * - `txid` is the transaction hash in lower-case hex (toncenter gives base64; explorers such as
 *   tonviewer take hex), `index` 0, `blockHeight` = `mc_block_seqno`, `blockHash` that masterchain
 *   block's `root_hash` (`GET {base}/blocks?workchain=-1&seqno={n}`, for the order's own transfers,
 *   once per block per call; `addressTransfers` leaves it null; an indexer without that block yet
 *   → unconfirmed); `isInBestChain` compares it again. Transactions without `mc_block_seqno` are unconfirmed.
 * - Jettons (asset.contract set) are not read: [].
 */
import { base64 } from "@scure/base";
import { z } from "zod";
import { tonAccountId } from "../../domain/addresses/ton";
import {
  ChainReaderError,
  maxPagesOption,
  type PagedReaderOptions,
  parseBody,
  positiveIntOption,
  readerBase,
  unitsToDecimal,
} from "./http-util";
import { memoReader } from "./memo";
import type { AssetRef, ChainReader, IncomingTransfer } from "./types";

export const TONCENTER_PAGE_LIMIT = 100;

export interface ToncenterReaderOptions extends PagedReaderOptions {
  /** Sent as the `X-API-Key` header when set. */
  apiKey?: string;
  /** Transactions per page; default 100. */
  limit?: number;
}

const b64hash = z.string().regex(/^[A-Za-z0-9+/_-]{43}=?$/);
const seqno = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

const txSchema = z.object({
  account: z.string(),
  hash: b64hash,
  mc_block_seqno: seqno.nullable().optional(),
  description: z.object({ aborted: z.boolean().optional() }).optional(),
  in_msg: z
    .object({
      source: z.string().nullable().optional(),
      destination: z.string().nullable().optional(),
      value: z
        .string()
        .regex(/^[0-9]{1,40}$/)
        .nullable()
        .optional(),
      bounced: z.boolean().nullable().optional(),
      message_content: z
        .object({
          decoded: z.object({ type: z.string(), comment: z.string().optional() }).nullable().optional(),
        })
        .nullable()
        .optional(),
    })
    .nullable()
    .optional(),
});
const txListSchema = z.object({ transactions: z.array(txSchema) });
const masterchainInfoSchema = z.object({ last: z.object({ seqno }) });
const blocksSchema = z.object({ blocks: z.array(z.object({ seqno, root_hash: b64hash })) });

function hexOfBase64(hash: string): string {
  return bytesToHex(base64.decode(hash.replace(/-/g, "+").replace(/_/g, "/").padEnd(44, "=")));
}

export function createToncenterReader(options: ToncenterReaderOptions): ChainReader {
  const {
    source,
    url: base,
    http,
  } = readerBase(options, "toncenter", {
    headers: options.apiKey ? { "X-API-Key": options.apiKey } : undefined,
  });
  const limit = positiveIntOption(source, "limit", options.limit ?? TONCENTER_PAGE_LIMIT);
  const maxPages = maxPagesOption(source, options);
  const invalid = (message: string) => new ChainReaderError(source, "invalid_body", message);

  const masterBlockHash = async (n: number): Promise<string | null> => {
    const body = await http.getJson(`${base}/blocks?workchain=-1&seqno=${n}&limit=1`);
    const block = parseBody(source, blocksSchema, body, "blocks").blocks[0];
    if (block === undefined) return null;
    if (block.seqno !== n) throw invalid(`asked for masterchain block ${n}, got ${block.seqno}`);
    return hexOfBase64(block.root_hash);
  };

  const addressTransfers = async (asset: AssetRef, address: string): Promise<IncomingTransfer[]> => {
    if (asset.contract !== null) return [];
    const account = tonAccountId(address);
    if (account === null) throw new TypeError(`${source}: not a TON address: ${address.slice(0, 100)}`);
    const transfers: IncomingTransfer[] = [];
    for (let page = 0; page < maxPages; page++) {
      const query = new URLSearchParams({
        account: address,
        limit: String(limit),
        offset: String(page * limit),
        sort: "desc",
      });
      const body = await http.getJson(`${base}/transactions?${query}`);
      const { transactions } = parseBody(source, txListSchema, body, "transactions");
      for (const tx of transactions) {
        const msg = tx.in_msg;
        if (!msg?.source || msg.bounced === true || tx.description?.aborted !== false) continue;
        if (!msg.destination || tonAccountId(msg.destination) !== account) continue;
        if (tonAccountId(tx.account) !== account) throw invalid(`listing for ${address} holds ${tx.account}`);
        const txid = hexOfBase64(tx.hash);
        const amount = unitsToDecimal(source, msg.value ?? "0", asset.decimals, txid);
        if (amount === "0") continue;
        const decoded = msg.message_content?.decoded;
        transfers.push({
          txid,
          index: 0,
          to: address,
          tag: decoded?.type === "text_comment" && decoded.comment !== undefined ? decoded.comment : null,
          amount,
          blockHeight: tx.mc_block_seqno ?? null,
          blockHash: null, // looked up by memoReader for the order's own transfers
          from: msg.source,
        });
      }
      if (transactions.length < limit) break;
    }
    return transfers;
  };

  return memoReader(
    { list: addressTransfers, blockHashAt: masterBlockHash },
    {
      tipHeight: async () =>
        parseBody(
          source,
          masterchainInfoSchema,
          await http.getJson(`${base}/masterchainInfo`),
          "masterchainInfo",
        ).last.seqno,

      async isInBestChain(transfer: IncomingTransfer): Promise<boolean> {
        if (transfer.blockHeight === null || transfer.blockHash === null) return true;
        return (await masterBlockHash(transfer.blockHeight)) === transfer.blockHash;
      },
    },
  );
}
