/**
 * The counting payout gateway (test/support/counting-gateway.ts: it does NOT deduplicate) served
 * over MSW to the real HTTP payout adapter (PAYOUT_MODE=http) inside workerd. Faults are scripted
 * per call or drawn from a seeded PRNG; `pay_later` payments wait for `settle()`.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { HttpResponse, http } from "msw";
import { afterEach, beforeEach, vi } from "vitest";
import { getConfig } from "../../src/config";
import { hmacSha256Hex } from "../../src/domain/credentials";
import { setPrices } from "../helpers";
import { type CountingGateway, createCountingGateway } from "./counting-gateway";
import { createMockNetwork } from "./msw";
import { startClock } from "./orders";

/** Served under a path prefix, as a gateway behind a shared host is: every signature covers it. */
export const GATEWAY_URL = "https://gateway.test/gw";
export const GATEWAY_SECRET = "fake-gateway-secret";

export type { BalancesFault, LookupFault, SendFault } from "./counting-gateway";

export interface FakeGateway extends CountingGateway {
  /** Points the order's object at this gateway (PAYOUT_MODE=http); returns the undo. */
  attach(orderId: string): Promise<() => void>;
  /** Points any object (a liquidity ledger, say) at this gateway; returns the undo. */
  attachObject(stub: DurableObjectStub): Promise<() => void>;
}

export function createFakeGateway(): FakeGateway {
  const core = createCountingGateway({
    secret: GATEWAY_SECRET,
    sign: (secret, text) => hmacSha256Hex(secret, new TextEncoder().encode(text)),
    prefix: new URL(GATEWAY_URL).pathname,
  });
  const answer = async (request: {
    url: string;
    method: string;
    headers: Headers;
    text(): Promise<string>;
  }) => {
    const url = new URL(request.url);
    const a = await core.handle({
      method: request.method,
      path: url.pathname,
      header: (name) => request.headers.get(name),
      body: await request.text(),
    });
    return "drop" in a
      ? HttpResponse.error()
      : new HttpResponse(a.body || null, { status: a.status, headers: a.headers });
  };
  const net = createMockNetwork(http.all(`${GATEWAY_URL}/*`, ({ request }) => answer(request)));
  const gw: FakeGateway = Object.assign(core, {
    attach(orderId: string) {
      return gw.attachObject(env.ORDERS.getByName(orderId));
    },
    async attachObject(stub: DurableObjectStub) {
      const config = await runInDurableObject(stub, (obj) => getConfig((obj as unknown as { env: Env }).env));
      const saved = {
        PAYOUT_MODE: config.PAYOUT_MODE,
        PAYOUT_GATEWAY_URL: config.PAYOUT_GATEWAY_URL,
        PAYOUT_GATEWAY_SECRET: config.PAYOUT_GATEWAY_SECRET,
      };
      Object.assign(config, {
        PAYOUT_MODE: "http",
        PAYOUT_GATEWAY_URL: GATEWAY_URL,
        PAYOUT_GATEWAY_SECRET: GATEWAY_SECRET,
      });
      vi.stubGlobal("fetch", net.fetch);
      return () => {
        Object.assign(config, saved);
        vi.unstubAllGlobals();
      };
    },
  });
  return gw;
}

/**
 * The frame the money-path, order-action and review tests share: real timers, seeded prices and
 * the test clock before each test, a fresh counting gateway for it, and after it the gateway
 * detached from whatever order it was attached to and every mock restored.
 */
export function useFakeGateway(): { readonly gw: FakeGateway; attach(orderId: string): Promise<void> } {
  let gw: FakeGateway | undefined;
  let detach: (() => void) | undefined;
  beforeEach(async () => {
    vi.useRealTimers();
    await setPrices();
    startClock();
    gw = createFakeGateway();
  });
  afterEach(() => {
    detach?.();
    detach = undefined;
    vi.restoreAllMocks();
    vi.useRealTimers();
  });
  return {
    get gw() {
      if (!gw) throw new Error("useFakeGateway: the gateway exists only inside a test");
      return gw;
    },
    async attach(orderId) {
      detach = await this.gw.attach(orderId);
    },
  };
}
