import type { AssetRef, ChainReader, IncomingTransfer } from "./types";

export interface MemoListing {
  /**
   * Every incoming transfer to the shared address, with its tag. A listed transfer in a block whose
   * hash the listing does not carry has `blockHeight` set and `blockHash` null.
   */
  list(asset: AssetRef, address: string): Promise<IncomingTransfer[]>;
  /** The hash of the block at `height`, or null while the provider does not have it yet. */
  blockHashAt(height: number): Promise<string | null>;
}

/**
 * A memo network's reader from its address-wide listing: an order sees only the transfers whose
 * tag is exactly its own (a missing or different memo never drives it), and the whole listing
 * stays available as `addressTransfers` for the operator's log of deposits no order can claim.
 * Block hashes the listing lacks are looked up for the order's own transfers only (once per block):
 * a shared address can have hundreds of other deposits in its window.
 */
export function memoReader(
  listing: MemoListing,
  rest: Pick<ChainReader, "tipHeight" | "isInBestChain">,
): ChainReader & Required<Pick<ChainReader, "addressTransfers" | "blockHashAt">> {
  return {
    ...rest,
    addressTransfers: listing.list,
    blockHashAt: listing.blockHashAt,
    async incomingTransfers(asset, address, tag) {
      const hashes = new Map<number, string | null>();
      return tagTransfers(await listing.list(asset, address), tag, async (height) => {
        if (!hashes.has(height)) hashes.set(height, await listing.blockHashAt(height));
        return hashes.get(height) ?? null;
      });
    },
  };
}

/**
 * The transfers of an address-wide memo listing whose tag is exactly `tag`, with the block hashes
 * the listing lacks looked up (`hashAt`, once per block): the order's own listing.
 */
export async function tagTransfers(
  listed: IncomingTransfer[],
  tag: string | null,
  hashAt: (height: number) => Promise<string | null>,
): Promise<IncomingTransfer[]> {
  const out: IncomingTransfer[] = [];
  for (const t of listed.filter((x) => x.tag === tag)) {
    if (t.blockHeight === null || t.blockHash !== null) {
      out.push(t);
      continue;
    }
    const blockHash = await hashAt(t.blockHeight);
    // A provider that lists the transfer but not yet its block: unconfirmed until it has it.
    out.push(blockHash === null ? { ...t, blockHeight: null } : { ...t, blockHash });
  }
  return out;
}
