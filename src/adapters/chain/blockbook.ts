/**
 * ChainReader over the Blockbook REST API v2 (trezor/blockbook, the UTXO indexer behind Trezor
 * Suite and many exchanges; also sold by node providers). Serves DOGE and BCH — which have no
 * public Esplora — and BTC / LTC as an alternative to Esplora. A BCH Blockbook (its default
 * `address_format` "cashaddr", bchain/coins/bch/bcashparser.go) takes and answers addresses as
 * prefixed CashAddr (`bitcoincash:q…`), the form BCH deposit addresses are stored in. An API key, when given, is sent as the
 * `api-key` header (providers that want it in the path take it as part of the base URL instead).
 *
 * - Tip: `GET {base}/api` → `blockbook.bestHeight` (the height Blockbook has indexed, which is
 *   what its address listings reflect; the backend's own `blocks` may be ahead).
 * - Transfers: `GET {base}/api/v2/address/{a}?details=txs&pageSize={n}&page={p}`, newest first,
 *   mempool transactions included (no `blockHash`, `blockHeight` ≤ 0, `confirmations` 0). Pages
 *   are followed while `page < totalPages`, at most `maxPages` (default 4 × 100 transactions);
 *   older history is not returned (earlier polls saw it). Every `vout[n]` whose `addresses` is
 *   exactly `[address]` with a non-zero value is one IncomingTransfer with `index = n`. Amounts
 *   are strings in satoshis, converted exactly. Its `sources` are the tx's `vin[].addresses` where
 *   `isAddress` (api/types.go `Vin`; the coinbase has none, a non-standard script is no address:
 *   skipped), from the same answer; on BCH in the CashAddr form above.
 * - Reorgs: Blockbook only indexes its backend's best chain, so `isInBestChain` asks
 *   `GET {base}/api/v2/block-index/{height}` → `blockHash` and compares it with the transfer's
 *   (a height above the indexed tip answers false without a request). `block-index` rather than
 *   `block/{height}`: the latter lists up to 1000 transactions per page, only to read one hash.
 * - Whole blocks (`blockTransfers`, for the shared reads' block scan, ./block-scan.ts):
 *   `GET {base}/api/v2/block/{height}?page=1`, then `GET {base}/api/v2/block/{hash}?page=p` for
 *   p = 2 … `totalPages` (by hash: every page is of the block the first one named). Blockbook's
 *   `Block` (trezor/blockbook api/types.go: `Paging` + `BlockInfo` + `txCount` + `txs`; its
 *   docs/api.md "Get block", now openapi.yaml `getBlock`; `computePaging` in api/worker.go):
 *   `hash`, `previousBlockHash` (omitted for the genesis block), `height`, `page`, `totalPages`,
 *   `itemsOnPage`, `txCount`, `txs[]` in block order, each with `vin[]` and `vout[]` as in the address
 *   listing. The page size is the server's (`txsInAPI` = 1000, server/public.go; `pageSize` is not
 *   read there), so a DOGE block is one request and a 3,500-transaction BTC block four: `totalPages`
 *   requests a block, no separate hash lookup. Each page must be the page asked for, of the same
 *   block, and hold exactly its share of `txCount` (Blockbook answers an out-of-range page with the
 *   last one): anything else fails the call rather than skip a transaction.
 *
 * Only native coins (asset.contract null) and no tags: anything else has no transfers ([]).
 */
import { z } from "zod";
import {
  BLOCK_PAGE_CONCURRENCY,
  ChainReaderError,
  inBatches,
  maxPagesOption,
  type PagedReaderOptions,
  parseBody,
  positiveIntOption,
  readerBase,
  unitsToDecimal,
} from "./http-util";
import type { AssetRef, ChainReader, IncomingTransfer } from "./types";

export const BLOCKBOOK_PAGE_SIZE = 100;

export interface BlockbookReaderOptions extends PagedReaderOptions {
  /** Sent as the `api-key` header when set. */
  apiKey?: string;
  /** Transactions per page (Blockbook allows up to 1000); default 100. */
  pageSize?: number;
}

const HASH = /^[0-9a-f]{64}$/;
const hash = z.string().regex(HASH);
const height = z.number().int().max(Number.MAX_SAFE_INTEGER);

