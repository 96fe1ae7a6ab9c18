import { delay, HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { createBlockbookReader } from "../../../src/adapters/chain/blockbook";
import type { AssetRef, IncomingTransfer } from "../../../src/adapters/chain/types";
import { validateBchAddress } from "../../../src/domain/addresses/cashaddr";
import { matchKey } from "../../../src/domain/screening";
import bchAddress from "../../fixtures/chain/blockbook-bch-address.json";
import bchBlock from "../../fixtures/chain/blockbook-bch-block.json";
import blockIndex from "../../fixtures/chain/blockbook-block-index.json";
import page1 from "../../fixtures/chain/blockbook-doge-address-p1.json";
import page2 from "../../fixtures/chain/blockbook-doge-address-p2.json";
import dogeBlock from "../../fixtures/chain/blockbook-doge-block.json";
import status from "../../fixtures/chain/blockbook-status.json";
import { createMockNetwork, type MockNetwork } from "../../support/msw";

const BASE = "https://doge.blockbook.test";
const ADDRESS = "DSXDQ6rnwLX47WFRnemctoXPHA9pLMxqXn";
const DOGE: AssetRef = { coin: "DOGE", network: "DOGE", contract: null, decimals: 8 };
const MEMPOOL_TXID = "5c1d2686d70d82bd8e84b5d3dc4bd0e8485e28cdc865336db6a5e40b2098277d";
const MINED_TXID = "9e2bc8fbd40af17a6564831f84aef0cab2046d4bad19e91c09d21bff2c851851";
const OLD_TXID = "461dd46d5d6f56d765f82e60e6bf0727a3a1d1cb8c4144373d805b152a21d308";
const BLOCK = "78d1f3de899a10dd2e580704226ebf9508e95e1706f177fc9c31c47f245d2502";
/** The address the documented transaction's input spends from (`vin[0].addresses`). */
const SPENT_FROM = "DDhUv8JZGmSxKYV95NLnbRTUKni9cDZD3S";

const urls = (net: MockNetwork) => net.requests.map((r) => `${r.method} ${r.url}`);
const reader = (net: MockNetwork, extra: Record<string, unknown> = {}) =>
  createBlockbookReader({ baseUrl: BASE, fetch: net.fetch, ...extra });

const addressPages = http.get(`${BASE}/api/v2/address/${ADDRESS}`, ({ request }) => {
  const page = new URL(request.url).searchParams.get("page");
  return HttpResponse.json(page === "2" ? page2 : page1);
});
const statusHandler = http.get(`${BASE}/api`, () => HttpResponse.json(status));

const mined: IncomingTransfer = {
  txid: MINED_TXID,
  index: 1,
  to: ADDRESS,
  tag: null,
  amount: "2093.29999999",
  blockHeight: 2647927,
  blockHash: BLOCK,
  sources: [SPENT_FROM],
};

describe("blockbook reader", () => {
  it("tip: the height Blockbook has indexed, not the backend's", async () => {
    const net = createMockNetwork(statusHandler);
    expect(await reader(net).tipHeight()).toBe(2647930);
  });

  it("credits each output paying exactly the address, mempool included, across pages, with its inputs' addresses", async () => {
    const net = createMockNetwork(addressPages);
    const transfers = await reader(net).incomingTransfers(DOGE, ADDRESS, null);
    expect(transfers).toEqual<IncomingTransfer[]>([
      {
        txid: MEMPOOL_TXID,
        index: 0,
        to: ADDRESS,
        tag: null,
        amount: "1500",
        blockHeight: null,
        blockHash: null,
        sources: [SPENT_FROM],
      },
      mined,
      {
        txid: OLD_TXID,
        index: 0,
        to: ADDRESS,
        tag: null,
        amount: "500",
        blockHeight: 2647900,
        blockHash: "760f8ed32894ccce9c1ea11c8a019cadaa82bcb434b25c30102dd7e43f326217",
        sources: ["DKu2a8Wo6zC2dmBBYXwUG3fxWDHbKnNiPj"],
      },
    ]);
    expect(urls(net)).toEqual([
      `GET ${BASE}/api/v2/address/${ADDRESS}?details=txs&pageSize=100&page=1`,
      `GET ${BASE}/api/v2/address/${ADDRESS}?details=txs&pageSize=100&page=2`,
    ]);
    expect(net.unhandled).toEqual([]);
  });

  it("input addresses: each once, in input order; a coinbase or a script that is no address is skipped", async () => {
    const other = "DKu2a8Wo6zC2dmBBYXwUG3fxWDHbKnNiPj";
    const paying = (txid: string, vin: unknown[]) => ({
      txid,
      vin,
      vout: [{ value: "100", n: 0, addresses: [ADDRESS], isAddress: true }],
      blockHeight: -1,
      confirmations: 0,
    });
    const net = createMockNetwork(
      http.get(`${BASE}/api/v2/address/${ADDRESS}`, () =>
        HttpResponse.json({
          address: ADDRESS,
          page: 1,
          totalPages: 1,
          transactions: [
            paying("a".repeat(64), [
              { n: 0, addresses: [SPENT_FROM], isAddress: true },
              { n: 1, addresses: ["OP_RETURN 6a"], isAddress: false },
              { n: 2, addresses: [other], isAddress: true },
              { n: 3, addresses: [SPENT_FROM], isAddress: true },
            ]),
            paying("b".repeat(64), [{ n: 0, coinbase: "03a0bb0d", isAddress: false }]),
          ],
        }),
      ),
    );
    const transfers = await reader(net).incomingTransfers(DOGE, ADDRESS, null);
    expect(transfers.map((t) => t.sources)).toEqual([[SPENT_FROM, other], []]);
  });

  it("reads at most maxPages pages, and stops when Blockbook answers another page than asked", async () => {
    const one = createMockNetwork(addressPages);
    expect(await reader(one, { maxPages: 1 }).incomingTransfers(DOGE, ADDRESS, null)).toHaveLength(2);
    expect(one.requests).toHaveLength(1);
    // "If out of range, Blockbook returns the closest possible page".
    const clamped = createMockNetwork(
      http.get(`${BASE}/api/v2/address/${ADDRESS}`, () => HttpResponse.json({ ...page1, totalPages: 3 })),
    );
    expect(await reader(clamped).incomingTransfers(DOGE, ADDRESS, null)).toHaveLength(2);
    expect(clamped.requests).toHaveLength(2);
  });

  it("a tx mined between two page reads keeps its mined copy", async () => {
    const movedDown = { ...page2, transactions: [...page2.transactions, page1.transactions[1]] };
    const early = {
      ...page1,
      transactions: [{ ...page1.transactions[1], blockHash: undefined, blockHeight: -1 }],
    };
    const net = createMockNetwork(
      http.get(`${BASE}/api/v2/address/${ADDRESS}`, ({ request }) =>
        HttpResponse.json(new URL(request.url).searchParams.get("page") === "2" ? movedDown : early),
      ),
    );
    const transfers = await reader(net).incomingTransfers(DOGE, ADDRESS, null);
    expect(transfers.find((t) => t.txid === MINED_TXID)).toEqual(mined);
  });

  it("an address without transactions has none; tokens and tags have none without a request", async () => {
    const net = createMockNetwork(
      http.get(`${BASE}/api/v2/address/${ADDRESS}`, () =>
        HttpResponse.json({ page: 1, totalPages: 0, itemsOnPage: 100, address: ADDRESS, txs: 0 }),
      ),
    );
    expect(await reader(net).incomingTransfers(DOGE, ADDRESS, null)).toEqual([]);
    expect(await reader(net).incomingTransfers({ ...DOGE, contract: "x" }, ADDRESS, null)).toEqual([]);
    expect(await reader(net).incomingTransfers(DOGE, ADDRESS, "100001")).toEqual([]);
    expect(net.requests).toHaveLength(1);
    await expect(reader(net).incomingTransfers(DOGE, "../api", null)).rejects.toThrow(TypeError);
  });

  it("best chain: the indexed hash at the height must be the transfer's; above the tip is out", async () => {
    const net = createMockNetwork(
      statusHandler,
      http.get(`${BASE}/api/v2/block-index/2647927`, () => HttpResponse.json(blockIndex)),
    );
    const r = reader(net);
    expect(await r.isInBestChain(mined)).toBe(true);
    expect(await r.isInBestChain({ ...mined, blockHash: "ab".repeat(32) })).toBe(false);
    expect(await r.isInBestChain({ ...mined, blockHeight: 2647931 })).toBe(false);
    expect(urls(net).filter((u) => u.includes("block-index"))).toHaveLength(2);
    expect(await r.isInBestChain({ ...mined, blockHeight: null, blockHash: null })).toBe(true);
  });

  it("serves BTC too (the same API), with the api-key header when given", async () => {
    const btc = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";
    const net = createMockNetwork(
      http.get(`https://btc.blockbook.test/api/v2/address/${btc}`, () =>
        HttpResponse.json({
          address: btc,
          page: 1,
          totalPages: 1,
          txs: 1,
          transactions: [
            {
              ...page2.transactions[0],
              vout: [{ value: "12345678", n: 3, addresses: [btc], isAddress: true }],
            },
          ],
        }),
      ),
    );
    const r = createBlockbookReader({
      baseUrl: "https://btc.blockbook.test/",
      apiKey: "k1",
      fetch: net.fetch,
    });
    const [t] = await r.incomingTransfers({ ...DOGE, coin: "BTC", network: "BTC" }, btc, null);
    expect(t).toMatchObject({ index: 3, amount: "0.12345678", blockHeight: 2647900 });
    expect(net.requests[0]?.headers.get("api-key")).toBe("k1");
  });

  it("provider errors: HTTP status, timeout, network failure, wrong shapes", async () => {
    const failing = (handler: Parameters<typeof createMockNetwork>[0]) =>
      reader(createMockNetwork(handler), { timeoutMs: 50 });
    await expect(
      failing(http.get(`${BASE}/api`, () => new HttpResponse("busy", { status: 503 }))).tipHeight(),
    ).rejects.toMatchObject({ name: "ChainReaderError", kind: "http_status", status: 503 });
    await expect(
      failing(
        http.get(`${BASE}/api`, async () => {
          await delay(500);
          return HttpResponse.json(status);
        }),
      ).tipHeight(),
    ).rejects.toMatchObject({ kind: "timeout" });
    await expect(
      failing(http.get(`${BASE}/api`, () => HttpResponse.error())).tipHeight(),
    ).rejects.toMatchObject({
      kind: "network",
    });
    await expect(
      failing(
        http.get(`${BASE}/api/v2/address/${ADDRESS}`, () => HttpResponse.json({ error: "Invalid address" })),
      ).incomingTransfers(DOGE, ADDRESS, null),
    ).rejects.toMatchObject({ kind: "rpc_error" });
    for (const body of [
      { address: ADDRESS, transactions: [{ txid: "x", vout: [] }] },
      { ...page1, address: "DUMh1rPrXTrCN2Z9EHsLPg7b78rACHB2h7" },
    ]) {
      await expect(
        failing(
          http.get(`${BASE}/api/v2/address/${ADDRESS}`, () => HttpResponse.json(body)),
        ).incomingTransfers(DOGE, ADDRESS, null),
      ).rejects.toMatchObject({ kind: "invalid_body" });
    }
    const badAmount = {
      ...page1,
      totalPages: 1,
      transactions: [{ ...page2.transactions[0], vout: [{ value: "1.5", n: 0, addresses: [ADDRESS] }] }],
    };
    await expect(
      failing(
        http.get(`${BASE}/api/v2/address/${ADDRESS}`, () => HttpResponse.json(badAmount)),
      ).incomingTransfers(DOGE, ADDRESS, null),
    ).rejects.toMatchObject({ kind: "invalid_body" });
  });
});

describe("blockbook reader: whole blocks (blockTransfers)", () => {
  const HASH = "00000000000000000000a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6";
  const PARENT = "00000000000000000000f6e5d4c3b2a1908f7e6d5c4b3a2918f7e6d5c4b3a2f6";
  const AT = 2_650_000;
  const PAGE = 1000;
  /** Block AT of `count` txs, tx i paying ADDRESS 1000 + i sats at output 1; `edit` alters a page's answer. */
  function blockNet(
    count: number,
    edit: (page: number, body: Record<string, unknown>) => unknown = (_, b) => b,
  ) {
    const txs = Array.from({ length: count }, (_, i) => ({
      txid: i.toString(16).padStart(64, "0"),
      vout: [
        { value: "1", n: 0, addresses: ["DKu2a8Wo6zC2dmBBYXwUG3fxWDHbKnNiPj"], isAddress: true },
        { value: String(1000 + i), n: 1, addresses: [ADDRESS], isAddress: true },
      ],
      blockHash: HASH,
      blockHeight: AT,
    }));
    const totalPages = Math.ceil(count / PAGE);
    return createMockNetwork(
      http.get(`${BASE}/api/v2/block/:id`, ({ params, request }) => {
        const asked = Number(new URL(request.url).searchParams.get("page"));
        const page = Math.min(asked, totalPages); // out of range: the last page
        const body = {
          page,
          totalPages,
          itemsOnPage: PAGE,
          hash: HASH,
          previousBlockHash: PARENT,
          height: AT,
          txCount: count,
          txs: txs.slice((page - 1) * PAGE, page * PAGE),
        };
        if (params.id !== String(AT) && params.id !== HASH)
          return HttpResponse.json({ error: "Block not found" }, { status: 400 });
        const answer = edit(page, body);
        return answer instanceof Response ? answer : HttpResponse.json(answer as Record<string, unknown>);
      }),
    );
  }

  it("reads the documented block: outputs to watched addresses, as incomingTransfers credits them", async () => {
    const net = createMockNetwork(
      http.get(`${BASE}/api/v2/block/2648059`, () => HttpResponse.json(dogeBlock)),
    );
    const watched = new Set(["D6ravJL6Fgxtgp8k2XZZt1QfUmwwGuLwQJ", "DMnjrbcCEoeyvr7GEn8DS4ZXQjwq7E2zQU"]);
    const block = await reader(net).blockTransfers!(DOGE, 2648059, (a) => watched.has(a));
    const at = { blockHeight: 2648059, blockHash: dogeBlock.hash, tag: null };
    expect(block).toEqual({
      hash: dogeBlock.hash,
      previous: dogeBlock.previousBlockHash,
      transfers: [
        // The coinbase: its input has no address.
        {
          txid: dogeBlock.txs[0]!.txid,
          index: 0,
          to: "D6ravJL6Fgxtgp8k2XZZt1QfUmwwGuLwQJ",
          amount: "10001",
          ...at,
          sources: [],
        },
        {
          txid: dogeBlock.txs[1]!.txid,
          index: 0,
          to: "DMnjrbcCEoeyvr7GEn8DS4ZXQjwq7E2zQU",
          amount: "99",
          ...at,
          sources: ["9sLa1AKzjWuNTe1CkLh5GDYyRP9enb1Spp"],
        },
      ],
    });
    // One request for a block of one page: no separate hash lookup.
    expect(urls(net)).toEqual([`GET ${BASE}/api/v2/block/2648059?page=1`]);
  });

  it("reads every page of a block once, the first by height and the others by its hash", async () => {
    const net = blockNet(2_001);
    const block = await reader(net).blockTransfers!(DOGE, AT, (a) => a === ADDRESS);
    expect(block).toMatchObject({ hash: HASH, previous: PARENT });
    expect(block.transfers).toHaveLength(2_001);
    expect(block.transfers[0]).toEqual({
      txid: "0".repeat(64),
      index: 1,
      to: ADDRESS,
      tag: null,
      amount: "0.00001",
      blockHeight: AT,
      blockHash: HASH,
      sources: [], // no `vin` (omitted when empty)
    });
    expect(block.transfers[2_000]).toMatchObject({
      txid: (2_000).toString(16).padStart(64, "0"),
      amount: "0.00003",
    });
    expect(urls(net)).toEqual([
      `GET ${BASE}/api/v2/block/${AT}?page=1`,
      `GET ${BASE}/api/v2/block/${HASH}?page=2`,
      `GET ${BASE}/api/v2/block/${HASH}?page=3`,
    ]);
    expect((await reader(blockNet(3)).blockTransfers!(DOGE, AT, () => false)).transfers).toEqual([]);
    expect(
      (await reader(blockNet(3)).blockTransfers!({ ...DOGE, contract: "x" }, AT, () => true)).transfers,
    ).toEqual([]);
  });

  it("a page short of its share of txCount, of another block or another page, or a provider error fails the read", async () => {
    const fails = (net: MockNetwork) => reader(net, { timeoutMs: 50 }).blockTransfers!(DOGE, AT, () => true);
    const short = (n: number) => (page: number, b: Record<string, unknown>) =>
      page === n ? { ...b, txs: (b.txs as unknown[]).slice(0, -1) } : b;
    await expect(fails(blockNet(2_500, short(2)))).rejects.toMatchObject({ kind: "invalid_body" });
    await expect(fails(blockNet(2_500, short(3)))).rejects.toMatchObject({ kind: "invalid_body" });
    await expect(fails(blockNet(40, short(1)))).rejects.toMatchObject({ kind: "invalid_body" });
    // The first page claims fewer pages than txCount needs: the missing one is never asked for.
    await expect(fails(blockNet(2_500, (_, b) => ({ ...b, totalPages: 2 })))).rejects.toMatchObject({
      kind: "invalid_body",
    });
    // Page 2 answered as another block's (a reorg between two pages), or as page 1 again.
    await expect(
      fails(blockNet(2_500, (p, b) => (p === 2 ? { ...b, hash: PARENT } : b))),
    ).rejects.toMatchObject({
      kind: "invalid_body",
    });
    await expect(fails(blockNet(2_500, (p, b) => (p === 3 ? { ...b, page: 2 } : b)))).rejects.toMatchObject({
      kind: "invalid_body",
    });
    await expect(fails(blockNet(40, (_, b) => ({ ...b, height: AT + 1 })))).rejects.toMatchObject({
      kind: "invalid_body",
    });
    await expect(
      fails(
        createMockNetwork(
          http.get(`${BASE}/api/v2/block/:id`, () => HttpResponse.json({ error: "Block not found" })),
        ),
      ),
    ).rejects.toMatchObject({ kind: "rpc_error" });
    await expect(
      fails(blockNet(2_500, (p, b) => (p === 2 ? new HttpResponse("busy", { status: 503 }) : b))),
    ).rejects.toMatchObject({ kind: "http_status", status: 503 });
  });
});

describe("blockbook reader: Bitcoin Cash (CashAddr, as a BCH Blockbook answers it)", () => {
  const BCH_BASE = "https://bch.blockbook.test";
  const BCH: AssetRef = { coin: "BCH", network: "BCH", contract: null, decimals: 8 };
  // The P2SH output of Blockbook's own BCH parser test (bchain/coins/bch/bcashparser_test.go, testTx1).
  const WATCHED = "bitcoincash:pps5f4tu3tl5sjfvnhaeznsjpvst44eddugfcnqpy9";
  const TX1 = "056e3d82e5ffd0e915fb9b62797d76263508c34fe3e5dbed30dd3e943930f204";
  const SPENT_FROM_BCH = "bitcoincash:qqxgjelx8qk85t9xfk8g2zlunxmhxms6p55xarv2r5";
  const HASH = "0000000000000000001b5d8ac4c5b0a4b1f8e3e9d6c1c1f52ab1e0f0a6c9e2d4";
  const bchReader = (net: MockNetwork) => createBlockbookReader({ baseUrl: BCH_BASE, fetch: net.fetch });
  const minedTx1: IncomingTransfer = {
    txid: TX1,
    index: 0,
    to: WATCHED,
    tag: null,
    amount: "0.00038812",
    blockHeight: 512116,
    blockHash: HASH,
    // Its one input's script is no address (`isAddress` false): skipped.
    sources: [],
  };

  it("the watched address is a valid BCH deposit address, in the form it is stored", () => {
    expect(validateBchAddress(WATCHED)).toEqual({ ok: true, address: WATCHED, tag: null });
  });

  it("lists the prefixed CashAddr and credits its outputs, mempool included, with the inputs' CashAddr", async () => {
    const net = createMockNetwork(
      http.get(`${BCH_BASE}/api/v2/address/:a`, ({ params }) =>
        params.a === WATCHED
          ? HttpResponse.json(bchAddress)
          : HttpResponse.json({ error: "Invalid address" }, { status: 400 }),
      ),
    );
    expect(await bchReader(net).incomingTransfers(BCH, WATCHED, null)).toEqual<IncomingTransfer[]>([
      {
        txid: bchAddress.transactions[0]!.txid,
        index: 1,
        to: WATCHED,
        tag: null,
        amount: "1.5",
        blockHeight: null,
        blockHash: null,
        sources: [SPENT_FROM_BCH],
      },
      minedTx1,
    ]);
    // The sanctions mirror's BCH file holds unprefixed CashAddr (and legacy): one match key.
    expect(matchKey("BCH", SPENT_FROM_BCH)).toBe(
      matchKey("BCH", SPENT_FROM_BCH.slice("bitcoincash:".length)),
    );
    expect(urls(net)).toEqual([`GET ${BCH_BASE}/api/v2/address/${WATCHED}?details=txs&pageSize=100&page=1`]);
  });

  it("reads a block for the shared reads' scan: outputs to watched CashAddr addresses", async () => {
    const net = createMockNetwork(
      http.get(`${BCH_BASE}/api/v2/block/512116`, () => HttpResponse.json(bchBlock)),
    );
    const block = await bchReader(net).blockTransfers!(BCH, 512116, (a) => a === WATCHED);
    expect(block).toEqual({ hash: HASH, previous: bchBlock.previousBlockHash, transfers: [minedTx1] });
  });
});
