/**
 * One network's chain reads shared by all its open orders (docs/performance.md, "Shared chain
 * reads"). Wrapped around a network's reader inside its ChainWatch object (src/objects/chain-watch.ts),
 * so the provider's load follows the network's blocks, not the number of open orders:
 *
 * - The tip is read at most once per `tipMs`, whoever asks; concurrent askers share one request.
 * - On a reader with a multi-address query (`incomingTransfersMany`: EVM logs and recent blocks),
 *   every address asked for in the last `addressMs` is watched, and one request lists them all,
 *   again whenever the tip moved (at most once per `tipMs`) or `addressMs` passed.
 * - Elsewhere (Esplora, Blockbook, TronGrid, ...: no multi-address call) an address is listed again
 *   only when `addressMs` passed since its last listing, or when that listing held an unconfirmed
 *   transfer and the tip moved (its block height is what the confirmations wait for). A new deposit
 *   to a quiet address is thus seen up to `addressMs` late; confirmations are counted on the
 *   shared tip meanwhile.
 * - `isInBestChain` answers are kept for `tipMs` per block hash: one reorg check per block, not
 *   per order.
 *
 * Memo-tagged listings go per (address, tag) like any other key: a memo network's orders share one
 * address but each has its own tag.
 */
import type { AssetRef, ChainReader, IncomingTransfer } from "./types";

export interface SharedReadSettings {
  /** Oldest tip answer served (and shortest interval between two multi-address listings). */
  tipMs: number;
  /** Longest an address's listing is served without a new read; also how long an address stays watched. */
  addressMs: number;
}

interface Listing {
  transfers: IncomingTransfer[];
  at: number;
  tip: number;
}

/** One asset's multi-address watch: the addresses asked for lately and their last common listing. */
interface Group {
  asked: Map<string, number>;
  scan: { at: number; tip: number; byAddress: Map<string, IncomingTransfer[]> } | null;
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

  const single = async (asset: AssetRef, address: string, tag: string | null) => {
    const key = JSON.stringify([assetKey(asset), address, tag]);
    const height = await tipHeight();
    const last = listings.get(key);
    const pending = last?.transfers.some((t) => t.blockHeight === null) ?? false;
    if (last && now() - last.at < settings.addressMs && !(pending && last.tip !== height))
      return last.transfers;
    return once(listingReads, key, async () => {
      const transfers = await inner.incomingTransfers(asset, address, tag);
      listings.set(key, { transfers, at: now(), tip: height });
      prune(listings, (l) => now() - l.at >= settings.addressMs);
      return transfers;
    });
  };

  const scan = async (
    group: Group,
    asset: AssetRef,
    many: NonNullable<ChainReader["incomingTransfersMany"]>,
  ) => {
    const t = now();
    for (const [a, at] of group.asked) if (t - at >= settings.addressMs) group.asked.delete(a);
    const height = await tipHeight();
    const byAddress = await many.call(inner, asset, [...group.asked.keys()]);
    group.scan = { at: t, tip: height, byAddress };
  };

  const fresh = (group: Group, address: string, height: number): IncomingTransfer[] | null => {
    const s = group.scan;
    if (!s?.byAddress.has(address)) return null;
    const age = now() - s.at;
    if (age >= settings.addressMs || (s.tip !== height && age >= settings.tipMs)) return null;
    return s.byAddress.get(address)!;
  };

  const grouped = async (asset: AssetRef, address: string) => {
    const many = inner.incomingTransfersMany!;
    const key = assetKey(asset);
    let group = groups.get(key);
    if (!group) {
      group = { asked: new Map(), scan: null, running: null };
      groups.set(key, group);
    }
    group.asked.set(address, now());
    for (;;) {
      const listed = fresh(group, address, await tipHeight());
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

  return {
    tipHeight,

    incomingTransfers(asset, address, tag) {
      if (tag === null && inner.incomingTransfersMany) return grouped(asset, address);
      return single(asset, address, tag);
    },

    async isInBestChain(transfer) {
      if (transfer.blockHash === null) return inner.isInBestChain(transfer);
      const key = `${transfer.blockHeight}:${transfer.blockHash}`;
      const last = bestChain.get(key);
      if (last && now() - last.at < settings.tipMs) return last.inBest;
      const inBest = await inner.isInBestChain(transfer);
      bestChain.set(key, { inBest, at: now() });
      prune(bestChain, (e) => now() - e.at >= settings.tipMs);
      return inBest;
    },

    ...(inner.addressTransfers ? { addressTransfers: inner.addressTransfers.bind(inner) } : {}),
  };
}

/** Drops stale entries once the map has grown: memory follows the open orders, not history. */
function prune<V>(map: Map<string, V>, stale: (v: V) => boolean): void {
  if (map.size < 1024) return;
  for (const [k, v] of map) if (stale(v)) map.delete(k);
}
