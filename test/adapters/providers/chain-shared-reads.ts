/**
 * Shared chain reads (src/adapters/chain/shared-reads.ts): provider requests counted through MSW
 * for many open orders on one network, on a clock the test moves.
 */
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { createEsploraReader } from "../../../src/adapters/chain/esplora";
import { createEvmReader, TRANSFER_TOPIC } from "../../../src/adapters/chain/evm-rpc";
import { createHorizonReader } from "../../../src/adapters/chain/horizon";
import { createSharedReader } from "../../../src/adapters/chain/shared-reads";
import type { AssetRef } from "../../../src/adapters/chain/types";
import horizonLedger from "../../fixtures/chain/horizon-ledger-52000000.json";
import horizonPage1 from "../../fixtures/chain/horizon-payments-p1.json";
import horizonRoot from "../../fixtures/chain/horizon-root.json";
import { createMockNetwork, type MockNetwork } from "../../support/msw";

const SETTINGS = { tipMs: 5_000, addressMs: 180_000 };
const BTC: AssetRef = { coin: "BTC", network: "BTC", contract: null, decimals: 8 };
const ESPLORA = "https://esplora.test/api";
const RPC = "https://evm.test/";
const USDT_CONTRACT = "0xdac17f958d2ee523a2206206994597c13d831ec7";
const USDT: AssetRef = { coin: "USDT", network: "ETH", contract: USDT_CONTRACT, decimals: 6 };
const ETH: AssetRef = { coin: "ETH", network: "ETH", contract: null, decimals: 18 };

function clock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

const btcAddress = (i: number) => `bc1qtestaddress${String(i).padStart(6, "0")}`;
const evmAddress = (i: number) => `0x${i.toString(16).padStart(40, "0")}`;
const hash = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;

/** An Esplora fake: a tip, and per address the txs a test puts there. */
function esplora() {
  const chain = { tip: 870_000, txs: new Map<string, unknown[]>() };
  const net = createMockNetwork(
    http.get(`${ESPLORA}/blocks/tip/height`, () => HttpResponse.text(String(chain.tip))),
    http.get(`${ESPLORA}/address/:a/txs`, ({ params }) =>
      HttpResponse.json(chain.txs.get(String(params.a)) ?? []),
    ),
  );
  return { chain, net };
}

const count = (net: MockNetwork, part: string) => net.requests.filter((r) => r.url.includes(part)).length;
const rpcMethods = (net: MockNetwork) =>
  net.requests.flatMap((r) => {
    const body = JSON.parse(r.body) as { method: string } | { method: string }[];
    return Array.isArray(body) ? [`batch ${body[0]?.method} ×${body.length}`] : [body.method];
  });

describe("shared reads: the tip", () => {
  it("N orders on one network within one tip interval make one tip read", async () => {
    const { net } = esplora();
    const c = clock();
    const shared = createSharedReader(
      createEsploraReader({ baseUrl: ESPLORA, fetch: net.fetch }),
      SETTINGS,
      c.now,
    );
    const tips = await Promise.all(Array.from({ length: 50 }, () => shared.tipHeight()));
    c.advance(4_000);
    tips.push(...(await Promise.all(Array.from({ length: 50 }, () => shared.tipHeight()))));
    expect(new Set(tips)).toEqual(new Set([870_000]));
    expect(count(net, "/blocks/tip/height")).toBe(1);
    c.advance(1_000);
    await shared.tipHeight();
    expect(count(net, "/blocks/tip/height")).toBe(2);
  });
});

