import { ledgerName } from "../domain/liquidity";

/**
 * Shards that answered "this coin is not liquidity-limited", remembered in the isolate so that
 * order creation for such a coin (every coin until the operator sets a balance) skips the shard's
 * round trip. Never longer than the shard's own memory of it, and at most ISOLATE_MS: once an
 * operator opts a coin in, other isolates create unreserved orders for at most that long
 * (docs/liquidity.md); the isolate that took the PUT forgets at once.
 */
const ISOLATE_MS = 5_000;
const until = new Map<string, number>();

export function knownUnlimited(shard: string, now: number): boolean {
  return (until.get(shard) ?? 0) > now;
}

export function rememberUnlimited(shard: string, shardUntil: number, now: number): void {
  until.set(shard, Math.min(shardUntil, now + ISOLATE_MS));
}

/** A balance was set for the coin: every region's shard of it. */
export function forgetUnlimited(coin: string, network: string): void {
  const prefix = `${ledgerName(coin, network)}:`;
  for (const shard of until.keys()) if (shard.startsWith(prefix)) until.delete(shard);
}
