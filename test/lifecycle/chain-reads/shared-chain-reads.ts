/**
 * Shared chain reads through the orders themselves (CHAIN_SHARED_READS, src/objects/chain-watch.ts):
 * several live BTC orders over Esplora, each polled once within one tip interval, against a
 * provider answered by MSW that counts its requests.
 */
import { env } from "cloudflare:workers";
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { createMockNetwork, type MockNetwork } from "../../support/msw";
import { advance, BTC_TO_USDT, createOrder, type Order, read } from "../../support/orders";
import { realReaderSuite } from "../../support/real-chain";

const BASE = "https://esplora.shared.test/api";
const BLOCK = "cd".repeat(32);
const ORDERS = 5;

const suite = realReaderSuite("shared-reads");

/** An Esplora fake whose every deposit address got 0.01 BTC in block `tip`. */
function provider(tip: number): MockNetwork {
  return createMockNetwork(
    http.get(`${BASE}/blocks/tip/height`, () => HttpResponse.text(String(tip))),
    http.get(`${BASE}/address/:a/txs`, ({ params }) =>
      HttpResponse.json([
        {
          txid: String(params.a)
            .slice(-8)
            .padStart(64, "e")
            .toLowerCase()
            .replace(/[^0-9a-f]/g, "e"),
          vout: [{ scriptpubkey_address: params.a, value: 1_000_000 }],
          status: { confirmed: true, block_height: tip, block_hash: BLOCK },
        },
      ]),
    ),
  );
}

/** Creates the orders, points BTC at the fake with CHAIN_SHARED_READS = `shared`, polls each once. */
async function pollOnce(shared: "providers" | "off"): Promise<{ net: MockNetwork; orders: Order[] }> {
  const orders: Order[] = [];
  for (let i = 0; i < ORDERS; i++) orders.push(await createOrder(suite.partner, BTC_TO_USDT));
  const net = provider(900_000 + (shared === "off" ? 0 : 10));
  await suite.useReader(orders[0]!.id, { network: "BTC", mode: "esplora", baseUrl: BASE }, net, {
    CHAIN_SHARED_READS: shared,
  });
  // Every order's poll is due; the clock then stands still: one tip interval for all of them.
  advance(60_000);
  for (const o of orders) await env.ORDERS.getByName(o.id).tick();
  for (const o of orders) expect((await read(suite.partner, o.id)).status).toBe("confirming");
  expect(net.unhandled).toEqual([]);
  return { net, orders };
}

const count = (net: MockNetwork, re: RegExp) => net.requests.filter((r) => re.test(r.url)).length;

describe("shared chain reads through the orders (CHAIN_SHARED_READS)", () => {
  it("N orders on one network within one tip interval make one tip read", async () => {
    const { net } = await pollOnce("providers");
    expect(count(net, /\/blocks\/tip\/height$/)).toBe(1);
    // Each new address is listed once (no multi-address call on Esplora).
    expect(count(net, /\/address\/[^/]+\/txs$/)).toBe(ORDERS);
  });

  it("unshared (`off`), each order reads the tip itself", async () => {
    const { net } = await pollOnce("off");
    expect(count(net, /\/blocks\/tip\/height$/)).toBe(ORDERS);
    expect(count(net, /\/address\/[^/]+\/txs$/)).toBe(ORDERS);
  });
});
