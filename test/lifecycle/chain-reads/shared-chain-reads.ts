/**
 * Shared chain reads through the orders themselves (CHAIN_SHARED_READS, src/objects/chain-watch.ts):
 * several live BTC orders over Esplora, each polled once within one tip interval, DOGE orders
 * over Blockbook whose deposits the block scan finds, and SOL orders over Solana JSON-RPC sharing
 * the balance reads, against a provider answered by MSW that counts its requests.
 */
import { env } from "cloudflare:workers";
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import blockbookStatus from "../../fixtures/chain/blockbook-status.json";
import { admin } from "../../helpers";
import { createMockNetwork, type MockNetwork } from "../../support/msw";
import { advance, BTC_TO_USDT, createOrder, type Order, read } from "../../support/orders";
import { realReaderSuite } from "../../support/real-chain";
import { solanaKey, solanaNode } from "../../support/solana-node";

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
          vin: [],
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

describe("shared chain reads on Blockbook (DOGE): the block scan", () => {
  const BB = "https://doge.shared.test";
  const hashAt = (height: number) => height.toString(16).padStart(64, "b");

  it("a deposit mined after the orders' first poll is found by reading its block once, not by listing every address again", async () => {
    const orders: Order[] = [];
    for (let i = 0; i < 3; i++)
      orders.push(
        await createOrder(suite.partner, {
          ...BTC_TO_USDT,
          coin_from: "DOGE",
          network_from: "DOGE",
          amount_from: 1000,
        }),
      );
    const chain = { tip: 5_100_000, block: [] as Array<{ txid: string; vout: unknown[] }> };
    const net = createMockNetwork(
      http.get(`${BB}/api`, () =>
        HttpResponse.json({
          ...blockbookStatus,
          blockbook: { ...blockbookStatus.blockbook, bestHeight: chain.tip },
        }),
      ),
      // Nothing paid the addresses before: each listing is empty.
      http.get(`${BB}/api/v2/address/:a`, ({ params }) =>
        HttpResponse.json({ address: params.a, page: 1, totalPages: 0, itemsOnPage: 100, txs: 0 }),
      ),
      http.get(`${BB}/api/v2/block/:id`, ({ params }) =>
        params.id === String(chain.tip)
          ? HttpResponse.json({
              page: 1,
              totalPages: 1,
              itemsOnPage: 1000,
              hash: hashAt(chain.tip),
              previousBlockHash: hashAt(chain.tip - 1),
              height: chain.tip,
              txCount: chain.block.length,
              txs: chain.block,
            })
          : HttpResponse.json({ error: "Block not found" }, { status: 400 }),
      ),
    );
    await suite.useReader(orders[0]!.id, { network: "DOGE", mode: "blockbook", baseUrl: BB }, net, {
      CHAIN_SHARED_READS: "providers",
    });
    const pollAll = async () => {
      advance(60_000);
      for (const o of orders) await env.ORDERS.getByName(o.id).tick();
      return Promise.all(orders.map((o) => read(suite.partner, o.id)));
    };
    expect((await pollAll()).map((o) => o.status)).toEqual([
      "waiting_deposit",
      "waiting_deposit",
      "waiting_deposit",
    ]);

    // One block: a coinbase, then 1,000 DOGE to the first order and to the third (outputs 1 and 0).
    const pay = (n: number, outputs: Array<[string, string]>) => ({
      txid: n.toString(16).padStart(64, "7"),
      vout: outputs.map(([to, value], i) => ({ value, n: i, addresses: [to], isAddress: true })),
    });
    chain.tip += 1;
    chain.block = [
      pay(1, [["DKu2a8Wo6zC2dmBBYXwUG3fxWDHbKnNiPj", "1000000000000"]]),
      pay(2, [
        ["DKu2a8Wo6zC2dmBBYXwUG3fxWDHbKnNiPj", "5"],
        [orders[0]!.deposit_address, "100000000000"],
      ]),
      pay(3, [[orders[2]!.deposit_address, "100000000000"]]),
    ];
    const after = await pollAll();
    expect(after.map((o) => [o.status, o.deposit_confirmations])).toEqual([
      ["confirming", 1],
      ["waiting_deposit", null],
      ["confirming", 1],
    ]);
    expect(net.unhandled).toEqual([]);
    // The addresses were listed once each, when new; the block was read once, for all of them.
    expect(count(net, /\/api\/v2\/address\//)).toBe(orders.length);
    expect(
      net.requests.filter((r) => r.url.includes("/api/v2/block/")).map((r) => new URL(r.url).pathname),
    ).toEqual([`/api/v2/block/${chain.tip}`]);
  });
});

describe("Solana orders through the shared balance reads (CHAIN_SHARED_READS)", () => {
  it("three SOL orders: one balance read serves them all; only the paid address is listed again, and its order confirms", async () => {
    const RPC = "https://solana.shared.test/";
    const wallets = [0, 1, 2].map((i) => solanaKey(7, 4_000 + i));
    const load = await admin("/address-pool/SOL", { method: "POST", json: { addresses: wallets } });
    expect(load.status).toBeLessThan(300);
    const body = { ...BTC_TO_USDT, coin_from: "SOL", network_from: "SOL", amount_from: 2 };
    const orders: Order[] = [];
    for (let i = 0; i < 3; i++) orders.push(await createOrder(suite.partner, body));
    const node = solanaNode(RPC);
    await suite.useReader(orders[0]!.id, { network: "SOL", mode: "solana", baseUrl: RPC }, node.net, {
      CHAIN_SHARED_READS: "providers",
    });
    const pollAll = async () => {
      advance(60_000);
      for (const o of orders) await env.ORDERS.getByName(o.id).tick();
    };
    const listed = (address?: string) =>
      node
        .calls()
        .filter(([m, a]) => m === "getSignaturesForAddress" && (address === undefined || a === address))
        .length;

    await pollAll();
    for (const o of orders) expect((await read(suite.partner, o.id)).status).toBe("waiting_deposit");
    expect(listed()).toBe(3); // each address's first listing
    const balanceCalls = () => node.calls().filter(([m]) => m === "getMultipleAccounts").length;
    expect(balanceCalls()).toBeLessThanOrEqual(3);

    const paid = orders[1]!.deposit_address;
    const txid = node.paySol(paid, 2_000_000_000);
    node.finalize();
    await pollAll();
    await pollAll();
    expect(await read(suite.partner, orders[1]!.id)).toMatchObject({
      deposit_txid: txid,
      amount_from_received: 2,
    });
    expect((await read(suite.partner, orders[1]!.id)).status).not.toBe("waiting_deposit");
    for (const o of [orders[0]!, orders[2]!]) {
      expect((await read(suite.partner, o.id)).status).toBe("waiting_deposit");
      expect(listed(o.deposit_address)).toBe(1); // quiet: never listed again
    }
    expect(listed(paid)).toBe(2);
    expect(node.net.unhandled).toEqual([]);
  });
});
