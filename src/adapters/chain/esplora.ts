/**
 * ChainReader over the Esplora REST API (Blockstream esplora / electrs, and the compatible
 * mempool.space API): BTC at https://blockstream.info/api or https://mempool.space/api, LTC at
 * https://litecoinspace.org/api.
 *
 * - Tip: `GET {base}/blocks/tip/height` (plain-text integer).
 * - Transfers: `GET {base}/address/{a}/txs` answers with up to 50 mempool transactions plus the
 *   newest 25 confirmed ones. While a confirmed page is full (25), the next one is
 *   `GET {base}/address/{a}/txs/chain/{last confirmed txid of the previous page}`. At most
 *   `maxChainPages` confirmed pages are read per call (default 4, i.e. the newest 100 confirmed
 *   transactions); older history is NOT returned — a deposit address that has seen more than that
 *   many transactions only shows its newest ones (its older deposits were seen by earlier polls).
 *   More than 50 mempool transactions are likewise not listed (Esplora's own limit).
 * - Every `vout[i]` paying exactly `address` (`scriptpubkey_address`) with a non-zero value is one
 *   IncomingTransfer with `index = i`; several outputs to the address in one tx are several
 *   transfers. Amounts are sats / 10^asset.decimals (8), exact. Its `sources` are the tx's
 *   `vin[].prevout.scriptpubkey_address` (the spent outputs, in the same answer; `prevout` null
 *   for the coinbase, no address for a non-standard script: skipped).
 * - `blockHeight`/`blockHash` come from the tx `status`; null while in the mempool. A mempool tx
 *   that was replaced (RBF) or dropped simply stops being listed, so it is absent.
 * - Reorgs: `isInBestChain` asks `GET {base}/block/{hash}/status` → `in_best_chain`. Unconfirmed
 *   transfers have no block and answer true.
 * - Whole blocks (`blockTransfers`, for the shared reads' block scan): `GET {base}/block-height/{h}`
 *   (plain-text hash), `GET {base}/block/{hash}` (`id`, `height`, `previousblockhash`, `tx_count`),
 *   then `GET {base}/block/{hash}/txs/{start}` for start = 0, 25, … below `tx_count` (25 per page,
 *   no `status`: the block is theirs). Each page must hold exactly its share of `tx_count` — a short
 *   page fails the call rather than skip a transaction. ≈ tx_count / 25 + 2 requests a block.
 *
 * Only native coins (asset.contract null) and no tags: anything else has no transfers ([]).
 */
import { z } from "zod";
import {
  BLOCK_PAGE_CONCURRENCY,
  baseUnitsToDecimal,
  ChainReaderError,
  type HttpReaderOptions,
  inBatches,
  parseBody,
  readerBase,
} from "./http-util";
import type { AssetRef, ChainReader, IncomingTransfer } from "./types";

/** Esplora's confirmed-page size (`/address/:a/txs` and `/address/:a/txs/chain/:txid`). */
export const ESPLORA_CHAIN_PAGE_SIZE = 25;
export const DEFAULT_MAX_CHAIN_PAGES = 4;

export interface EsploraReaderOptions extends HttpReaderOptions {
  /** Most confirmed pages (25 txs each, the first included) read per incomingTransfers call; default 4. */
  maxChainPages?: number;
}

const TXID = /^[0-9a-f]{64}$/;
const txidSchema = z.string().regex(TXID);

const statusSchema = z.union([
  z.object({
    confirmed: z.literal(true),
    block_height: z.number().int().nonnegative(),
    block_hash: txidSchema,
  }),
  z.object({ confirmed: z.literal(false) }),
]);

const txSchema = z.object({
  txid: txidSchema,
  // Read (inputsSchema) only for a transaction that credits a watched address: a scanned block
  // holds thousands of inputs, none of them wanted.
  vin: z.unknown(),
  vout: z.array(
    z.object({
      // Absent for outputs without an address (OP_RETURN, bare multisig, ...).
      scriptpubkey_address: z.string().optional(),
      value: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
    }),
  ),
  status: statusSchema,
});
type EsploraTx = z.infer<typeof txSchema>;

// `prevout` is the spent output, in `vout`'s format; null for the coinbase.
const inputsSchema = z.array(
  z.object({ prevout: z.object({ scriptpubkey_address: z.string().optional() }).nullish() }),
);

const txListSchema = z.array(txSchema);
const blockStatusSchema = z.object({ in_best_chain: z.boolean() });
const blockSchema = z.object({
  id: txidSchema,
  height: z.number().int().nonnegative(),
  // null only for the genesis block
  previousblockhash: txidSchema.nullable(),
  tx_count: z.number().int().positive(),
});
const blockTxsSchema = z.array(txSchema.omit({ status: true }));

// Bech32 and base58 addresses are alphanumeric; anything else is refused before it reaches a URL.
const ADDRESS = /^[A-Za-z0-9]{14,90}$/;

/**
 * Every output of `tx` paying a non-zero value to an address `ours` accepts: one transfer each,
 * with the addresses its inputs spend from.
 */
