/**
 * The shared reads' block scan (src/adapters/chain/block-scan.ts through shared-reads.ts) on an
 * Esplora network (BTC), Blockbook ones (DOGE, and BCH with its prefixed CashAddr addresses) and TRON (TronGrid, TRX and USDT): provider
 * requests counted through MSW for 10,000 watched addresses on a clock the test moves, and every
 * deposit compared with what the address's own listing says. The Bitcoin-like chain is one fake,
 * served through each provider's API.
 */
import { HttpResponse, http } from "msw";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createBlockbookReader } from "../../src/adapters/chain/blockbook";
import { createEsploraReader } from "../../src/adapters/chain/esplora";
import { createSharedReader } from "../../src/adapters/chain/shared-reads";
import { createTronGridReader } from "../../src/adapters/chain/trongrid";
import type { AssetRef, ChainReader, IncomingTransfer } from "../../src/adapters/chain/types";
import { fakeTron, TRON_BASE, type TronTx, tronAccount, USDT_CONTRACT } from "../support/fake-tron";
import { createMockNetwork, type MockNetwork } from "../support/msw";

const SETTINGS = { tipMs: 5_000, addressMs: 180_000, listingsPerMinute: 60 };

interface Tx {
  txid: string;
  /** (address, sats) per output, in output order. */
  outputs: Array<[string, number]>;
}
interface Block {
  hash: string;
  previous: string;
  height: number;
  txs: Tx[];
}
/** The fake chain a provider's API is served from. */
interface Chain {
  blocks: Block[];
  mempool: Tx[];
  /** Orphaned blocks, still answered by hash, as Esplora (and Blockbook, while its backend keeps them) does. */
  stale: Block[];
}

const hex = (n: number, tag: string) => `${tag}${n.toString(16)}`.padStart(64, "0");
const address = (i: number, p: Provider) => `${p.prefix}watched${String(i).padStart(8, "0")}`;
const stranger = (i: number, p: Provider) => `${p.prefix}stranger${String(i).padStart(8, "0")}`;
const pays = (tx: Tx, a: string) => tx.outputs.some(([to]) => to === a);
/** The address each fake transaction's one input spends from: a deposit's source, in a block as listed. */
const sender = (p: Pick<Provider, "prefix">) => `${p.prefix}sender`;

/** A provider: its reader over a fetch, its API over a chain, and which of its requests read blocks. */
interface Provider {
  name: string;
  asset: AssetRef;
  /** How the network's addresses start, as its provider answers them. */
  prefix: string;
  reader(fetchFn: typeof globalThis.fetch): ChainReader;
  serve(chain: Chain): MockNetwork;
  /** Whether a request reads a block (not the tip, not an address listing). */
  readsBlock(url: string): boolean;
  /** Requests `blockTransfers` makes for a block of `txs` transactions. */
  blockRequests(txs: number): number;
}

