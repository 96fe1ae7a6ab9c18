import type { AssetRef, ChainReader, IncomingTransfer } from "./types";

type AddressTransfers = (asset: AssetRef, address: string) => Promise<IncomingTransfer[]>;

/**
 * A memo network's reader from its address-wide listing: an order sees only the transfers whose
 * tag is exactly its own (a missing or different memo never drives it), and the whole listing
 * stays available as `addressTransfers` for the operator's log of deposits no order can claim.
 */
export function memoReader(
  addressTransfers: AddressTransfers,
  rest: Pick<ChainReader, "tipHeight" | "isInBestChain">,
): ChainReader & { addressTransfers: AddressTransfers } {
  return {
    ...rest,
    addressTransfers,
    async incomingTransfers(asset, address, tag) {
      return (await addressTransfers(asset, address)).filter((t) => t.tag === tag);
    },
  };
}
