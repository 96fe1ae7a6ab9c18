/**
 * ChainReader over Stellar Horizon (https://horizon.stellar.org, or an operator's own Horizon) for
 * native XLM on the memo scheme: one shared deposit account, orders told apart by memo.
 *
 * - Tip: `GET {base}/` → `history_latest_ledger`, the newest ledger Horizon has ingested. Stellar
 *   ledgers are final once closed (SCP), so 1 confirmation = in a ledger Horizon serves.
 * - Transfers: `GET {base}/accounts/{id}/payments?join=transactions&order=desc&limit={n}`, then
 *   `cursor={last paging_token}` while a page is full, at most `maxPages` pages. Horizon lists
 *   successful operations only (no `include_failed`), and `transaction_successful` is checked too.
 *   Credited: `payment`, `path_payment_strict_receive` and `path_payment_strict_send` records with
 *   `asset_type` "native" and `to` = the account (for path payments `amount` is what the
 *   destination received). Not credited: `create_account` (the deposit account exists already),
 *   `account_merge` (no amount in the record), other assets.
 * - Memo (`transaction.memo_type` / `memo` of the joined transaction): `id` and `text` memos are the
 *   tag as sent ("100001" either way: our tags are digits, and wallets send them as either type);
 *   `hash` / `return` memos become "hash:…" / "return:…", which no order's tag equals; `none` → null.
 *   Payments to a muxed `M…` address are not read by their muxed id: without the memo they reach no
 *   order (they are in `addressTransfers` for the operator).
 * - `txid` is the transaction hash, `index` the operation's index in it (the low 12 bits of the
 *   operation id), `blockHeight` the ledger, `blockHash` that ledger's `hash`
 *   (`GET {base}/ledgers/{n}`, for the order's own transfers, once per ledger per call;
 *   `addressTransfers` leaves it null). `isInBestChain` compares it again.
 * - An account Horizon does not know (HTTP 404) has received nothing: [].
 */
import { z } from "zod";
import { validateStellarAddress } from "../../domain/addresses/stellar";
import { toDecimalString, tryParseDecimal } from "../../domain/money";
import {
  ChainReaderError,
  maxPagesOption,
  type PagedReaderOptions,
  parseBody,
  positiveIntOption,
  readerBase,
} from "./http-util";
import { memoReader } from "./memo";
import type { AssetRef, ChainReader, IncomingTransfer } from "./types";

export const HORIZON_PAGE_LIMIT = 200;

export interface HorizonReaderOptions extends PagedReaderOptions {
  /** Records per page (Horizon allows up to 200); default 200. */
  limit?: number;
}

const hash = z.string().regex(/^[0-9a-f]{64}$/);
const ledgerSeq = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const CREDITED = new Set(["payment", "path_payment_strict_receive", "path_payment_strict_send"]);

const recordSchema = z.object({
  id: z.string().regex(/^[0-9]{1,20}$/),
  paging_token: z.string(),
  type: z.string(),
  transaction_successful: z.boolean(),
  transaction_hash: hash,
  asset_type: z.string().optional(),
  from: z.string().optional(),
  to: z.string().optional(),
  amount: z.string().optional(),
  transaction: z.object({
    hash,
    ledger: ledgerSeq,
    successful: z.boolean(),
    memo_type: z.enum(["none", "id", "text", "hash", "return"]),
    memo: z.string().optional(),
  }),
});
const pageSchema = z.object({ _embedded: z.object({ records: z.array(recordSchema) }) });
const rootSchema = z.object({ history_latest_ledger: ledgerSeq });
const ledgerSchema = z.object({ sequence: ledgerSeq, hash });

function tagOf(memoType: string, memo: string | undefined): string | null {
  if (memoType === "none" || memo === undefined) return null;
  return memoType === "id" || memoType === "text" ? memo : `${memoType}:${memo}`;
}

export function createHorizonReader(options: HorizonReaderOptions): ChainReader {
  const { source, url: base, http } = readerBase(options, "horizon");
  const limit = positiveIntOption(source, "limit", options.limit ?? HORIZON_PAGE_LIMIT);
  const maxPages = maxPagesOption(source, options);
  const invalid = (message: string) => new ChainReaderError(source, "invalid_body", message);

  const ledgerHash = async (seq: number): Promise<string> => {
    const found = parseBody(source, ledgerSchema, await http.getJson(`${base}/ledgers/${seq}`), "ledger");
    if (found.sequence !== seq) throw invalid(`asked for ledger ${seq}, got ${found.sequence}`);
    return found.hash;
  };

  const page = async (address: string, cursor: string | null) => {
    const query = new URLSearchParams({ join: "transactions", order: "desc", limit: String(limit) });
    if (cursor !== null) query.set("cursor", cursor);
    try {
      const body = await http.getJson(`${base}/accounts/${address}/payments?${query}`);
      return parseBody(source, pageSchema, body, "payments")._embedded.records;
    } catch (err) {
      if (err instanceof ChainReaderError && err.status === 404) return [];
      throw err;
    }
  };

  const addressTransfers = async (asset: AssetRef, address: string): Promise<IncomingTransfer[]> => {
    if (asset.contract !== null) return [];
    if (!validateStellarAddress(address).ok || !address.startsWith("G"))
      throw new TypeError(`${source}: not a Stellar account: ${address.slice(0, 100)}`);
    const transfers: IncomingTransfer[] = [];
    let cursor: string | null = null;
    for (let n = 0; n < maxPages; n++) {
      const records = await page(address, cursor);
      for (const r of records) {
        if (!CREDITED.has(r.type) || r.asset_type !== "native" || r.to !== address) continue;
        if (!r.transaction_successful || !r.transaction.successful) continue;
        if (r.transaction.hash !== r.transaction_hash)
          throw invalid(`record ${r.id} joined another transaction`);
        // Non-negative decimal text with at most the asset's places ("25.0000000").
        const amount = typeof r.amount === "string" ? tryParseDecimal(r.amount) : undefined;
        if (amount === undefined || amount.decimalPlaces() > asset.decimals)
          throw invalid(`bad amount in ${r.transaction_hash}: ${r.amount}`);
        if (amount.isZero()) continue;
        transfers.push({
          txid: r.transaction_hash,
          index: Number(BigInt(r.id) & 0xfffn),
          to: address,
          tag: tagOf(r.transaction.memo_type, r.transaction.memo),
          amount: toDecimalString(amount),
          blockHeight: r.transaction.ledger,
          blockHash: null, // looked up by memoReader for the order's own transfers
          ...(r.from === undefined ? {} : { from: r.from }),
        });
      }
      if (records.length < limit) break;
      cursor = records[records.length - 1]!.paging_token;
    }
    return transfers;
  };

  return memoReader(
    { list: addressTransfers, blockHashAt: ledgerHash },
    {
      tipHeight: async () =>
        parseBody(source, rootSchema, await http.getJson(`${base}/`), "root").history_latest_ledger,

      async isInBestChain(transfer: IncomingTransfer): Promise<boolean> {
        if (transfer.blockHeight === null || transfer.blockHash === null) return true;
        return (await ledgerHash(transfer.blockHeight)) === transfer.blockHash;
      },
    },
  );
}
