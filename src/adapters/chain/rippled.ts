/**
 * ChainReader over rippled's JSON-RPC API (a rippled or Clio server, e.g. https://xrplcluster.com or
 * https://s1.ripple.com:51234), POSTed to `baseUrl` as is, for native XRP on the memo scheme: one
 * shared deposit account, orders told apart by destination tag.
 *
 * - Tip: `ledger {ledger_index: "validated"}` → `ledger_index`, the newest validated ledger. A
 *   validated ledger is final (no reorgs on the XRP Ledger); 1 confirmation = validated.
 * - Transfers: `account_tx {account, ledger_index_min: -1, ledger_index_max: -1, forward: false,
 *   limit}` (newest first), following `marker` for at most `maxPages` pages. A transaction is
 *   credited only when it is a `Payment` to the account whose `meta.TransactionResult` is
 *   `tesSUCCESS`, and the amount is `meta.delivered_amount` in drops — never `Amount`: a partial
 *   payment (tfPartialPayment) names a large `Amount` and delivers a few drops, the classic XRP
 *   deposit attack. A `delivered_amount` that is an issued-currency object or "unavailable" is not
 *   XRP and is not credited. `tag` is the `DestinationTag` as a decimal string (null without one).
 *   Entries not yet `validated` are listed as unconfirmed (blockHeight null).
 * - Both API versions are read: v1 (`tx`, with `hash` and `ledger_index` inside) and v2 (`tx_json`,
 *   with `hash` and `ledger_index` beside it).
 * - An account that does not exist yet (`actNotFound`) has received nothing: [].
 * - Block hash: v2 entries carry `ledger_hash`; for v1 ones it is read with `ledger {ledger_index}`
 *   for the order's own transfers (once per ledger per call; `addressTransfers` leaves it null). `isInBestChain` compares `ledger {ledger_index: N}` → `ledger_hash`
 *   with the transfer's. `api_version: 2` is asked for; a v1 answer is read too.
 *
 * rippled answers errors inside `result` (`status: "error"`, `error`, `error_code`): they throw
 * ChainReaderError("rpc_error") with `rpcCode`.
 */
import { z } from "zod";
import { validateXrpAddress } from "../../domain/addresses/xrp";
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

export const RIPPLED_PAGE_LIMIT = 200;

export interface RippledReaderOptions extends PagedReaderOptions {
  /** Transactions per account_tx page; default 200. */
  limit?: number;
}

const hash = z.string().regex(/^[0-9A-Fa-f]{64}$/);
const ledgerIndex = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

const envelopeSchema = z.object({ result: z.record(z.string(), z.unknown()) });
const errorSchema = z.object({
  status: z.literal("error"),
  error: z.string(),
  error_code: z.number().optional(),
  error_message: z.string().optional(),
});

const txFields = z.object({
  TransactionType: z.string(),
  Account: z.string(),
  Destination: z.string().optional(),
  DestinationTag: z.number().int().nonnegative().optional(),
  hash: hash.optional(),
  ledger_index: ledgerIndex.optional(),
});
const entrySchema = z.object({
  tx: txFields.optional(),
  tx_json: txFields.optional(),
  hash: hash.optional(),
  ledger_index: ledgerIndex.optional(),
  ledger_hash: hash.optional(),
  meta: z.union([
    z.object({
      TransactionResult: z.string(),
      delivered_amount: z.unknown().optional(),
    }),
    z.string(), // binary mode: never requested
  ]),
  validated: z.boolean().optional(),
});
const accountTxSchema = z.object({
  transactions: z.array(entrySchema),
  marker: z.unknown().optional(),
});
const ledgerSchema = z.object({
  ledger_index: z.union([
    ledgerIndex,
    z
      .string()
      .regex(/^[0-9]{1,15}$/)
      .transform(Number),
  ]),
  ledger_hash: hash,
  validated: z.boolean().optional(),
});
const DROPS = /^[0-9]{1,20}$/;

