/**
 * Lifecycle tests with a real chain reader: the order's object reads `network` through the named
 * CHAIN_MODE reader, and every outbound request is answered by MSW (`net`).
 *
 * The object builds its reader from `getConfig(this.env)`, which is cached per env object, and
 * calls the global fetch; both live in this isolate (objects run beside the tests), so the cached
 * config is patched and fetch stubbed for the test, then restored by the returned function.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { vi } from "vitest";
import { type Config, getConfig } from "../../src/config";
import type { MockNetwork } from "./msw";

export async function useRealReader(
  orderId: string,
  chain: { network: string; mode: string; baseUrl: string },
  net: MockNetwork,
): Promise<() => void> {
  const config = await runInDurableObject(env.ORDERS.getByName(orderId), (obj) =>
    getConfig((obj as unknown as { env: Env }).env),
  );
  const saved: Pick<Config, "CHAIN_MODE" | "chain"> = { CHAIN_MODE: config.CHAIN_MODE, chain: config.chain };
  config.CHAIN_MODE = `${chain.network}:${chain.mode},*:simulated`;
  config.chain = { ...config.chain, urls: { ...config.chain.urls, [chain.network]: chain.baseUrl } };
  vi.stubGlobal("fetch", net.fetch);
  return () => {
    Object.assign(config, saved);
    vi.unstubAllGlobals();
  };
}

/** A chain the MSW handlers answer from: a tip and the transfers a test puts on it. */
export interface FakeChain<T> {
  tip: number;
  txs: T[];
}