const ESPLORA = "https://esplora.scan.test/api";
const ESPLORA_PAGE = 25;
const esplora: Provider = {
  name: "Esplora",
  asset: { coin: "BTC", network: "BTC", contract: null, decimals: 8 },
  prefix: "bc1q",
  reader: (fetch) => createEsploraReader({ baseUrl: ESPLORA, fetch }),
  readsBlock: (url) => /\/block(-height)?\//.test(url) && !url.endsWith("/status"),
  blockRequests: (txs) => Math.ceil(txs / ESPLORA_PAGE) + 2,
  serve(chain) {
    const tip = () => chain.blocks.at(-1)!;
    const byHash = (h: string) => [...chain.blocks, ...chain.stale].find((b) => b.hash === h);
    const json = (tx: Tx) => ({
      txid: tx.txid,
      vin: [{ prevout: { scriptpubkey_address: sender(esplora), value: 1 } }],
      vout: tx.outputs.map(([a, value]) => ({ scriptpubkey_address: a, value })),
    });
    const status = (b: Block) => ({ confirmed: true, block_height: b.height, block_hash: b.hash });
    return createMockNetwork(
      http.get(`${ESPLORA}/blocks/tip/height`, () => HttpResponse.text(String(tip().height))),
      http.get(`${ESPLORA}/block-height/:h`, ({ params }) => {
        const b = chain.blocks.find((x) => x.height === Number(params.h));
        return b ? HttpResponse.text(b.hash) : HttpResponse.text("Block not found", { status: 404 });
      }),
      http.get(`${ESPLORA}/block/:hash`, ({ params }) => {
        const b = byHash(String(params.hash))!;
        return HttpResponse.json({
          id: b.hash,
          height: b.height,
          previousblockhash: b.previous,
          tx_count: b.txs.length,
        });
      }),
      http.get(`${ESPLORA}/block/:hash/txs/:start`, ({ params }) => {
        const start = Number(params.start);
        if (start % ESPLORA_PAGE !== 0) return HttpResponse.text("bad start", { status: 400 });
        return HttpResponse.json(
          byHash(String(params.hash))!
            .txs.slice(start, start + ESPLORA_PAGE)
            .map(json),
        );
      }),
      http.get(`${ESPLORA}/block/:hash/status`, ({ params }) =>
        HttpResponse.json({ in_best_chain: chain.blocks.some((b) => b.hash === params.hash) }),
      ),
      http.get(`${ESPLORA}/address/:a/txs`, ({ params }) => {
        const a = String(params.a);
        const mempool = chain.mempool
          .filter((tx) => pays(tx, a))
          .map((tx) => ({ ...json(tx), status: { confirmed: false } }));
        const mined = [...chain.blocks].reverse().flatMap((b) =>
          [...b.txs]
            .reverse()
            .filter((tx) => pays(tx, a))
            .map((tx) => ({ ...json(tx), status: status(b) })),
        );
        return HttpResponse.json([...mempool.slice(0, 50), ...mined.slice(0, ESPLORA_PAGE)]);
      }),
    );
  },
};

/** Blockbook's block page size (`txsInAPI`, server/public.go), not settable by the client. */
const BLOCKBOOK_PAGE = 1000;
/** A Blockbook server of `network`, whose addresses start with `prefix`. */
const blockbookOf = (network: string, prefix: string): Provider => {
  const BLOCKBOOK = `https://${network.toLowerCase()}.blockbook.scan.test`;
  return {
    name: `Blockbook (${network})`,
    asset: { coin: network, network, contract: null, decimals: 8 },
    prefix,
    reader: (fetch) => createBlockbookReader({ baseUrl: BLOCKBOOK, fetch }),
    readsBlock: (url) => url.includes("/api/v2/block/"),
    blockRequests: (txs) => Math.ceil(txs / BLOCKBOOK_PAGE),
    serve(chain) {
      const tip = () => chain.blocks.at(-1)!;
      // Blockbook's `Tx`: values in satoshis as strings, `n` per output; mined ones carry their block.
      const json = (tx: Tx, b: Block | null) => ({
        txid: tx.txid,
        vin: [{ n: 0, addresses: [sender({ prefix })], isAddress: true }],
        vout: tx.outputs.map(([a, value], n) => ({
          value: String(value),
          n,
          addresses: [a],
          isAddress: true,
        })),
        ...(b
          ? { blockHash: b.hash, blockHeight: b.height, confirmations: tip().height - b.height + 1 }
          : { blockHeight: -1, confirmations: 0 }),
      });
      return createMockNetwork(
        http.get(`${BLOCKBOOK}/api`, () => HttpResponse.json({ blockbook: { bestHeight: tip().height } })),
        http.get(`${BLOCKBOOK}/api/v2/block-index/:h`, ({ params }) => {
          const b = chain.blocks.find((x) => x.height === Number(params.h));
          return b
            ? HttpResponse.json({ blockHash: b.hash })
            : HttpResponse.json({ error: "Block not found" }, { status: 400 });
        }),
        // A height reads the best chain; a hash, any block still known. An out-of-range page answers the last.
        http.get(`${BLOCKBOOK}/api/v2/block/:id`, ({ params, request }) => {
          const id = String(params.id);
          const b = /^[0-9]+$/.test(id)
            ? chain.blocks.find((x) => x.height === Number(id))
            : [...chain.blocks, ...chain.stale].find((x) => x.hash === id);
          if (!b) return HttpResponse.json({ error: "Block not found" }, { status: 400 });
          const totalPages = Math.ceil(b.txs.length / BLOCKBOOK_PAGE);
          const page = Math.min(Number(new URL(request.url).searchParams.get("page") ?? 1), totalPages);
          return HttpResponse.json({
            page,
            totalPages,
            itemsOnPage: BLOCKBOOK_PAGE,
            hash: b.hash,
            previousBlockHash: b.previous,
            height: b.height,
            txCount: b.txs.length,
            txs: b.txs.slice((page - 1) * BLOCKBOOK_PAGE, page * BLOCKBOOK_PAGE).map((tx) => json(tx, b)),
          });
        }),
        http.get(`${BLOCKBOOK}/api/v2/address/:a`, ({ params, request }) => {
          const a = String(params.a);
          const query = new URL(request.url).searchParams;
          const size = Number(query.get("pageSize"));
          const all = [
            ...chain.mempool.filter((tx) => pays(tx, a)).map((tx) => json(tx, null)),
            ...[...chain.blocks].reverse().flatMap((b) =>
              [...b.txs]
                .reverse()
                .filter((tx) => pays(tx, a))
                .map((tx) => json(tx, b)),
            ),
          ];
          const page = Number(query.get("page"));
          const transactions = all.slice((page - 1) * size, page * size);
          return HttpResponse.json({
            page,
            totalPages: Math.ceil(all.length / size),
            itemsOnPage: size,
            address: a,
            txs: all.length,
            ...(transactions.length > 0 ? { transactions } : {}),
          });
        }),
      );
    },
  };
};
const blockbook = blockbookOf("DOGE", "bc1q");
// Blockbook answers BCH addresses as prefixed CashAddr (bchain/coins/bch/bcashparser.go).
const blockbookBch = blockbookOf("BCH", "bitcoincash:q");

