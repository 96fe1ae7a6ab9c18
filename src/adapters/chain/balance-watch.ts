/**
 * One asset's balance watch for the shared reads (./shared-reads.ts), on a reader that reads many
 * addresses' balances in one request but has neither a multi-address listing nor a block scan
 * (`ChainReader.balancesMany`: Solana's `getMultipleAccounts`, 100 accounts a call). The balances
 * are a change detector: an address's listing (`incomingTransfers`, several requests) is read
 * again only when its balance moved, so the provider's load is the balance reads, the tip and the
 * listings of the addresses that changed, whatever the number of quiet ones.
 *
 * - Every address asked for in the last `addressMs` is watched. Their balances are read together
 *   once per cycle: `tipMs` for each `BALANCES_PER_TIP` addresses, never longer than `addressMs`
 *   (so about one balance call per `tipMs` up to `BALANCES_PER_TIP × addressMs / tipMs` addresses,
 *   ceil(N / 100) per `addressMs` beyond; a new deposit is seen within one cycle).
 * - A new address's balance is read first (with the other new ones, not the whole set), then it
 *   is listed: its first listing.
 * - An address is listed again when its balance differs from the one read before its last listing
 *   started (that listing holds every transfer that balance includes: the reader guarantees it), or
 *   when that listing holds an unconfirmed transfer and the tip moved (confirmations move no
 *   balance; its block height is what the confirmations wait for).
 * - A failed balance read fails the askers' reads and is tried again at the next ask: an unread
 *   balance never passes for an unchanged one.
 * - The limit: a deposit and a withdrawal of the same amount between two looks leave the balance
 *   unchanged and go unseen; only the holder of the deposit address's key can withdraw.
 */
import type { AssetRef, ChainReader, IncomingTransfer } from "./types";

/** Addresses whose balances one `tipMs` of the cycle pays for (one Solana getMultipleAccounts call). */
export const BALANCES_PER_TIP = 100;

export interface BalanceWatch {
  /** `address`'s incoming transfers of the asset: its last listing, or a new one if its balance moved. */
  transfers(address: string): Promise<IncomingTransfer[]>;
}

interface Watched {
  asked: number;
  /** The last balance read (undefined: not read yet; null: no account). */
  balance: string | null | undefined;
  /** The balance read before the last listing started: what that listing is known to include. */
  basis: string | null | undefined;
  listing: { transfers: IncomingTransfer[]; tip: number } | null;
  listingRead: Promise<IncomingTransfer[]> | null;
}

export function createBalanceWatch(
  inner: ChainReader,
  asset: AssetRef,
  settings: { tipMs: number; addressMs: number },
  tipHeight: () => Promise<number>,
  now: () => number,
): BalanceWatch {
  const read = inner.balancesMany!;
  const watches = new Map<string, Watched>();
  let swept = now();
  let sweeping: Promise<void> | null = null;
  let adding: Promise<void> | null = null;

  const readInto = async (addresses: string[]) => {
    const balances = await read.call(inner, asset, addresses);
    for (const address of addresses) {
      const balance = balances.get(address);
      if (balance === undefined) throw new TypeError(`balancesMany answered no balance for ${address}`);
      const w = watches.get(address);
      if (w) w.balance = balance;
    }
  };

  const cycleMs = () =>
    Math.min(settings.addressMs, Math.max(1, Math.ceil(watches.size / BALANCES_PER_TIP)) * settings.tipMs);

  const sweep = async () => {
    const t = now();
    for (const [address, w] of watches) if (t - w.asked >= settings.addressMs) watches.delete(address);
    await readInto([...watches.keys()]);
    swept = t;
  };

  /** `w`'s balance read, and the whole set's no older than a cycle; askers share each read. */
  const balances = async (w: Watched) => {
    while (w.balance === undefined) {
      adding ??= readInto(
        [...watches].flatMap(([address, x]) => (x.balance === undefined ? [address] : [])),
      ).finally(() => {
        adding = null;
      });
      await adding;
    }
    if (now() - swept >= cycleMs()) {
      sweeping ??= sweep().finally(() => {
        sweeping = null;
      });
      await sweeping;
    }
  };

  const list = (w: Watched, address: string, tip: number) => {
    const basis = w.balance;
    return inner
      .incomingTransfers(asset, address, null)
      .then((transfers) => {
        w.listing = { transfers, tip };
        w.basis = basis;
        return transfers;
      })
      .finally(() => {
        w.listingRead = null;
      });
  };

  return {
    async transfers(address) {
      let w = watches.get(address);
      if (!w) {
        w = { asked: now(), balance: undefined, basis: undefined, listing: null, listingRead: null };
        watches.set(address, w);
      }
      w.asked = now();
      await balances(w);
      const tip = await tipHeight();
      const last = w.listing;
      const pending = last?.transfers.some((t) => t.blockHeight === null) ?? false;
      if (last && w.basis === w.balance && !(pending && last.tip !== tip)) return last.transfers;
      w.listingRead ??= list(w, address, tip);
      return w.listingRead;
    },
  };
}
