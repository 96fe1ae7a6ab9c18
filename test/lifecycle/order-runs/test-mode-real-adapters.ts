/**
 * A deployment with real chain readers, a real venue and a real payout gateway (all answered by
 * MSW): a test order
 * still runs on its own SimChain with simulated exchange and payouts, and not one request reaches
 * the real adapters' endpoints. The same configuration's live adapters do call them (the control).
 */
import { env } from "cloudflare:workers";
import { HttpResponse, http } from "msw";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { orderAdapters } from "../../../src/adapters/registry";
import type { Config } from "../../../src/config";
import { admin, call, createPartner, json, setPrices } from "../../helpers";
import { createMockNetwork } from "../../support/msw";
import { BTC_TO_USDT, type Order, statusPath } from "../../support/orders";
import { objectConfig } from "../../support/real-chain";

describe("test mode with real adapters", () => {
  const net = createMockNetwork(
    http.all("*", () => HttpResponse.json({ error: "should not be called" }, { status: 500 })),
  );
  let restore: (() => void) | undefined;
  let testKey: string;

  beforeAll(async () => {
    await setPrices();
    const p = await createPartner({ name: "test-mode-real", rate_limit_per_minute: 100_000 });
    testKey = (
      await json<{ key: string }>(
        await admin(`/partners/${p.id}/keys`, { method: "POST", json: { mode: "test" } }),
      )
    ).key;
  });

  afterEach(() => {
    restore?.();
    restore = undefined;
  });

  /** Real modes for every adapter the order object builds (the config is cached per env, shared here). */
  async function realModes(orderId: string): Promise<Config> {
    const config = await objectConfig(orderId);
    const saved = { ...config };
    Object.assign(config, {
      CHAIN_MODE: "BTC:esplora,TRX:trongrid",
      chain: { ...config.chain, urls: { BTC: "https://esplora.test", TRX: "https://trongrid.test" } },
      PAYOUT_MODE: "http",
      EXCHANGE_MODE: "binance",
      EXCHANGE_URL: "https://venue.test",
      EXCHANGE_API_KEY: "venue-key",
      EXCHANGE_API_SECRET: "venue-secret",
      PAYOUT_GATEWAY_URL: "https://gateway.test",
      PAYOUT_GATEWAY_SECRET: "gateway-secret",
    });
    net.reset();
    vi.stubGlobal("fetch", net.fetch);
    restore = () => {
      Object.assign(config, saved);
      vi.unstubAllGlobals();
    };
    return config;
  }

  async function helper(orderId: string, name: string, body?: unknown): Promise<Order> {
    const res = await call(`/api/v1/partner/test/orders/${orderId}/${name}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${testKey}`, "content-type": "application/json" },
      body: JSON.stringify(body ?? {}),
    });
    expect(res.status).toBe(200);
    return json<Order>(res);
  }

  it("a test order completes on SimChain with CHAIN_MODE, EXCHANGE_MODE and PAYOUT_MODE real; the mocks see nothing", async () => {
    const res = await call("/api/v1/partner/orders", {
      method: "POST",
      body: JSON.stringify({ ...BTC_TO_USDT, refund_address: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4" }),
      headers: { Authorization: `Bearer ${testKey}`, "content-type": "application/json" },
    });
    expect(res.status).toBe(201);
    const order = await json<Order>(res);
    const config = await realModes(order.id);

    await helper(order.id, "deposit");
    const done = await helper(order.id, "confirm");
    expect(done.status).toBe("completed");
    expect(await statusPath(order.id)).toEqual([
      "waiting_deposit",
      "confirming",
      "exchanging",
      "sending",
      "completed",
    ]);

    // A second test order refunded through the (simulated) payout path, still under real modes.
    const under = await json<Order>(
      await call("/api/v1/partner/orders", {
        method: "POST",
        body: JSON.stringify({
          ...BTC_TO_USDT,
          rate_type: "fixed",
          refund_address: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",
        }),
        headers: { Authorization: `Bearer ${testKey}`, "content-type": "application/json" },
      }),
    );
    await helper(under.id, "deposit", { amount: "0.001", confirmations: 2 });
    expect((await helper(under.id, "confirm", { blocks: 1 })).status).toBe("refunded");

    expect(net.requests).toEqual([]);

    // Control: the same configuration's live adapters do reach the mocked endpoints.
    const unused = async (): Promise<never> => {
      throw new Error("not needed by the control");
    };
    const live = orderAdapters(
      env,
      config,
      { id: order.id, networkFrom: "BTC", livemode: true },
      { get: () => undefined, put: () => undefined, number: () => 1 },
      { withdrawFee: unused, pricing: unused },
    );
    await expect(live.reader.tipHeight()).rejects.toThrow();
    await live.payout
      .lookup({
        idempotencyKey: "control-key",
        orderId: order.id,
        kind: "payout",
        network: "BTC",
        coin: "BTC",
        contract: null,
        to: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
        tag: null,
        amount: "1",
      })
      .catch(() => undefined);
    expect(net.requests.map((r) => new URL(r.url).host).sort()).toEqual(["esplora.test", "gateway.test"]);
  });
});