export function createRippledReader(options: RippledReaderOptions): ChainReader {
  const { source, url, http } = readerBase(options, "rippled", { rpc: true });
  const limit = positiveIntOption(source, "limit", options.limit ?? RIPPLED_PAGE_LIMIT);
  const maxPages = maxPagesOption(source, options);

  /** The `result` of a call, or null for the `tolerate`d error (e.g. actNotFound). */
  const call = async (method: string, params: object, tolerate?: string): Promise<unknown> => {
    const body = await http.postJson(url, { method, params: [params] });
    const { result } = parseBody(source, envelopeSchema, body, `${method} response`);
    const failure = errorSchema.safeParse(result);
    if (failure.success) {
      const { error, error_code: code, error_message: message } = failure.data;
      if (error === tolerate) return null;
      throw new ChainReaderError(source, "rpc_error", `${method}: ${message ?? error} (${error})`, {
        ...(code === undefined ? {} : { rpcCode: code }),
      });
    }
    return result;
  };

  const ledger = async (index: number | "validated") => {
    const found = parseBody(source, ledgerSchema, await call("ledger", { ledger_index: index }), "ledger");
    if (index !== "validated" && found.ledger_index !== index)
      throw new ChainReaderError(
        source,
        "invalid_body",
        `asked for ledger ${index}, got ${found.ledger_index}`,
      );
    return found;
  };

  const addressTransfers = async (asset: AssetRef, address: string): Promise<IncomingTransfer[]> => {
    if (asset.contract !== null) return [];
    if (!validateXrpAddress(address).ok || !address.startsWith("r"))
      throw new TypeError(`${source}: not a classic XRP address: ${address.slice(0, 100)}`);
    const transfers: IncomingTransfer[] = [];
    let marker: unknown;
    for (let page = 0; page < maxPages && (page === 0 || marker !== undefined); page++) {
      const params = {
        api_version: 2,
        account: address,
        ledger_index_min: -1,
        ledger_index_max: -1,
        forward: false,
        limit,
        ...(marker === undefined ? {} : { marker }),
      };
      const result = await call("account_tx", params, "actNotFound");
      if (result === null) return [];
      const listing = parseBody(source, accountTxSchema, result, "account_tx");
      marker = listing.marker;
      for (const entry of listing.transactions) {
        const tx = entry.tx ?? entry.tx_json;
        const txid = tx?.hash ?? entry.hash;
        if (!tx || !txid || typeof entry.meta === "string")
          throw new ChainReaderError(
            source,
            "invalid_body",
            "account_tx entry without tx, hash or JSON meta",
          );
        if (tx.TransactionType !== "Payment" || tx.Destination !== address) continue;
        if (entry.meta.TransactionResult !== "tesSUCCESS") continue;
        const delivered = entry.meta.delivered_amount;
        if (typeof delivered !== "string" || !DROPS.test(delivered)) continue;
        const amount = unitsToDecimal(source, delivered, asset.decimals, txid);
        if (amount === "0") continue;
        const height = entry.validated === true ? (tx.ledger_index ?? entry.ledger_index ?? null) : null;
        // API v1 listings do not name the ledger's hash: memoReader looks it up when needed.
        const blockHash = height === null ? null : (entry.ledger_hash ?? null);
        transfers.push({
          txid: txid.toUpperCase(),
          index: 0,
          to: address,
          tag: tx.DestinationTag === undefined ? null : String(tx.DestinationTag),
          amount,
          blockHeight: height,
          blockHash: blockHash?.toUpperCase() ?? null,
          from: tx.Account,
        });
      }
    }
    return transfers;
  };

  const blockHashAt = async (height: number) => (await ledger(height)).ledger_hash.toUpperCase();

  return memoReader(
    { list: addressTransfers, blockHashAt },
    {
      tipHeight: async () => (await ledger("validated")).ledger_index,

      async isInBestChain(transfer: IncomingTransfer): Promise<boolean> {
        if (transfer.blockHeight === null || transfer.blockHash === null) return true;
        return (await blockHashAt(transfer.blockHeight)) === transfer.blockHash.toUpperCase();
      },
    },
  );
}