function credited(
  source: string,
  tx: Omit<EsploraTx, "status">,
  asset: AssetRef,
  block: { block_height: number; block_hash: string } | null,
  ours: (address: string) => boolean,
): IncomingTransfer[] {
  const paid = tx.vout.flatMap((out, index) => {
    const to = out.scriptpubkey_address;
    return to === undefined || out.value === 0 || !ours(to) ? [] : [{ to, index, value: out.value }];
  });
  if (paid.length === 0) return [];
  const inputs = parseBody(source, inputsSchema, tx.vin, "tx inputs");
  const sources = [...new Set(inputs.flatMap((i) => i.prevout?.scriptpubkey_address ?? []))];
  return paid.map(({ to, index, value }) => ({
    txid: tx.txid,
    index,
    to,
    tag: null,
    amount: baseUnitsToDecimal(value, asset.decimals),
    blockHeight: block ? block.block_height : null,
    blockHash: block ? block.block_hash : null,
    sources,
  }));
}

export function createEsploraReader(options: EsploraReaderOptions): ChainReader {
  const { source, url: base, http } = readerBase(options, "esplora");
  const maxChainPages = options.maxChainPages ?? DEFAULT_MAX_CHAIN_PAGES;
  if (!Number.isInteger(maxChainPages) || maxChainPages < 1) {
    throw new RangeError(`${source}: maxChainPages must be a positive integer`);
  }

  const listTxs = async (address: string): Promise<EsploraTx[]> => {
    const path = `${base}/address/${encodeURIComponent(address)}/txs`;
    const first = parseBody(source, txListSchema, await http.getJson(path), "address txs");
    const byTxid = new Map<string, EsploraTx>();
    for (const tx of first) byTxid.set(tx.txid, tx);
    let page = first.filter((tx) => tx.status.confirmed);
    for (let pages = 1; page.length >= ESPLORA_CHAIN_PAGE_SIZE && pages < maxChainPages; pages++) {
      const last = page[page.length - 1]!.txid;
      const next = parseBody(
        source,
        txListSchema,
        await http.getJson(`${path}/chain/${last}`),
        "address txs",
      );
      // A tx confirmed between the two requests can be on both lists: the confirmed copy wins.
      for (const tx of next) if (tx.status.confirmed || !byTxid.has(tx.txid)) byTxid.set(tx.txid, tx);
      page = next.filter((tx) => tx.status.confirmed);
    }
    return [...byTxid.values()];
  };

  return {
    async tipHeight(): Promise<number> {
      const text = (await http.getText(`${base}/blocks/tip/height`)).trim();
      const height = /^[0-9]{1,15}$/.test(text) ? Number(text) : Number.NaN;
      if (!Number.isSafeInteger(height)) {
        throw new ChainReaderError(
          source,
          "invalid_body",
          `tip height is not an integer: ${text.slice(0, 40)}`,
        );
      }
      return height;
    },

    async incomingTransfers(
      asset: AssetRef,
      address: string,
      tag: string | null,
    ): Promise<IncomingTransfer[]> {
      if (asset.contract !== null || tag !== null) return [];
      if (!ADDRESS.test(address)) throw new TypeError(`${source}: not an address: ${address.slice(0, 100)}`);
      return (await listTxs(address)).flatMap((tx) =>
        credited(source, tx, asset, tx.status.confirmed ? tx.status : null, (a) => a === address),
      );
    },

    async blockTransfers(asset, height, watched) {
      const hash = (await http.getText(`${base}/block-height/${height}`)).trim();
      if (!TXID.test(hash))
        throw new ChainReaderError(source, "invalid_body", `not a block hash at ${height}`);
      const block = parseBody(source, blockSchema, await http.getJson(`${base}/block/${hash}`), "block");
      if (block.id !== hash || block.height !== height)
        throw new ChainReaderError(
          source,
          "invalid_body",
          `asked for block ${height} ${hash}, got ${block.height}`,
        );
      const starts: number[] = [];
      for (let start = 0; start < block.tx_count; start += ESPLORA_CHAIN_PAGE_SIZE) starts.push(start);
      const status = { block_height: height, block_hash: hash };
      const pages = await inBatches(starts, BLOCK_PAGE_CONCURRENCY, async (start) => {
        const body = await http.getJson(`${base}/block/${hash}/txs/${start}`);
        const txs = parseBody(source, blockTxsSchema, body, "block txs");
        if (txs.length !== Math.min(ESPLORA_CHAIN_PAGE_SIZE, block.tx_count - start))
          throw new ChainReaderError(
            source,
            "invalid_body",
            `block ${hash} page ${start}: ${txs.length} txs`,
          );
        return txs;
      });
      const transfers =
        asset.contract === null
          ? pages.flat().flatMap((tx) => credited(source, tx, asset, status, watched))
          : [];
      return { hash, previous: block.previousblockhash ?? "", transfers };
    },

    async isInBestChain(transfer: IncomingTransfer): Promise<boolean> {
      if (transfer.blockHash === null) return true;
      const hash = transfer.blockHash.toLowerCase();
      if (!TXID.test(hash)) throw new TypeError(`${source}: not a block hash: ${transfer.blockHash}`);
      const body = await http.getJson(`${base}/block/${hash}/status`);
      return parseBody(source, blockStatusSchema, body, "block status").in_best_chain;
    },
  };
}
