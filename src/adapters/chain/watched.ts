import type { AssetRef, ChainReader } from "./types";

/**
 * ChainReader over a network's ChainWatch object (src/objects/chain-watch.ts): what a live order
 * reads through when CHAIN_SHARED_READS applies to its network, so that all of the network's open
 * orders share one set of provider reads. Network codes are upper case, as the object's name.
 */
export function createWatchedReader(env: Env, network: string): ChainReader {
  const code = network.toUpperCase();
  const watch = () => env.CHAIN_WATCH.getByName(code);
  const plain = (asset: AssetRef): AssetRef => ({
    coin: asset.coin,
    network: asset.network,
    contract: asset.contract,
    decimals: asset.decimals,
  });
  return {
    tipHeight: () => watch().tipHeight(code),
    incomingTransfers: (asset, address, tag) => watch().incomingTransfers(code, plain(asset), address, tag),
    watchedTransfers: (asset, address) => watch().watchedTransfers(code, plain(asset), address),
    // Only the plain fields cross the RPC boundary, whatever extra the caller's object carries.
    isInBestChain: (t) =>
      watch().isInBestChain(code, {
        txid: t.txid,
        index: t.index,
        to: t.to,
        tag: t.tag,
        amount: t.amount,
        blockHeight: t.blockHeight,
        blockHash: t.blockHash,
      }),
  };
}