/** A fake chain from block `start`, served through `provider`'s API. */
function fakeChain(provider: Provider, start: number) {
  let serial = 0;
  const chain: Chain = {
    blocks: [{ hash: hex(start, "b0"), previous: hex(start - 1, "b0"), height: start, txs: [] }],
    mempool: [],
    stale: [],
  };
  const tip = () => chain.blocks.at(-1)!;
  const net = provider.serve(chain);

  /** A tx of `outputs` (address, sats); unique txid. */
  const tx = (...outputs: Array<[string, number]>): Tx => ({ txid: hex(++serial, "7e"), outputs });
  /** Mines the mempool's txs and `filler` strangers' txs, with `placed` at the given positions. */
  const mine = (filler: number, placed: Array<[number, Tx]> = []) => {
    const txs: Tx[] = [tx([stranger(serial, provider), 625_000_000])]; // coinbase
    for (let i = 0; i < filler; i++)
      txs.push(tx([stranger(serial, provider), 10_000 + i], [stranger(serial + 1, provider), 1]));
    txs.push(...chain.mempool);
    chain.mempool = [];
    for (const [at, t] of placed) txs.splice(at < 0 ? txs.length + 1 + at : at, 0, t);
    const block = {
      hash: hex(tip().height + 1, `b${chain.stale.length}`),
      previous: tip().hash,
      height: tip().height + 1,
      txs,
    };
    chain.blocks.push(block);
    return block;
  };
  /** Replaces the tip block by another at the same height (its txs back to the mempool), then mines on. */
  const reorgTip = () => {
    const old = chain.blocks.pop()!;
    chain.stale.push(old);
    chain.mempool.push(...old.txs.slice(1));
  };
  return { chain, net, tx, mine, reorgTip };
}

