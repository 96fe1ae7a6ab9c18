import type { ChainReader } from "./types";

/**
 * The SimChain object of a network. Network codes are upper case in the catalog; normalising here
 * means "btc" from an operator and "BTC" from an order reach the same chain.
 */
export function simChain(env: Env, network: string) {
  return env.SIM_CHAIN.getByName(network.toUpperCase());
}

/** ChainReader over a network's SimChain object (CHAIN_MODE `simulated`). */
export function createSimulatedReader(env: Env, network: string): ChainReader {
  return {
    tipHeight: () => simChain(env, network).tipHeight(),
    incomingTransfers: (asset, address, tag) =>
      simChain(env, network).incomingTransfers({ address, tag, coin: asset.coin, contract: asset.contract }),
    // Only the plain fields cross the RPC boundary, whatever extra the caller's object carries.
    isInBestChain: (t) =>
      simChain(env, network).isInBestChain({
        txid: t.txid,
        index: t.index,
        blockHeight: t.blockHeight,
        blockHash: t.blockHash,
      }),
  };
}
