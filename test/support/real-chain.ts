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
import { afterEach, beforeAll, beforeEach, vi } from "vitest";
import { type Config, getConfig } from "../../src/config";
import { createPartner, setPrices, type TestPartner } from "../helpers";
import type { MockNetwork } from "./msw";
import { startClock } from "./orders";

/** The config the order objects read (cached per env object, so patching it changes theirs). */
export function objectConfig(orderId: string): Promise<Config> {
  return runInDurableObject(env.ORDERS.getByName(orderId), (obj) =>
    getConfig((obj as unknown as { env: Env }).env),
  );
}

/** `extra`: further settings for the objects while the reader is in use (CHAIN_SHARED_READS, …). */
async function useRealReader(
  orderId: string,
  chain: { network: string; mode: string; baseUrl: string },
  net: MockNetwork,
  extra: Partial<Config> = {},
): Promise<() => void> {
  const config = await objectConfig(orderId);
  const saved = { ...config };
  Object.assign(config, {
    CHAIN_MODE: `${chain.network}:${chain.mode},*:simulated`,
    chain: { ...config.chain, urls: { ...config.chain.urls, [chain.network]: chain.baseUrl } },
    ...extra,
  });
  vi.stubGlobal("fetch", net.fetch);
  return () => {
    Object.assign(config, saved);
    vi.unstubAllGlobals();
  };
}

/**
 * The hooks of a lifecycle file over real readers: its partner made once; prices set and the clock
 * started before each test; the reader `useReader` put in place undone after each.
 */
export function realReaderSuite(name: string): {
  readonly partner: TestPartner;
  useReader(...args: Parameters<typeof useRealReader>): Promise<void>;
} {
  let partner: TestPartner | undefined;
  let restore: (() => void) | undefined;
  beforeAll(async () => {
    partner = await createPartner({ name, rate_limit_per_minute: 100_000 });
  });
  beforeEach(async () => {
    vi.useRealTimers();
    await setPrices();
    startClock();
  });
  afterEach(() => {
    restore?.();
    restore = undefined;
    vi.useRealTimers();
  });
  return {
    get partner() {
      if (!partner) throw new Error("the partner is made in beforeAll");
      return partner;
    },
    async useReader(...args) {
      restore = await useRealReader(...args);
    },
  };
}

/** A chain the MSW handlers answer from: a tip and the transfers a test puts on it. */
export interface FakeChain<T> {
  tip: number;
  txs: T[];
}