describe("shared reads: one address at a time (Esplora)", () => {
  it("an address is listed again only after addressMs, or when the tip moved under an unconfirmed transfer", async () => {
    const { chain, net } = esplora();
    const c = clock();
    const shared = createSharedReader(
      createEsploraReader({ baseUrl: ESPLORA, fetch: net.fetch }),
      SETTINGS,
      c.now,
    );
    const a = btcAddress(1);
    const listings = () => count(net, "/address/");

    expect(await shared.incomingTransfers(BTC, a, null)).toEqual([]);
    expect(listings()).toBe(1);
    // A new block does not re-list a quiet address; 179 s later it is still served from the listing.
    chain.tip += 1;
    c.advance(179_000);
    await shared.incomingTransfers(BTC, a, null);
    expect(listings()).toBe(1);
    // A mempool deposit arrives: seen once addressMs passed.
    const txid = "ab".repeat(32);
    chain.txs.set(a, [
      { txid, vin: [], vout: [{ scriptpubkey_address: a, value: 150_000 }], status: { confirmed: false } },
    ]);
    c.advance(1_000);
    expect(await shared.incomingTransfers(BTC, a, null)).toMatchObject([{ txid, blockHeight: null }]);
    expect(listings()).toBe(2);
    // Unconfirmed and the tip has not moved: served again; the tip moves: listed again (its block).
    c.advance(6_000);
    await shared.incomingTransfers(BTC, a, null);
    expect(listings()).toBe(2);
    chain.tip += 1;
    c.advance(6_000);
    chain.txs.set(a, [
      {
        txid,
        vin: [],
        vout: [{ scriptpubkey_address: a, value: 150_000 }],
        status: { confirmed: true, block_height: chain.tip, block_hash: "cd".repeat(32) },
      },
    ]);
    expect(await shared.incomingTransfers(BTC, a, null)).toMatchObject([{ txid, blockHeight: chain.tip }]);
    expect(listings()).toBe(3);
    // Confirmed: the confirmations come from the shared tip, the listing is not read per block.
    chain.tip += 1;
    c.advance(6_000);
    await shared.incomingTransfers(BTC, a, null);
    expect(listings()).toBe(3);
  });

  it("100 open orders polling every 15 s for 30 min make at most 0.5 provider requests per order per minute", async () => {
    const { chain, net } = esplora();
    const c = clock();
    const shared = createSharedReader(
      createEsploraReader({ baseUrl: ESPLORA, fetch: net.fetch }),
      SETTINGS,
      c.now,
    );
    const orders = Array.from({ length: 100 }, (_, i) => btcAddress(i));
    const minutes = 30;
    for (let s = 0; s < minutes * 60; s += 15) {
      if (s > 0 && s % 600 === 0) chain.tip += 1; // a block every 10 min
      // Each poll reads the listing and the tip, as the tracker does.
      await Promise.all(
        orders.map(async (a) => [await shared.incomingTransfers(BTC, a, null), await shared.tipHeight()]),
      );
      c.advance(15_000);
    }
    const perOrderMinute = net.requests.length / orders.length / minutes;
    expect(perOrderMinute).toBeLessThanOrEqual(0.5);
    // Unshared, each poll was two requests: 8 per order per minute.
    expect(perOrderMinute).toBeGreaterThan(0);
  });
});

