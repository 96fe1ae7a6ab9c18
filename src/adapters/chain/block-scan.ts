/**
 * One asset's block scan for the shared reads (./shared-reads.ts): each new block of the network is
 * read once, whole (`ChainReader.blockTransfers`), and every transfer in it to a watched address is
 * kept for that address — so finding deposits costs what the blocks cost (Esplora: ≈ tx_count / 25
 * requests a block; Blockbook: one per 1,000 transactions), whatever the number of watched addresses.
 *
 * - The scan starts at the tip it is first given: blocks up to it are the watched addresses' own
 *   listings' business (an address is watched before its first listing is read, so any block after
 *   that listing is scanned with the address in the set).
 * - Each block's parent hash is checked against the block read at the height below. A mismatch is
 *   a reorg: the scan steps back a block (forgetting what it found there) and reads again, until
 *   the parents agree; `isInBestChain` answering false for a scanned block does the same at once.
 *   Each step back reports the addresses whose found transfers it dropped (`onRollBack`), so their
 *   listing is read again: a transaction reorged out may be back in the mempool, which no block shows.
 * - Found transfers of addresses no longer watched are dropped with them; once none is watched, the
 *   scan starts again at the next tip it is given (a network idle for a day costs no day of blocks).
 */
import type { AssetRef, ChainReader, IncomingTransfer } from "./types";

/** Block hashes kept per asset to detect a reorg this deep (BTC has not seen one past a few blocks). */
export const REORG_DEPTH = 100;

export interface BlockScan {
  /** Starts (or keeps) collecting `address`'s transfers from the blocks scanned from now on. */
  watch(address: string): void;
  /** Stops: its found transfers are dropped; watched again, it starts afresh. */
  unwatch(address: string): void;
  watched(): IterableIterator<string>;
  /** Transfers found in scanned blocks to `address`, oldest block first. */
  found(address: string): IncomingTransfer[];
  /** Reads every block after the last one scanned up to `tip` (one scan at a time; askers share it). */
  catchUp(tip: number): Promise<void>;
  /** The block at `height` with hash `hash` is no longer in the best chain, if it was scanned. */
  orphaned(height: number, hash: string): void;
  /** With nothing watched: the scan starts again at the next tip (no backlog of blocks nobody waits for). */
  restart(): void;
}

export function createBlockScan(
  inner: ChainReader,
  asset: AssetRef,
  onRollBack: (height: number, addresses: ReadonlySet<string>) => void,
): BlockScan {
  const read = inner.blockTransfers!;
  let cursor: number | null = null;
  const hashes = new Map<number, string>();
  const byAddress = new Map<string, Map<string, IncomingTransfer>>();
  let running: Promise<void> | null = null;

  /** Forgets blocks from `height` up: the scan reads them again. */
  const rollBack = (height: number) => {
    const touched = new Set<string>();
    for (const [address, found] of byAddress)
      for (const [key, t] of found)
        if ((t.blockHeight ?? 0) >= height) {
          found.delete(key);
          touched.add(address);
        }
    for (const h of hashes.keys()) if (h >= height) hashes.delete(h);
    if (cursor !== null && cursor >= height) cursor = height - 1;
    onRollBack(height, touched);
  };

  const scan = async (tip: number) => {
    if (cursor === null) {
      cursor = tip;
      return;
    }
    while (cursor !== null && cursor < tip) {
      const below: number = cursor;
      const height = below + 1;
      const block = await read.call(inner, asset, height, (a) => byAddress.has(a));
      // Rolled back while the block was read: read again from where the scan now stands.
      if (cursor !== below) continue;
      const parent = hashes.get(below);
      if (parent !== undefined && block.previous !== parent) {
        rollBack(below);
        continue;
      }
      hashes.set(height, block.hash);
      hashes.delete(height - REORG_DEPTH);
      for (const t of block.transfers) byAddress.get(t.to)?.set(`${t.txid}:${t.index}`, t);
      cursor = height;
    }
  };

  return {
    watch(address) {
      if (!byAddress.has(address)) byAddress.set(address, new Map());
    },
    unwatch(address) {
      byAddress.delete(address);
    },
    watched: () => byAddress.keys(),
    found: (address) =>
      [...(byAddress.get(address)?.values() ?? [])].sort((a, b) => a.blockHeight! - b.blockHeight!),
    catchUp(tip) {
      running ??= scan(tip).finally(() => {
        running = null;
      });
      return running;
    },
    orphaned(height, hash) {
      if (hashes.get(height) === hash) rollBack(height);
    },
    restart() {
      if (byAddress.size > 0 || running) return;
      cursor = null;
      hashes.clear();
    },
  };
}