// Each request's AbortSignal.timeout stays pending for its full 10 s, and workerd allows a test 10,000
// pending timers: thousands of requests in a few real seconds need signals without timers here.
beforeEach(() => {
  vi.spyOn(AbortSignal, "timeout").mockImplementation(() => new AbortController().signal);
});
afterEach(() => {
  vi.restoreAllMocks();
});

function clock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

/** The fake chain from `start` on `provider`, a clock, and the shared reads with the block scan over it. */
function scanning(provider: Provider, start: number) {
  const fake = fakeChain(provider, start);
  const c = clock();
  const shared = createSharedReader(provider.reader(fake.net.fetch), SETTINGS, c.now);
  return { fake, c, shared, asset: provider.asset };
}

const sortKey = (t: IncomingTransfer) => `${t.txid}:${t.index}`;
const sorted = (list: IncomingTransfer[]) => [...list].sort((a, b) => sortKey(a).localeCompare(sortKey(b)));

/**
 * The strangers' transactions in the block mined at each minute, if one is: BTC three blocks in
 * 30 minutes (the deposits' two on several 25-transaction pages); DOGE a block a minute, the
 * first deposits' over two 1,000-transaction pages; BCH a block every ten minutes, as DOGE's
 * first over two pages.
 */
const BLOCKS: Array<[Provider, (minute: number) => number | null]> = [
  [esplora, (m) => ({ 10: 310, 20: 420, 30: 275 })[m] ?? null],
  [blockbook, (m) => (m === 10 ? 1_100 : m === 20 ? 420 : 40)],
  [blockbookBch, (m) => (m === 10 ? 1_100 : m % 10 === 0 ? 420 : null)],
];

