import { deriveDepositAddress } from "../../domain/addresses";
import type { DepositScheme } from "../../domain/deposit";
import { depositPath, memoTagCandidate, memoTagName } from "../../domain/deposit-allocation";
import { DEFAULT_REGION } from "../../domain/liquidity";
import type { OrderDraft } from "../../domain/order";
import { poolShard } from "../address-pool-shard";

export type DepositAllocation =
  | { depositAddress: string; depositAddressTag: string | null }
  | { unavailable: string };

/** Tag clashes in a space of 3.3 × 10^9 are rare; eight in a row means something else is wrong. */
const MEMO_TAG_ATTEMPTS = 8;

/**
 * A new order's deposit address (and tag), from its id: derived addresses need nothing but the
 * xpub; a memo tag is claimed in its own object near the caller; an operator-loaded pool's (SOL)
 * address comes from the region's pool shard, which holds a block of the pool
 * (address-pool-shard.ts). Repeating it for the same order gives the same answer, so a creation
 * retried after an eviction cannot strand an address or a tag.
 */
export async function allocateDeposit(
  env: Env,
  draft: OrderDraft,
  shortId: string,
  scheme: DepositScheme,
): Promise<DepositAllocation> {
  switch (scheme.kind) {
    case "derive":
      return {
        depositAddress: deriveDepositAddress(
          scheme.family,
          scheme.xpub,
          depositPath(shortId),
          scheme.testnet,
        ),
        depositAddressTag: null,
      };
    case "memo":
      for (let attempt = 0; attempt < MEMO_TAG_ATTEMPTS; attempt++) {
        const tag = memoTagCandidate(draft.id, attempt);
        const holder = env.DEPOSIT_TAGS.getByName(memoTagName(draft.networkFrom, scheme.address, tag));
        if (await holder.claim(draft.id)) return { depositAddress: scheme.address, depositAddressTag: tag };
      }
      throw new Error(`no free memo tag for ${draft.networkFrom} after ${MEMO_TAG_ATTEMPTS} attempts`);
    case "pool": {
      const key = { network: scheme.network, region: draft.liquidityRegion ?? DEFAULT_REGION };
      const address = await poolShard(env, key).claim(key, draft.id, draft.createdAt);
      return address
        ? { depositAddress: address, depositAddressTag: null }
        : { unavailable: `no free deposit address for ${scheme.network}` };
    }
    case "none":
      return { unavailable: scheme.reason };
  }
}
