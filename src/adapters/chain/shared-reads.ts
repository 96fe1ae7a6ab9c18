/**
 * One network's chain reads shared by all its open orders (docs/performance.md, "Shared chain
 * reads"). Wrapped around a network's reader inside its ChainWatch object (src/objects/chain-watch.ts),
 * so the provider's load follows the network's blocks, not the number of open orders:
 *
 * - The tip is read at most once per `tipMs`, whoever asks; concurrent askers share one request.
 * - On a reader with a multi-address query (`incomingTransfersMany`: EVM logs and recent blocks),
 *   every address asked for in the last `addressMs` is watched, and one request lists them all,
 *   again at most once per `tipMs`. A passive ask (`watchedTransfers`: sibling networks' orders)
 *   joins the watch without asking for a new listing until the last one is `addressMs` old.
 * - On a reader that reads whole blocks (`blockTransfers`: Esplora, Blockbook, TronGrid) with
 *   `listingsPerMinute` set, each new block is scanned once for every watched address
 *   (./block-scan.ts), and an address is served its last listing merged with what the scan
 *   found since (a block's copy of a transfer
 *   wins over the listing's unconfirmed one). Its listing is read again at once when it is new, when
 *   a reorg touched it, or when it holds an unconfirmed transfer the blocks have not shown and the
 *   tip moved — as below; its periodic re-listing (after `addressMs`, for mempool sightings only:
 *   the blocks find every mined deposit) takes a token of a per-network budget of
 *   `listingsPerMinute`, so the provider's load is the blocks plus that budget, whatever N is.
 * - On a reader that reads many balances at once (`balancesMany`: Solana), the balances of every
 *   address asked for in the last `addressMs` are read together once per cycle, and an address is
 *   listed again only when its balance moved, or when its listing holds an unconfirmed transfer and
 *   the tip moved (./balance-watch.ts).
 * - Elsewhere (no multi-address call, no block scan, no balances) an address is listed again
 *   only when `addressMs` passed since its last listing, or when that listing held an unconfirmed
 *   transfer and the tip moved (its block height is what the confirmations wait for). A new deposit
 *   to a quiet address is thus seen up to `addressMs` late; confirmations are counted on the
 *   shared tip meanwhile.
 * - Memo networks (`addressTransfers` and `blockHashAt`: XRP, XLM, TON): a network's orders share
 *   one address and differ by tag, so the address-wide listing is read once for every tag, on the
 *   same cadence (again when it holds an unconfirmed transfer of the asking tag and the tip moved);
 *   each order gets its tag's transfers, with the block hashes the listing lacks looked up once per
 *   block (final ledgers: their hash never changes).
 * - `isInBestChain` answers are kept for `tipMs` per block hash: one reorg check per block, not
 *   per order. A false one for a scanned block makes the block scan read it again at once.
 */
import { type BalanceWatch, createBalanceWatch } from "./balance-watch";
import { type BlockScan, createBlockScan } from "./block-scan";
import { tagTransfers } from "./memo";
import type { AssetRef, ChainReader, IncomingTransfer } from "./types";

export interface SharedReadSettings {
  /** Oldest tip answer served (and shortest interval between two multi-address listings). */
  tipMs: number;
  /** Longest an address's listing is served without a new read; also how long an address stays watched. */
  addressMs: number;
  /**
   * With a reader that reads whole blocks: new blocks are scanned for all watched addresses, and
   * the periodic re-listings (mempool sightings) of all addresses together are at most this many a
   * minute. Absent: no block scan.
   */
  listingsPerMinute?: number;
}

interface Listing {
  transfers: IncomingTransfer[];
  at: number;
  tip: number;
}

/** One asset's multi-address watch: the addresses asked for lately and their last common listing. */
interface Group {
  asked: Map<string, number>;
  scan: { at: number; byAddress: Map<string, IncomingTransfer[]> } | null;
  running: Promise<void> | null;
}