describe("shared reads: several addresses in one request (EVM)", () => {
  function evm() {
    const chain = { head: 21_000_000, logs: [] as unknown[] };
    const net = createMockNetwork(
      http.post(RPC, async ({ request }) => {
        const body = (await request.json()) as
          | { id: number; method: string; params: unknown[] }
          | { id: number; method: string; params: unknown[] }[];
        const answer = (req: { id: number; method: string; params: unknown[] }) => {
          switch (req.method) {
            case "eth_blockNumber":
              return { jsonrpc: "2.0", id: req.id, result: `0x${chain.head.toString(16)}` };
            case "eth_getLogs":
              return { jsonrpc: "2.0", id: req.id, result: chain.logs };
            case "eth_getBlockByNumber": {
              const n = Number.parseInt(String(req.params[0]).slice(2), 16);
              const transactions =
                n === chain.head
                  ? [{ hash: hash(77), from: evmAddress(99), to: evmAddress(3), value: "0xde0b6b3a7640000" }]
                  : [];
              return {
                jsonrpc: "2.0",
                id: req.id,
                result: { number: req.params[0], hash: hash(n), transactions },
              };
            }
          }
          return { jsonrpc: "2.0", id: req.id, error: { code: -32601, message: "no" } };
        };
        return HttpResponse.json(Array.isArray(body) ? body.map(answer) : answer(body));
      }),
    );
    return { chain, net };
  }
  const log = (to: string, units: number, logIndex: number) => ({
    address: USDT_CONTRACT,
    topics: [TRANSFER_TOPIC, `0x${"0".repeat(24)}${"11".repeat(20)}`, `0x${"0".repeat(24)}${to.slice(2)}`],
    data: `0x${units.toString(16).padStart(64, "0")}`,
    blockNumber: "0x1406f40",
    blockHash: hash(5),
    transactionHash: hash(100 + logIndex),
    logIndex: `0x${logIndex.toString(16)}`,
  });

  it("20 orders' token addresses are listed by one eth_getLogs with their `to` topics OR-ed, each getting its own transfers", async () => {
    const { chain, net } = evm();
    const c = clock();
    const shared = createSharedReader(createEvmReader({ baseUrl: RPC, fetch: net.fetch }), SETTINGS, c.now);
    const addresses = Array.from({ length: 20 }, (_, i) => evmAddress(i + 1));
    chain.logs = [log(addresses[2]!, 5_000_000, 1), log(addresses[7]!, 1_000_000, 2)];

    const lists = await Promise.all(addresses.map((a) => shared.incomingTransfers(USDT, a, null)));
    expect(lists[2]).toMatchObject([{ amount: "5", to: addresses[2], index: 1 }]);
    expect(lists[7]).toMatchObject([{ amount: "1", to: addresses[7], index: 2 }]);
    expect(lists.filter((l) => l.length === 0)).toHaveLength(18);
    const getLogs = net.requests
      .map((r) => JSON.parse(r.body) as { method: string; params: [{ topics: unknown[] }] })
      .filter((b) => b.method === "eth_getLogs");
    // All twenty asked while the shared tip was read: one listing for them all.
    expect(getLogs).toHaveLength(1);
    expect(getLogs[0]!.params[0].topics[2]).toHaveLength(20);

    // Within the interval: every order is served without a request.
    net.requests.length = 0;
    c.advance(3_000);
    await Promise.all(addresses.map((a) => shared.incomingTransfers(USDT, a, null)));
    expect(rpcMethods(net)).toEqual([]);
    // The interval passed: one listing for all twenty, though no block came (a rollup's tip, its
    // finalized block, moves minutes apart while deposits arrive in every block).
    c.advance(3_000);
    await Promise.all(addresses.map((a) => shared.incomingTransfers(USDT, a, null)));
    expect(rpcMethods(net)).toEqual(["eth_blockNumber", "eth_blockNumber", "eth_getLogs"]);
    const topics = (JSON.parse(net.requests.at(-1)!.body) as { params: [{ topics: string[][] }] }).params[0]
      .topics[2]!;
    expect(topics).toHaveLength(20);
  });

  it("1,000 sibling orders' passive asks every minute for 30 min: one eth_getLogs per addressMs, and a transfer is seen", async () => {
    const { chain, net } = evm();
    const c = clock();
    const shared = createSharedReader(createEvmReader({ baseUrl: RPC, fetch: net.fetch }), SETTINGS, c.now);
    const addresses = Array.from({ length: 1_000 }, (_, i) => evmAddress(i + 1));
    let seen: unknown[] = [];
    for (let minute = 0; minute < 30; minute++) {
      if (minute === 10) chain.logs = [log(addresses[42]!, 7_000_000, 3)];
      chain.head += 12;
      const lists = await Promise.all(addresses.map((a) => shared.watchedTransfers!(USDT, a)));
      if (lists[42]!.length > 0 && seen.length === 0) seen = [minute, ...lists[42]!];
      c.advance(60_000);
    }
    const getLogs = rpcMethods(net).filter((m) => m === "eth_getLogs").length;
    // One listing per CHAIN_ADDRESS_SECONDS (3 min) whatever N: 10 in 30 min, ≈ 0.0003 per order per minute.
    expect(getLogs).toBeLessThanOrEqual(11);
    expect(getLogs / 1_000 / 30).toBeLessThan(0.5);
    // Sent at minute 10: seen by the first listing after it, within addressMs.
    expect(seen).toMatchObject([expect.any(Number), { amount: "7", to: addresses[42] }]);
    expect(seen[0]).toBeLessThanOrEqual(13);
    // Beside the network's own orders the passive askers make no listing of their own.
    net.requests.length = 0;
    await shared.incomingTransfers(USDT, addresses[0]!, null);
    await Promise.all(addresses.map((a) => shared.watchedTransfers!(USDT, a)));
    expect(rpcMethods(net).filter((m) => m === "eth_getLogs")).toHaveLength(1);
  });

  it("the native coin's recent blocks are read once for all watched addresses", async () => {
    const { net } = evm();
    const c = clock();
    const shared = createSharedReader(
      createEvmReader({ baseUrl: RPC, fetch: net.fetch, nativeScanBlocks: 5 }),
      SETTINGS,
      c.now,
    );
    const addresses = Array.from({ length: 10 }, (_, i) => evmAddress(i + 1));
    await shared.incomingTransfers(ETH, addresses[0]!, null);
    net.requests.length = 0;
    c.advance(6_000);
    const lists = await Promise.all(addresses.map((a) => shared.incomingTransfers(ETH, a, null)));
    expect(lists[2]).toMatchObject([{ txid: hash(77), amount: "1", to: addresses[2] }]);
    expect(rpcMethods(net).filter((m) => m.startsWith("batch"))).toEqual(["batch eth_getBlockByNumber ×5"]);
  });
});