describe.each(BLOCKS)("block scan: 10,000 watched addresses", (provider, fillers) => {
  it(`${provider.name}: over 30 simulated minutes the provider sees a few requests a second and every deposit is found, as its own listing says`, async () => {
    const { fake, c, shared, asset } = scanning(provider, 870_000);
    // The truth: each address's own listing, unshared, on the same chain.
    const direct = provider.reader(fake.net.fetch);
    const N = 10_000;
    const addresses = Array.from({ length: N }, (_, i) => address(i, provider));
    const mempool = () => new Set(fake.chain.mempool.map((t) => t.txid));
    // The orders ask 500 at a time, as they would not all ask at the same instant.
    const poll = async () => {
      const lists: IncomingTransfer[][] = [];
      for (let i = 0; i < addresses.length; i += 500)
        lists.push(
          ...(await Promise.all(
            addresses.slice(i, i + 500).map((a) => shared.incomingTransfers(asset, a, null)),
          )),
        );
      return lists;
    };

    // The first poll lists each new address once: a fixed cost per order, not counted below.
    await poll();
    expect(fake.net.requests.filter((r) => r.url.includes("/address/"))).toHaveLength(N);
    const fixed = fake.net.requests.length;

    // Deposits: in the block of minute 10 at the first and the very last position (the last,
    // short page), two outputs of one tx to two orders; in minute 20's on a middle page with its
    // output at index 2, and one to an order created at minute 15 and paid in the mempool at 16.
    const d = {
      first: fake.tx([address(17, provider), 1_500_000]),
      last: fake.tx([stranger(1, provider), 5], [address(9_999, provider), 250_000_000]),
      two: fake.tx([address(3_000, provider), 100_000], [address(3_001, provider), 200_000]),
      middle: fake.tx(
        [stranger(2, provider), 1],
        [stranger(3, provider), 2],
        [address(5_555, provider), 12_345_678],
      ),
      early: fake.tx([address(N, provider), 777]),
    };
    const placed = new Map<number, Array<[number, Tx]>>([
      [
        10,
        [
          [1, d.first],
          [150, d.two],
          [-1, d.last],
        ],
      ],
      [20, [[200, d.middle]]],
    ]);
    const mined = new Map<string, number>();
    const blocks: Block[] = [];
    let seenEarly: number | null = null;
    const minutes = 30;
    for (let m = 1; m <= minutes; m++) {
      c.advance(60_000);
      const filler = fillers(m);
      if (filler !== null) {
        const block = fake.mine(filler, placed.get(m));
        blocks.push(block);
        for (const t of block.txs) mined.set(t.txid, block.height);
      }
      if (m === 15) addresses.push(address(N, provider));
      if (m === 16) fake.chain.mempool.push(d.early);
      const inMempool = mempool();
      const lists = await poll();
      // A mined deposit is seen, confirmed, at the first poll after its block (the scan, not a
      // listing, found it); an unconfirmed one only while it is in the mempool.
      for (const [i, list] of lists.entries())
        for (const t of list) {
          if (t.blockHeight === null) expect(inMempool.has(t.txid), `${addresses[i]} ${t.txid}`).toBe(true);
          else expect(t.blockHeight, `${addresses[i]} ${t.txid}`).toBe(mined.get(t.txid));
        }
      if (lists[N]?.length) seenEarly ??= m;
      if (m === 10) {
        expect(lists[17]).toEqual([
          {
            txid: d.first.txid,
            index: 0,
            to: address(17, provider),
            tag: null,
            amount: "0.015",
            blockHeight: mined.get(d.first.txid),
            blockHash: blocks.at(-1)!.hash,
            sources: [sender(provider)],
          },
        ]);
        expect(lists[9_999]).toMatchObject([
          { txid: d.last.txid, index: 1, amount: "2.5", blockHeight: mined.get(d.last.txid) },
        ]);
        expect(lists[3_001]).toMatchObject([{ txid: d.two.txid, index: 1, amount: "0.002" }]);
      }
      if (m === 20)
        expect(lists[5_555]).toMatchObject([
          { txid: d.middle.txid, index: 2, amount: "0.12345678", blockHeight: mined.get(d.middle.txid) },
        ]);
    }

    // The newest order's deposit was seen within addressMs: in the mempool by a budgeted
    // re-listing (BTC, its block 4 minutes later), or mined (DOGE, a block the next minute).
    expect(seenEarly).not.toBeNull();
    expect(seenEarly!).toBeLessThanOrEqual(16 + SETTINGS.addressMs / 60_000);

    // Every address is served exactly what its own listing says (txid, index, amount, block).
    const lists = await poll();
    const paid = [17, 9_999, 3_000, 3_001, 5_555, N];
    for (const i of paid)
      expect(sorted(lists[i]!), address(i, provider)).toEqual(
        sorted(await direct.incomingTransfers(asset, address(i, provider), null)),
      );
    expect(paid.every((i) => lists[i]!.length === 1)).toBe(true);
    expect(lists.filter((l) => l.length > 0)).toHaveLength(paid.length);

    const steady = fake.net.requests.slice(fixed);
    const seconds = minutes * 60;
    const perSecond = steady.length / seconds;
    const perOrderMinute = steady.length / addresses.length / minutes;
    // Blocks of ≈ 300–1,100 txs, the tip, and the listing budget.
    expect(perSecond).toBeLessThanOrEqual(2);
    expect(perOrderMinute).toBeLessThanOrEqual(0.5);
    const relistings = steady.filter((r) => r.url.includes("/address/")).length;
    expect(relistings).toBeLessThanOrEqual(
      SETTINGS.listingsPerMinute * minutes + SETTINGS.listingsPerMinute / 12,
    );
    // Each block read once, whole, in the requests its API needs; nothing else but the tip.
    const blockReads = steady.filter((r) => provider.readsBlock(r.url)).length;
    expect(blockReads).toBe(blocks.reduce((sum, b) => sum + provider.blockRequests(b.txs.length), 0));
    const tipReads = steady.length - relistings - blockReads;
    expect(tipReads).toBeLessThanOrEqual((minutes * 60_000) / SETTINGS.tipMs);
    console.log(
      `block scan (${provider.name}), ${N} addresses, ${minutes} min, ${blocks.length} blocks: ${steady.length} provider requests after the first listings ` +
        `(${perSecond.toFixed(3)}/s, ${perOrderMinute.toFixed(5)} per open order per minute; ${relistings} re-listings, ${blockReads} block reads, ${tipReads} tips)`,
    );
  }, 180_000); // 10,000 addresses × 31 polls: ≈ 15 s alone, more on a loaded machine
});