const assetKey = (a: AssetRef) => JSON.stringify([a.coin, a.network, a.contract, a.decimals]);

export function createSharedReader(
  inner: ChainReader,
  settings: SharedReadSettings,
  now: () => number = Date.now,
): ChainReader {
  let tip: { height: number; at: number } | null = null;
  let tipRead: Promise<number> | null = null;
  const listings = new Map<string, Listing>();
  const listingReads = new Map<string, Promise<IncomingTransfer[]>>();
  const groups = new Map<string, Group>();
  const bestChain = new Map<string, { inBest: boolean; at: number }>();
  const scans = new Map<string, Scanned>();
  const budget = settings.listingsPerMinute;
  const bucket = { tokens: Math.max(1, (budget ?? 0) / 12), at: now() };

  const tipHeight = async (): Promise<number> => {
    if (tip && now() - tip.at < settings.tipMs) return tip.height;
    tipRead ??= inner
      .tipHeight()
      .then((height) => {
        tip = { height, at: now() };
        return height;
      })
      .finally(() => {
        tipRead = null;
      });
    return tipRead;
  };

  /** A key's listing read once for all concurrent askers. */
  const once = <T>(reads: Map<string, Promise<T>>, key: string, read: () => Promise<T>): Promise<T> => {
    let p = reads.get(key);
    if (!p) {
      p = read().finally(() => reads.delete(key));
      reads.set(key, p);
    }
    return p;
  };

  /**
   * A key's listing, read again only after `addressMs`, or when the transfers `mine` picks from it
   * hold an unconfirmed one and the tip moved.
   */
  const cached = async (
    key: string,
    read: () => Promise<IncomingTransfer[]>,
    mine: (t: IncomingTransfer) => boolean = () => true,
  ) => {
    const height = await tipHeight();
    const last = listings.get(key);
    const pending = last?.transfers.some((t) => mine(t) && t.blockHeight === null) ?? false;
    if (last && now() - last.at < settings.addressMs && !(pending && last.tip !== height))
      return last.transfers;
    return once(listingReads, key, async () => {
      const transfers = await read();
      listings.set(key, { transfers, at: now(), tip: height });
      prune(listings, (l) => now() - l.at >= settings.addressMs);
      return transfers;
    });
  };

  const single = (asset: AssetRef, address: string, tag: string | null) =>
    cached(JSON.stringify([assetKey(asset), address, tag]), () =>
      inner.incomingTransfers(asset, address, tag),
    );

  const blockHashes = new Map<number, string>();
  const hashReads = new Map<string, Promise<string | null>>();
  const hashAt = async (height: number): Promise<string | null> =>
    blockHashes.get(height) ??
    once(hashReads, String(height), async () => {
      const hash = await inner.blockHashAt!(height);
      if (hash !== null) blockHashes.set(height, hash);
      if (blockHashes.size > 4096) blockHashes.delete(blockHashes.keys().next().value!);
      return hash;
    });

  const tagged = async (asset: AssetRef, address: string, tag: string) => {
    const listed = await cached(
      JSON.stringify([assetKey(asset), address, "*"]),
      () => inner.addressTransfers!(asset, address),
      (t) => t.tag === tag,
    );
    return tagTransfers(listed, tag, hashAt);
  };

  /** A token of the re-listing budget, if one is left (it refills at `listingsPerMinute`, 5 s' worth at most). */
  const take = (): boolean => {
    const rate = budget! / 60_000;
    const t = now();
    bucket.tokens = Math.min(Math.max(1, budget! / 12), bucket.tokens + (t - bucket.at) * rate);
    bucket.at = t;
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  };

  const scanFor = (asset: AssetRef) => {
    const key = assetKey(asset);
    let s = scans.get(key);
    if (!s) {
      const watches = new Map<string, Watch>();
      // A reorg: the listings it touched (and those of addresses whose found transfers it dropped) are read again.
      const scan = createBlockScan(inner, asset, (height, touched) => {
        for (const [address, w] of watches)
          if (touched.has(address) || w.listing?.transfers.some((t) => (t.blockHeight ?? 0) >= height))
            w.listing = null;
      });
      s = { scan, watches, swept: now() };
      scans.set(key, s);
    }
    return s;
  };

  /**
   * At most once per `tipMs`: addresses nobody asked for in `addressMs` stop being watched (asked
   * again, they start afresh), and the budget's tokens go to the newest addresses whose listing is
   * older than `addressMs` — newest first, as a new order is the one most likely paid now; at more
   * addresses than the budget re-lists per `addressMs`, the older ones wait for their blocks.
   */
  const sweep = (s: Scanned) => {
    if (now() - s.swept < settings.tipMs) return;
    s.swept = now();
    let tokens = true;
    for (const [address, w] of [...s.watches].reverse()) {
      if (now() - w.asked >= settings.addressMs) {
        s.watches.delete(address);
        s.scan.unwatch(address);
      } else if (tokens && !w.due && w.listing && now() - w.listing.at >= settings.addressMs) {
        tokens = take();
        w.due = tokens;
      }
    }
    if (s.watches.size === 0) s.scan.restart();
  };

  const scanned = async (asset: AssetRef, address: string): Promise<IncomingTransfer[]> => {
    const s = scanFor(asset);
    sweep(s);
    let w = s.watches.get(address);
    if (!w) {
      w = { asked: now(), listing: null, due: false };
      s.watches.set(address, w);
    }
    w.asked = now();
    // Watched before the listing is read: every block after it is scanned with the address in the set.
    s.scan.watch(address);
    const height = await tipHeight();
    await s.scan.catchUp(height);
    const merged = (transfers: IncomingTransfer[]) => mergeFound(transfers, s.scan.found(address));
    const last = w.listing;
    if (last) {
      const served = merged(last.transfers);
      const pending = served.some((t) => t.blockHeight === null);
      if (!(pending && last.tip !== height) && !w.due) return served;
    }
    const watch = w;
    const key = JSON.stringify([assetKey(asset), address]);
    const transfers = await once(listingReads, key, async () => {
      const listed = await inner.incomingTransfers(asset, address, null);
      watch.listing = { transfers: listed, at: now(), tip: height };
      watch.due = false;
      return listed;
    });
    return merged(transfers);
  };

  const scan = async (
    group: Group,
    asset: AssetRef,
    many: NonNullable<ChainReader["incomingTransfersMany"]>,
  ) => {
    const t = now();
    for (const [a, at] of group.asked) if (t - at >= settings.addressMs) group.asked.delete(a);
    const byAddress = await many.call(inner, asset, [...group.asked.keys()]);
    group.scan = { at: t, byAddress };
  };

  /**
   * The group's listing for `address` while younger than `tipMs` — whether or not the tip moved: a
   * rollup's tip is its finalized block, which moves in jumps minutes apart while deposits arrive
   * in every block (src/domain/networks.ts, confirmationTag).
   */
  const fresh = (group: Group, address: string): IncomingTransfer[] | null => {
    const s = group.scan;
    if (!s?.byAddress.has(address) || now() - s.at >= settings.tipMs) return null;
    return s.byAddress.get(address)!;
  };

  const groupOf = (asset: AssetRef): Group => {
    const key = assetKey(asset);
    let group = groups.get(key);
    if (!group) {
      group = { asked: new Map(), scan: null, running: null };
      groups.set(key, group);
    }
    return group;
  };

  const grouped = async (asset: AssetRef, address: string) => {
    const many = inner.incomingTransfersMany!;
    const group = groupOf(asset);
    group.asked.set(address, now());
    for (;;) {
      // The shared tip first, as every asker reads it: the askers that arrive together are all
      // watched before a listing starts, and one listing serves them.
      await tipHeight();
      const listed = fresh(group, address);
      if (listed) return listed;
      if (group.running) {
        // Wait for the listing under way; if it did not include this address, the next one will.
        await group.running.catch(() => {});
        const after = group.scan?.byAddress.get(address);
        if (after && group.scan!.at >= (group.asked.get(address) ?? 0)) return after;
        continue;
      }
      const g = group;
      g.running = scan(g, asset, many).finally(() => {
        g.running = null;
      });
      await g.running;
    }
  };

  const balanceWatches = new Map<string, BalanceWatch>();
  const balanceWatched = (asset: AssetRef, address: string) => {
    const key = assetKey(asset);
    let w = balanceWatches.get(key);
    if (!w) {
      w = createBalanceWatch(inner, asset, settings, tipHeight, now);
      balanceWatches.set(key, w);
    }
    return w.transfers(address);
  };

  /**
   * A passive ask (another network's order watching its address here for wrong-network deposits):
   * the address joins the asset's multi-address watch and is served the last listing while it is
   * younger than `addressMs` (nothing, until a listing includes the address); only an older one is
   * read again. Passive askers alone thus cost one listing per asset per `addressMs`, however many.
   */
  const passive = async (asset: AssetRef, address: string) => {
    const group = groupOf(asset);
    group.asked.set(address, now());
    const last = group.scan;
    if (last && now() - last.at < settings.addressMs) return last.byAddress.get(address) ?? [];
    return grouped(asset, address);
  };

  return {
    tipHeight,

    ...(inner.incomingTransfersMany && { watchedTransfers: passive }),

    incomingTransfers(asset, address, tag) {
      if (tag === null && inner.incomingTransfersMany) return grouped(asset, address);
      if (tag === null && inner.blockTransfers && budget !== undefined) return scanned(asset, address);
      if (tag === null && inner.balancesMany) return balanceWatched(asset, address);
      if (tag !== null && inner.addressTransfers && inner.blockHashAt) return tagged(asset, address, tag);
      return single(asset, address, tag);
    },

    async isInBestChain(transfer) {
      if (transfer.blockHash === null) return inner.isInBestChain(transfer);
      const key = `${transfer.blockHeight}:${transfer.blockHash}`;
      const last = bestChain.get(key);
      if (last && now() - last.at < settings.tipMs) return last.inBest;
      const inBest = await inner.isInBestChain(transfer);
      // A scanned block reorged out: the scans read it again at once, not only when a block on top shows it.
      if (!inBest && transfer.blockHeight !== null)
        for (const s of scans.values()) s.scan.orphaned(transfer.blockHeight, transfer.blockHash);
      bestChain.set(key, { inBest, at: now() });
      prune(bestChain, (e) => now() - e.at >= settings.tipMs);
      return inBest;
    },

    ...(inner.addressTransfers ? { addressTransfers: inner.addressTransfers.bind(inner) } : {}),
  };
}

/** One asset's block scan and its watched addresses, oldest first; `swept`: when they were last swept. */
interface Scanned {
  scan: BlockScan;
  watches: Map<string, Watch>;
  swept: number;
}

/** A block-scanned address: when it was last asked for, its last listing (null: to be read), its turn. */
interface Watch {
  asked: number;
  listing: Listing | null;
  /** Took a token of the re-listing budget: listed again at its next ask. */
  due: boolean;
}

/** A listing with the transfers scanned blocks found since: a block's copy wins over the listing's. */
function mergeFound(listed: IncomingTransfer[], found: IncomingTransfer[]): IncomingTransfer[] {
  const byKey = new Map<string, IncomingTransfer>();
  for (const t of [...listed, ...found]) byKey.set(`${t.txid}:${t.index}`, t);
  return [...byKey.values()];
}

/** Drops stale entries once the map has grown: memory follows the open orders, not history. */
function prune<V>(map: Map<string, V>, stale: (v: V) => boolean): void {
  if (map.size < 1024) return;
  for (const [k, v] of map) if (stale(v)) map.delete(k);
}
