import { DurableObject } from "cloudflare:workers";
import { createSharedReader } from "../adapters/chain/shared-reads";
import type { AssetRef, ChainReader, IncomingTransfer } from "../adapters/chain/types";
import { chainReaderFor } from "../adapters/registry";
import { getConfig } from "../config";

/**
 * One object per network (named by its code): the one place that network's live orders read the
 * chain through when CHAIN_SHARED_READS applies (src/adapters/chain/watched.ts). It holds the
 * network's shared reads (src/adapters/chain/shared-reads.ts) in memory: one tip read per
 * CHAIN_TIP_SECONDS, multi-address listings, each new block scanned once (Esplora, Blockbook,
 * TronGrid), every address's balance read in calls of 100 (Solana), per-address listings on a slow
 * cadence or within CHAIN_LISTINGS_PER_MINUTE. Nothing is stored: after an eviction the first reads
 * simply go to the provider again.
 *
 * Why an object and not a cache: orders are objects spread over many isolates and machines, so an
 * isolate's memory shares little, and the Cache API shares per data centre but cannot gather the
 * addresses of many orders into one multi-address query. One object per network sees every order
 * of that network (docs/performance.md, "Shared chain reads").
 */
export class ChainWatch extends DurableObject<Env> {
  #reads: ChainReader | null = null;

  #reader(network: string): ChainReader {
    if (!this.#reads) {
      const config = getConfig(this.env);
      this.#reads = createSharedReader(chainReaderFor(this.env, config, network), {
        tipMs: config.CHAIN_TIP_SECONDS * 1000,
        addressMs: config.CHAIN_ADDRESS_SECONDS * 1000,
        listingsPerMinute: config.CHAIN_LISTINGS_PER_MINUTE,
      });
    }
    return this.#reads;
  }

  tipHeight(network: string): Promise<number> {
    return this.#reader(network).tipHeight();
  }

  incomingTransfers(
    network: string,
    asset: AssetRef,
    address: string,
    tag: string | null,
  ): Promise<IncomingTransfer[]> {
    return this.#reader(network).incomingTransfers(asset, address, tag);
  }

  /** A passive ask (ChainReader's `watchedTransfers`), or a plain listing where the network has none. */
  watchedTransfers(network: string, asset: AssetRef, address: string): Promise<IncomingTransfer[]> {
    const reads = this.#reader(network);
    return reads.watchedTransfers?.(asset, address) ?? reads.incomingTransfers(asset, address, null);
  }

  isInBestChain(network: string, transfer: IncomingTransfer): Promise<boolean> {
    return this.#reader(network).isInBestChain(transfer);
  }
}