describe.each([esplora, blockbook, blockbookBch])("block scan: reorgs", (provider) => {
  it(`${provider.name}: a scanned block replaced by another drops its transfers and finds them again in the new one`, async () => {
    const { fake, c, shared, asset } = scanning(provider, 800_000);
    const a = address(1, provider);
    await shared.incomingTransfers(asset, a, null);
    const deposit = fake.tx([a, 40_000]);
    const first = fake.mine(30, [[5, deposit]]);
    c.advance(6_000);
    expect(await shared.incomingTransfers(asset, a, null)).toMatchObject([
      { txid: deposit.txid, blockHash: first.hash },
    ]);

    // The order's reorg check: the block is gone; the scan forgets it at once and the address is listed again.
    fake.reorgTip();
    c.advance(6_000);
    const [listed] = await shared.incomingTransfers(asset, a, null);
    expect(await shared.isInBestChain(listed!)).toBe(false);
    expect(await shared.incomingTransfers(asset, a, null)).toMatchObject([
      { txid: deposit.txid, blockHeight: null },
    ]);

    // Mined again in the replacement block (whose parent is the block below, as scanned).
    const second = fake.mine(40);
    c.advance(6_000);
    expect(await shared.incomingTransfers(asset, a, null)).toMatchObject([
      { txid: deposit.txid, blockHeight: 800_001, blockHash: second.hash },
    ]);
    expect(second.hash).not.toBe(first.hash);
  });

  it(`${provider.name}: a reorg seen only through the next block's parent steps back and reads the replaced block again`, async () => {
    const { fake, c, shared, asset } = scanning(provider, 800_000);
    const a = address(2, provider);
    const b = address(3, provider);
    await Promise.all([shared.incomingTransfers(asset, a, null), shared.incomingTransfers(asset, b, null)]);
    const toA = fake.tx([a, 1_000]);
    fake.mine(10, [[3, toA]]);
    c.advance(6_000);
    expect(await shared.incomingTransfers(asset, a, null)).toMatchObject([
      { txid: toA.txid, blockHeight: 800_001 },
    ]);
    // Block 800,001 is replaced by one paying b instead (a's tx dropped), and 800,002 is mined on it.
    fake.reorgTip();
    fake.chain.mempool = [];
    const toB = fake.tx([b, 2_000]);
    const replaced = fake.mine(12, [[2, toB]]);
    fake.mine(5);
    c.advance(6_000);
    expect(await shared.incomingTransfers(asset, a, null)).toEqual([]);
    expect(await shared.incomingTransfers(asset, b, null)).toMatchObject([
      { txid: toB.txid, blockHeight: 800_001, blockHash: replaced.hash },
    ]);
  });
});

describe.each([esplora, blockbook, blockbookBch])("block scan: an idle network", (provider) => {
  it(`${provider.name}: once no address has been asked for in addressMs, the scan starts again at the tip: no backlog of blocks nobody waits for`, async () => {
    const { fake, c, shared, asset } = scanning(provider, 800_000);
    await shared.incomingTransfers(asset, address(1, provider), null);
    for (let i = 0; i < 20; i++) fake.mine(30);
    c.advance(SETTINGS.addressMs);
    fake.net.requests.length = 0;
    const deposit = fake.tx([address(2, provider), 5_000]);
    fake.mine(30, [[1, deposit]]);
    // A new order: its own listing covers the past; no block is read until the tip moves.
    expect(await shared.incomingTransfers(asset, address(2, provider), null)).toMatchObject([
      { txid: deposit.txid, blockHeight: 800_021 },
    ]);
    const kind = (url: string) =>
      provider.readsBlock(url) ? "block" : url.includes("/address/") ? "address" : "tip";
    expect(fake.net.requests.map((r) => kind(r.url))).toEqual(["tip", "address"]);
  });
});