const txSchema = z.object({
  txid: hash,
  // Read (inputsSchema) only for a transaction that credits a watched address: a block page holds
  // up to 1000 transactions' inputs, none of them wanted. Omitted when empty.
  vin: z.unknown().optional(),
  vout: z.array(
    z.object({
      value: z.string().optional(), // omitted when zero ("empty fields are omitted")
      n: z.number().int().nonnegative(),
      addresses: z.array(z.string()).optional(),
    }),
  ),
  blockHash: hash.optional(),
  blockHeight: height.optional(),
  confirmations: z.number().int().optional(),
});

// `addresses` omitted for an input without one (the coinbase); `isAddress` false for a script
// that is no address (its `addresses` may then hold a description of it).
const inputsSchema = z
  .array(z.object({ addresses: z.array(z.string()).optional(), isAddress: z.boolean().optional() }))
  .optional();

const addressPageSchema = z.object({
  address: z.string(),
  page: z.number().int().positive().optional(),
  totalPages: z.number().int().nonnegative().optional(),
  // `txs` is the count; the list is `transactions`, omitted when empty.
  transactions: z.array(txSchema).optional(),
});

// A block page; paging fields are `omitempty` in Blockbook but never zero for a block (page ≥ 1).
const blockPageSchema = z.object({
  page: z.number().int().positive(),
  totalPages: z.number().int().positive(),
  itemsOnPage: z.number().int().positive(),
  hash,
  previousBlockHash: hash.optional(),
  height: height.nonnegative(),
  txCount: z.number().int().positive(),
  txs: z.array(txSchema).optional(),
});

const statusSchema = z.object({ blockbook: z.object({ bestHeight: height.nonnegative() }) });
const blockIndexSchema = z.object({ blockHash: hash });

// Blockbook answers failures as `{"error": "..."}` (with a 4xx/5xx, but some proxies say 200).
const errorSchema = z.object({ error: z.string() });

// Base58 or bech32, or CashAddr with its prefix (`bitcoincash:`, `bchtest:`).
const ADDRESS = /^(?:[a-z]{1,16}:)?[A-Za-z0-9]{14,90}$/;

/** The distinct addresses a transaction's inputs spend from, in input order. */
const inputAddresses = (source: string, vin: unknown): string[] => [
  ...new Set(
    (parseBody(source, inputsSchema, vin, "tx inputs") ?? []).flatMap((i) =>
      i.isAddress ? (i.addresses ?? []) : [],
    ),
  ),
];

/**
 * Every output of `tx` paying a non-zero value to exactly one address, which `ours` accepts: one
 * transfer each, in `block` (null: in the mempool), with the addresses its inputs spend from. The
 * listing and the block scan both credit through it, so a block's transfer is exactly what the
 * address's listing shows once mined.
 */
function credited(
  source: string,
  tx: z.infer<typeof txSchema>,
  asset: AssetRef,
  ours: (address: string) => boolean,
  block: { height: number; hash: string } | null,
): IncomingTransfer[] {
  const transfers: IncomingTransfer[] = [];
  let sources: string[] | undefined;
  for (const out of tx.vout) {
    const to = out.addresses?.length === 1 ? out.addresses[0]! : null;
    if (to === null || !ours(to)) continue;
    const amount = unitsToDecimal(source, out.value ?? "0", asset.decimals, tx.txid);
    if (amount === "0") continue;
    sources ??= inputAddresses(source, tx.vin);
    transfers.push({
      txid: tx.txid,
      index: out.n,
      to,
      tag: null,
      amount,
      blockHeight: block?.height ?? null,
      blockHash: block?.hash ?? null,
      sources,
    });
  }
  return transfers;
}