describe("shared reads: a memo network's orders share one address (Horizon)", () => {
  const HORIZON = "https://horizon.test";
  const MEMO_ADDRESS = "GB3JDWCQJCWMJ3IILWIGDTQJJC5567PGVEVXSCVPEQOTDN64VJBDQBYX";
  const XLM: AssetRef = { coin: "XLM", network: "XLM", contract: null, decimals: 7 };
  const horizon = () =>
    createMockNetwork(
      http.get(`${HORIZON}/`, () => HttpResponse.json(horizonRoot)),
      // One page of five payments, fewer than the limit: XLM to tags 100001, 100002, 999 and none, all in ledger 52000000.
      http.get(`${HORIZON}/accounts/${MEMO_ADDRESS}/payments`, () => HttpResponse.json(horizonPage1)),
      http.get(`${HORIZON}/ledgers/:seq`, ({ params }) =>
        HttpResponse.json({
          ...horizonLedger,
          sequence: Number(params.seq),
          hash: Number(params.seq).toString(16).padStart(64, "0"),
        }),
      ),
    );

  it("200 orders' tags are served from one address-wide listing, each its own transfers as its own listing says", async () => {
    const net = horizon();
    const c = clock();
    const direct = createHorizonReader({ baseUrl: HORIZON, fetch: net.fetch });
    const shared = createSharedReader(
      createHorizonReader({ baseUrl: HORIZON, fetch: net.fetch }),
      SETTINGS,
      c.now,
    );
    const tags = Array.from({ length: 200 }, (_, i) => String(100_000 + i));
    const truth = [];
    for (const tag of ["100001", "100002", "100005", "100009"])
      truth.push(await direct.incomingTransfers(XLM, MEMO_ADDRESS, tag));
    net.requests.length = 0;

    const payments = () => count(net, "/payments");
    for (let minute = 0; minute < 10; minute++) {
      const lists = await Promise.all(tags.map((tag) => shared.incomingTransfers(XLM, MEMO_ADDRESS, tag)));
      expect([lists[1], lists[2], lists[5], lists[9]]).toEqual(truth);
      expect(lists.filter((l) => l.length > 0)).toHaveLength(2);
      c.advance(60_000);
    }
    // Ten minutes of 200 orders: the address listed every CHAIN_ADDRESS_SECONDS, not once per order.
    expect(payments()).toBe(4);
    // The ledger's hash is looked up once, not per order or per listing.
    expect(count(net, "/ledgers/")).toBe(1);
  });
});