describe("block scan (TronGrid): TRX and USDT orders on one network", () => {
  const TRX: AssetRef = { coin: "TRX", network: "TRX", contract: null, decimals: 6 };
  const USDT: AssetRef = { coin: "USDT", network: "TRX", contract: USDT_CONTRACT, decimals: 6 };
  const FAKE_TOKEN = "TGrg4w84ezCiMnXAzdxDuLrgN4PxKPDwzF";

  function tronScanning(start: number) {
    const fake = fakeTron(start);
    const c = clock();
    const reader = () => createTronGridReader({ baseUrl: TRON_BASE, fetch: fake.net.fetch });
    return { fake, c, shared: createSharedReader(reader(), SETTINGS, c.now), direct: reader() };
  }

  it("over 10 simulated minutes (a block every 3 s) every deposit is found at the first poll after its block, as its own listing says, and the provider sees a few requests a second", async () => {
    const { fake, c, shared, direct } = tronScanning(70_000_000);
    const N = 10_000;
    // Half the orders wait for TRX, half for USDT, each on its own address.
    const orders = Array.from({ length: N }, (_, i) => ({
      asset: i < N / 2 ? TRX : USDT,
      address: tronAccount(i),
    }));
    const poll = async () => {
      const lists: IncomingTransfer[][] = [];
      for (let i = 0; i < orders.length; i += 500)
        lists.push(
          ...(await Promise.all(
            orders.slice(i, i + 500).map((o) => shared.incomingTransfers(o.asset, o.address, null)),
          )),
        );
      return lists;
    };
    await poll();
    expect(fake.net.requests.filter((r) => r.url.includes("/v1/accounts/"))).toHaveLength(N);
    const fixed = fake.net.requests.length;

    const at = (i: number) => orders[i]!.address;
    const d = {
      trx: fake.trx(at(17), 12_500_000),
      trxLast: fake.trx(at(4_999), 1_000_000_000),
      usdt: fake.token([[at(5_000), 100_000_000n]]),
      // Two USDT transfers to one order in one tx (a batch payout), and one to another order.
      batch: fake.token([
        [at(9_999), 30_000_000n],
        [at(7_777), 1_234_567n],
        [at(9_999), 20_000_000n, undefined, tronAccount(9, 0x14)],
      ]),
      // Not deposits: a failed TRX transfer, a reverted USDT transfer, a look-alike token's Transfer.
      trxFailed: fake.trx(at(18), 5_000_000, { ok: false }),
      usdtFailed: fake.token([[at(5_001), 5_000_000n]], { ok: false }),
      lookAlike: fake.token([[at(5_002), 50_000_000n, FAKE_TOKEN]]),
    };
    const plan = new Map<string, Array<[number, TronTx]>>([
      // minute:block-of-the-minute → placed txs (first and last position of the block, middle)
      [
        "3:5",
        [
          [0, d.trx],
          [4, d.usdt],
          [-1, d.trxFailed],
        ],
      ],
      [
        "6:19",
        [
          [2, d.batch],
          [3, d.usdtFailed],
          [5, d.lookAlike],
          [-1, d.trxLast],
        ],
      ],
    ]);
    const mined = new Map<string, number>();
    const minutes = 10;
    let blocks = 0;
    for (let m = 1; m <= minutes; m++) {
      for (let k = 0; k < 20; k++) {
        const block = fake.mine(6, plan.get(`${m}:${k}`) ?? []);
        blocks++;
        for (const t of block.txs) mined.set(t.txID, block.number);
      }
      c.advance(60_000);
      const lists = await poll();
      for (const [i, list] of lists.entries())
        for (const t of list) expect(t.blockHeight, `${at(i)} ${t.txid}`).toBe(mined.get(t.txid));
      if (m === 3) {
        expect(lists[17]).toEqual([
          {
            txid: d.trx.txID,
            index: 0,
            to: at(17),
            tag: null,
            amount: "12.5",
            blockHeight: 70_000_046,
            blockHash: fake.chain.blocks[46]!.id,
            from: d.trx.from,
          },
        ]);
        expect(lists[5_000]).toMatchObject([{ txid: d.usdt.txID, index: 0, amount: "100" }]);
      }
      if (m === 6) {
        expect(lists[9_999]!.map((t) => [t.index, t.amount])).toEqual([
          [0, "20"],
          [1, "30"],
        ]);
        expect(lists[7_777]).toMatchObject([{ txid: d.batch.txID, index: 0, amount: "1.234567" }]);
        expect(lists[4_999]).toMatchObject([{ txid: d.trxLast.txID, amount: "1000" }]);
      }
    }

    // Every order is served exactly what its address's own listing says, and nothing else is paid.
    const lists = await poll();
    const paid = [17, 4_999, 5_000, 7_777, 9_999];
    for (const i of paid) {
      const own = await direct.incomingTransfers(orders[i]!.asset, at(i), null);
      expect(own.length, at(i)).toBeGreaterThan(0);
      expect(sorted(lists[i]!), at(i)).toEqual(sorted(own));
    }
    for (const i of [18, 5_001, 5_002])
      expect(await direct.incomingTransfers(orders[i]!.asset, at(i), null)).toEqual([]);
    expect(lists.flatMap((l, i) => (l.length > 0 ? [i] : []))).toEqual([...paid].sort((x, y) => x - y));

    const steady = fake.net.requests.slice(fixed);
    const seconds = minutes * 60;
    const perSecond = steady.length / seconds;
    const byPath = (p: string) => steady.filter((r) => r.url.endsWith(p)).length;
    expect(perSecond).toBeLessThanOrEqual(3);
    // Each block read once for both assets (getblockbynum), and its tx infos for USDT. (The few
    // more getblockbynum: the paid addresses' listings looking up their deposits' blocks.)
    expect(byPath("/wallet/getblockbynum")).toBeGreaterThanOrEqual(blocks);
    expect(byPath("/wallet/getblockbynum")).toBeLessThanOrEqual(blocks + 10);
    expect(byPath("/wallet/gettransactioninfobyblocknum")).toBe(blocks);
    const relistings = steady.filter((r) => r.url.includes("/v1/accounts/")).length;
    expect(relistings).toBeLessThanOrEqual(
      SETTINGS.listingsPerMinute * minutes + SETTINGS.listingsPerMinute / 12,
    );
    console.log(
      `TRON block scan, ${N} orders, ${minutes} min, ${blocks} blocks: ${steady.length} provider requests after the first listings ` +
        `(${perSecond.toFixed(2)}/s; ${byPath("/wallet/getblockbynum")} getblockbynum, ${byPath("/wallet/gettransactioninfobyblocknum")} ` +
        `gettransactioninfobyblocknum, ${relistings} re-listings)`,
    );
  }, 180_000);

  it("a reorg seen through the next block's parent reads the replaced block again, for TRX and USDT", async () => {
    const { fake, c, shared } = tronScanning(70_000_000);
    const a = tronAccount(1);
    const b = tronAccount(2);
    await Promise.all([shared.incomingTransfers(TRX, a, null), shared.incomingTransfers(USDT, b, null)]);
    const toA = fake.trx(a, 3_000_000);
    fake.mine(4, [[1, toA]]);
    c.advance(6_000);
    expect(await shared.incomingTransfers(TRX, a, null)).toMatchObject([
      { txid: toA.txID, blockHeight: 70_000_001 },
    ]);
    // Block 70,000,001 is replaced by one paying b USDT instead (a's tx dropped), and one is mined on it.
    fake.reorgTip();
    fake.chain.mempool = [];
    const toB = fake.token([[b, 8_000_000n]]);
    const replaced = fake.mine(3, [[2, toB]]);
    fake.mine(2);
    c.advance(6_000);
    expect(await shared.incomingTransfers(TRX, a, null)).toEqual([]);
    expect(await shared.incomingTransfers(USDT, b, null)).toMatchObject([
      { txid: toB.txID, amount: "8", blockHeight: 70_000_001, blockHash: replaced.id },
    ]);
  });
});