export function createBlockbookReader(options: BlockbookReaderOptions): ChainReader {
  const {
    source,
    url: base,
    http,
  } = readerBase(options, "blockbook", {
    headers: options.apiKey ? { "api-key": options.apiKey } : undefined,
  });
  const pageSize = positiveIntOption(source, "pageSize", options.pageSize ?? BLOCKBOOK_PAGE_SIZE);
  const maxPages = maxPagesOption(source, options);

  const tipHeight = async (): Promise<number> =>
    parseBody(source, statusSchema, await http.getJson(`${base}/api`), "status").blockbook.bestHeight;

  return {
    tipHeight,

    async incomingTransfers(
      asset: AssetRef,
      address: string,
      tag: string | null,
    ): Promise<IncomingTransfer[]> {
      if (asset.contract !== null || tag !== null) return [];
      if (!ADDRESS.test(address)) throw new TypeError(`${source}: not an address: ${address.slice(0, 100)}`);
      const byKey = new Map<string, IncomingTransfer>();
      for (let page = 1, totalPages = 1; page <= totalPages && page <= maxPages; page++) {
        const query = new URLSearchParams({ details: "txs", pageSize: String(pageSize), page: String(page) });
        const body = await http.getJson(`${base}/api/v2/address/${address}?${query}`);
        const failure = errorSchema.safeParse(body);
        if (failure.success)
          throw new ChainReaderError(source, "rpc_error", `address: ${failure.data.error}`);
        const listing = parseBody(source, addressPageSchema, body, "address");
        if (listing.address !== address) {
          throw new ChainReaderError(source, "invalid_body", `asked for ${address}, got ${listing.address}`);
        }
        // "If out of range, Blockbook returns the closest possible page": never loop on it.
        if (listing.page !== undefined && listing.page !== page) break;
        totalPages = listing.totalPages ?? 1;
        for (const tx of listing.transactions ?? []) {
          const block =
            tx.blockHash !== undefined && tx.blockHeight !== undefined && tx.blockHeight > 0
              ? { height: tx.blockHeight, hash: tx.blockHash }
              : null;
          for (const t of credited(source, tx, asset, (a) => a === address, block)) {
            const key = `${t.txid}:${t.index}`;
            // A tx mined between two page reads can be on both: the mined copy wins.
            if (block === null && byKey.has(key)) continue;
            byKey.set(key, t);
          }
        }
      }
      return [...byKey.values()];
    },

    async blockTransfers(asset, at, watched) {
      const readPage = async (block: number | string, page: number) => {
        const body = await http.getJson(`${base}/api/v2/block/${block}?page=${page}`);
        const failure = errorSchema.safeParse(body);
        if (failure.success)
          throw new ChainReaderError(source, "rpc_error", `block ${block}: ${failure.data.error}`);
        return parseBody(source, blockPageSchema, body, "block");
      };
      const first = await readPage(at, 1);
      const { hash: id, txCount, itemsOnPage, totalPages } = first;
      if (first.height !== at || totalPages !== Math.ceil(txCount / itemsOnPage))
        throw new ChainReaderError(
          source,
          "invalid_body",
          `asked for block ${at}, got ${first.height} (${txCount} txs in ${totalPages} pages of ${itemsOnPage})`,
        );
      const rest = Array.from({ length: totalPages - 1 }, (_, i) => i + 2);
      const pages = [first, ...(await inBatches(rest, BLOCK_PAGE_CONCURRENCY, (p) => readPage(id, p)))];
      const txs = pages.flatMap((page, i) => {
        const share = Math.min(itemsOnPage, txCount - i * itemsOnPage);
        const list = page.txs ?? [];
        if (
          page.page !== i + 1 ||
          page.hash !== id ||
          page.txCount !== txCount ||
          page.itemsOnPage !== itemsOnPage ||
          list.length !== share
        )
          throw new ChainReaderError(
            source,
            "invalid_body",
            `block ${id} page ${i + 1}: page ${page.page} of ${page.hash}, ${list.length} txs of ${share}`,
          );
        return list;
      });
      const block = { height: at, hash: id };
      const transfers =
        asset.contract === null ? txs.flatMap((tx) => credited(source, tx, asset, watched, block)) : [];
      return { hash: id, previous: first.previousBlockHash ?? "", transfers };
    },

    async isInBestChain(transfer: IncomingTransfer): Promise<boolean> {
      if (transfer.blockHeight === null || transfer.blockHash === null) return true;
      const expected = transfer.blockHash.toLowerCase();
      if (!HASH.test(expected)) throw new TypeError(`${source}: not a block hash: ${transfer.blockHash}`);
      if (transfer.blockHeight > (await tipHeight())) return false;
      const body = await http.getJson(`${base}/api/v2/block-index/${transfer.blockHeight}`);
      return parseBody(source, blockIndexSchema, body, "block-index").blockHash === expected;
    },
  };
}
