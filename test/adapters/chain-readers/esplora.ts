import { delay, HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { createEsploraReader, ESPLORA_CHAIN_PAGE_SIZE } from "../../../src/adapters/chain/esplora";
import { ChainReaderError } from "../../../src/adapters/chain/http-util";
import { type AssetRef, confirmations, type IncomingTransfer } from "../../../src/adapters/chain/types";
import addressTxs from "../../fixtures/chain/esplora-address-txs.json";
import blockBest from "../../fixtures/chain/esplora-block-status-best.json";
import blockOrphaned from "../../fixtures/chain/esplora-block-status-orphaned.json";
import { createMockNetwork, type MockNetwork } from "../../support/msw";

const BASE = "https://blockstream.info/api";
const ADDRESS = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";
const BTC: AssetRef = { coin: "BTC", network: "BTC", contract: null, decimals: 8 };

const MEMPOOL_TXID = "628b49d96dcde97a430dd4f597705899e09a968f793491e4b704cae33a40dc02";
const CONFIRMED_TXID = "c44474038d459e40e4714afefa7bf8dae9f9834b22f5e8ec1dd434ecb62b512e";
const BLOCK_870001 = "00000000000000000001a7dc96f776c8423e57a2785489a3f9c43fb6e7568761";

const urls = (net: MockNetwork) => net.requests.map((r) => `${r.method} ${r.url}`);

function reader(
  net: MockNetwork,
  extra: { maxChainPages?: number; timeoutMs?: number; baseUrl?: string } = {},
) {
  return createEsploraReader({ baseUrl: BASE, fetch: net.fetch, ...extra });
}

/** An address the minimal txs spend from. */
const SENDER = "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2";

/** A minimal Esplora tx spending from SENDER and paying `sats` to ADDRESS at vout 0. */
function tx(n: number, confirmed: boolean, sats = 1000 + n) {
  const txid = n.toString(16).padStart(64, "0");
  return {
    txid,
    version: 2,
    locktime: 0,
    vin: [{ txid: "ab".repeat(32), vout: 0, prevout: { scriptpubkey_address: SENDER, value: sats + 500 } }],
    vout: [{ scriptpubkey_type: "v0_p2wpkh", scriptpubkey_address: ADDRESS, value: sats }],
    status: confirmed
      ? {
          confirmed: true,
          block_height: 800_000 + n,
          block_hash: `${"0".repeat(56)}${n.toString(16).padStart(8, "0")}`,
        }
      : { confirmed: false },
  };
}

function range(from: number, count: number, confirmed: boolean) {
  return Array.from({ length: count }, (_, i) => tx(from + i, confirmed));
}

describe("esplora reader: tip", () => {
  it("parses the plain-text tip height (trailing newline tolerated)", async () => {
    const net = createMockNetwork(http.get(`${BASE}/blocks/tip/height`, () => HttpResponse.text("870005\n")));
    expect(await reader(net).tipHeight()).toBe(870005);
    expect(urls(net)).toEqual([`GET ${BASE}/blocks/tip/height`]);
    expect(net.unhandled).toEqual([]);
  });

  it("rejects a tip that is not an integer", async () => {
    for (const body of ["<html>503</html>", "", "-1", "8.7e5", "12345678901234567890"]) {
      const net = createMockNetwork(http.get(`${BASE}/blocks/tip/height`, () => HttpResponse.text(body)));
      await expect(reader(net).tipHeight()).rejects.toMatchObject({
        name: "ChainReaderError",
        kind: "invalid_body",
      });
    }
  });
});

describe("esplora reader: incoming transfers", () => {
  const txsHandler = http.get(`${BASE}/address/${ADDRESS}/txs`, () => HttpResponse.json(addressTxs));

  it("turns each output paying the address into one transfer, with exact amounts and the inputs' addresses", async () => {
    const net = createMockNetwork(txsHandler);
    const transfers = await reader(net).incomingTransfers(BTC, ADDRESS, null);
    expect(transfers).toEqual<IncomingTransfer[]>([
      {
        txid: MEMPOOL_TXID,
        index: 1,
        to: ADDRESS,
        tag: null,
        amount: "0.12345678",
        blockHeight: null,
        blockHash: null,
        sources: ["3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy"],
      },
      // Two outputs to the address in one tx: two transfers told apart by the vout index. The
      // OP_RETURN (no address) and the output to another address are not transfers.
      {
        txid: CONFIRMED_TXID,
        index: 0,
        to: ADDRESS,
        tag: null,
        amount: "0.0005",
        blockHeight: 870001,
        blockHash: BLOCK_870001,
        sources: ["1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2"],
      },
      {
        txid: CONFIRMED_TXID,
        index: 2,
        to: ADDRESS,
        tag: null,
        amount: "1",
        blockHeight: 870001,
        blockHash: BLOCK_870001,
        sources: ["1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2"],
      },
      // The third tx only spends from the address: nothing incoming.
    ]);
    // Fewer than 25 confirmed txs on the first page: no further page is asked for.
    expect(urls(net)).toEqual([`GET ${BASE}/address/${ADDRESS}/txs`]);
    expect(net.unhandled).toEqual([]);

    const [mempool, first] = transfers;
    expect(confirmations(mempool!, 870005)).toBe(0);
    expect(confirmations(first!, 870001)).toBe(1);
    expect(confirmations(first!, 870005)).toBe(5);
  });

  it("has no transfers for tokens or tags, without asking the network", async () => {
    const net = createMockNetwork(txsHandler);
    const r = reader(net);
    expect(await r.incomingTransfers({ ...BTC, contract: "something" }, ADDRESS, null)).toEqual([]);
    expect(await r.incomingTransfers(BTC, ADDRESS, "12345")).toEqual([]);
    expect(net.requests).toEqual([]);
  });

  it("input addresses: each once, in input order; a coinbase or an input without an address is skipped", async () => {
    const P2SH = "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy";
    const spent = (address?: string) => ({
      txid: "cd".repeat(32),
      vout: 0,
      prevout: {
        scriptpubkey_type: address ? "p2pkh" : "nonstandard",
        value: 1,
        ...(address && { scriptpubkey_address: address }),
      },
    });
    const coinbase = {
      ...tx(1, true),
      vin: [{ txid: "0".repeat(64), vout: 4294967295, prevout: null, is_coinbase: true }],
    };
    const mixed = { ...tx(2, true), vin: [spent(P2SH), spent(), spent(SENDER), spent(P2SH)] };
    const net = createMockNetwork(
      http.get(`${BASE}/address/${ADDRESS}/txs`, () => HttpResponse.json([mixed, coinbase])),
    );
    const transfers = await reader(net).incomingTransfers(BTC, ADDRESS, null);
    expect(transfers.map((t) => t.sources)).toEqual([[P2SH, SENDER], []]);
  });

  it("works against a mempool-compatible LTC base URL with a trailing slash", async () => {
    const ltcBase = "https://litecoinspace.org/api";
    const ltcAddress = "ltc1qg82tnuqjv9yq6j4kdhkxgmtt0l8xvxlt0vaql6";
    const net = createMockNetwork(
      http.get(`${ltcBase}/address/${ltcAddress}/txs`, () =>
        HttpResponse.json([
          {
            txid: MEMPOOL_TXID,
            vin: [],
            // A zero-value output to the address (non-standard, but valid) is not a transfer.
            vout: [
              { scriptpubkey_address: ltcAddress, value: 0 },
              { scriptpubkey_address: ltcAddress, value: 250_000_000 },
            ],
            status: { confirmed: true, block_height: 2_790_001, block_hash: BLOCK_870001, block_time: 1 },
          },
        ]),
      ),
    );
    const ltc = createEsploraReader({ baseUrl: `${ltcBase}/`, fetch: net.fetch });
    const transfers = await ltc.incomingTransfers({ ...BTC, coin: "LTC", network: "LTC" }, ltcAddress, null);
    expect(transfers.map((t) => [t.index, t.amount, t.blockHeight])).toEqual([[1, "2.5", 2_790_001]]);
    expect(urls(net)).toEqual([`GET ${ltcBase}/address/${ltcAddress}/txs`]);
  });

  it("refuses an address that could change the URL path", async () => {
    const net = createMockNetwork(txsHandler);
    await expect(reader(net).incomingTransfers(BTC, "../blocks/tip", null)).rejects.toBeInstanceOf(TypeError);
    expect(net.requests).toEqual([]);
  });
});

describe("esplora reader: pagination", () => {
  const pageUrl = (after?: string) => `${BASE}/address/${ADDRESS}/txs${after ? `/chain/${after}` : ""}`;
  const txidOf = (n: number) => n.toString(16).padStart(64, "0");

  /** First page: 2 mempool + 25 confirmed (txs 1..25); chain pages of 25 after that, `chainTotal` confirmed in all. */
  function pagedNetwork(chainTotal: number) {
    const all = range(1, chainTotal, true);
    return createMockNetwork(
      http.get(pageUrl(), () =>
        HttpResponse.json([...range(900, 2, false), ...all.slice(0, ESPLORA_CHAIN_PAGE_SIZE)]),
      ),
      http.get(`${BASE}/address/${ADDRESS}/txs/chain/:after`, ({ params }) => {
        const at = all.findIndex((t) => t.txid === params.after);
        return HttpResponse.json(at < 0 ? [] : all.slice(at + 1, at + 1 + ESPLORA_CHAIN_PAGE_SIZE));
      }),
    );
  }

  it("follows full confirmed pages from the last seen txid, at most 4 pages by default", async () => {
    const net = pagedNetwork(160);
    const transfers = await reader(net).incomingTransfers(BTC, ADDRESS, null);
    expect(urls(net)).toEqual([
      `GET ${pageUrl()}`,
      `GET ${pageUrl(txidOf(25))}`,
      `GET ${pageUrl(txidOf(50))}`,
      `GET ${pageUrl(txidOf(75))}`,
    ]);
    expect(transfers).toHaveLength(2 + 100);
    expect(transfers.filter((t) => t.blockHeight === null)).toHaveLength(2);
    expect(transfers.at(-1)).toMatchObject({ txid: txidOf(100), amount: "0.000011", blockHeight: 800_100 });
    expect(net.unhandled).toEqual([]);
  });

  it("stops at the first page that is not full", async () => {
    const net = pagedNetwork(40);
    const transfers = await reader(net).incomingTransfers(BTC, ADDRESS, null);
    expect(urls(net)).toEqual([`GET ${pageUrl()}`, `GET ${pageUrl(txidOf(25))}`]);
    expect(transfers).toHaveLength(2 + 40);
  });

  it("reads one page only with maxChainPages 1, and rejects a bound below 1", async () => {
    const net = pagedNetwork(160);
    expect(await reader(net, { maxChainPages: 1 }).incomingTransfers(BTC, ADDRESS, null)).toHaveLength(27);
    expect(urls(net)).toEqual([`GET ${pageUrl()}`]);
    expect(() => reader(net, { maxChainPages: 0 })).toThrow(RangeError);
  });

  it("keeps the confirmed copy of a tx that confirmed between two page reads", async () => {
    const firstPage = [tx(500, false), ...range(1, 25, true)];
    const confirmedLater = { ...tx(500, true), status: { ...tx(500, true).status, block_height: 799_999 } };
    const net = createMockNetwork(
      http.get(pageUrl(), () => HttpResponse.json(firstPage)),
      http.get(pageUrl(txidOf(25)), () => HttpResponse.json([confirmedLater, ...range(26, 3, true)])),
    );
    const transfers = await reader(net).incomingTransfers(BTC, ADDRESS, null);
    expect(transfers).toHaveLength(1 + 25 + 3);
    expect(transfers.filter((t) => t.txid === txidOf(500))).toEqual([
      expect.objectContaining({ blockHeight: 799_999, blockHash: confirmedLater.status.block_hash }),
    ]);
  });
});

describe("esplora reader: best chain", () => {
  const confirmed: IncomingTransfer = {
    txid: CONFIRMED_TXID,
    index: 0,
    to: ADDRESS,
    tag: null,
    amount: "0.0005",
    blockHeight: 870001,
    blockHash: BLOCK_870001,
  };

  it("asks the block status: in_best_chain true", async () => {
    const net = createMockNetwork(
      http.get(`${BASE}/block/${BLOCK_870001}/status`, () => HttpResponse.json(blockBest)),
    );
    expect(await reader(net).isInBestChain(confirmed)).toBe(true);
    expect(urls(net)).toEqual([`GET ${BASE}/block/${BLOCK_870001}/status`]);
  });

  it("reports a reorged-out block (in_best_chain false)", async () => {
    const net = createMockNetwork(
      http.get(`${BASE}/block/${BLOCK_870001}/status`, () => HttpResponse.json(blockOrphaned)),
    );
    expect(await reader(net).isInBestChain(confirmed)).toBe(false);
  });

  it("answers true for a mempool transfer without a request", async () => {
    const net = createMockNetwork();
    expect(await reader(net).isInBestChain({ ...confirmed, blockHeight: null, blockHash: null })).toBe(true);
    expect(net.requests).toEqual([]);
  });
});

describe("esplora reader: failures", () => {
  const txsUrl = `${BASE}/address/${ADDRESS}/txs`;

  it("HTTP 500 → http_status", async () => {
    const net = createMockNetwork(http.get(txsUrl, () => new HttpResponse("oops", { status: 500 })));
    const err = await reader(net)
      .incomingTransfers(BTC, ADDRESS, null)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChainReaderError);
    expect(err).toMatchObject({ kind: "http_status", status: 500, source: "esplora" });
  });

  it("a slow server → timeout", async () => {
    const net = createMockNetwork(
      http.get(`${BASE}/blocks/tip/height`, async () => {
        await delay(2_000);
        return HttpResponse.text("1");
      }),
    );
    await expect(reader(net, { timeoutMs: 50 }).tipHeight()).rejects.toMatchObject({ kind: "timeout" });
  });

  it("a network error → network", async () => {
    const net = createMockNetwork(http.get(txsUrl, () => HttpResponse.error()));
    await expect(reader(net).incomingTransfers(BTC, ADDRESS, null)).rejects.toMatchObject({
      kind: "network",
    });
  });

  it("garbage or wrongly shaped bodies → invalid_body", async () => {
    const bodies = [
      () => HttpResponse.text("<html>Bad gateway</html>"),
      () => HttpResponse.json({ error: "not an array" }),
      // confirmed without a block: cannot be placed, so not silently treated as mempool
      () => HttpResponse.json([{ txid: MEMPOOL_TXID, vout: [], status: { confirmed: true } }]),
      // a float amount
      () =>
        HttpResponse.json([
          {
            txid: MEMPOOL_TXID,
            vout: [{ scriptpubkey_address: ADDRESS, value: 0.5 }],
            status: { confirmed: false },
          },
        ]),
    ];
    for (const body of bodies) {
      const net = createMockNetwork(http.get(txsUrl, body));
      await expect(reader(net).incomingTransfers(BTC, ADDRESS, null)).rejects.toMatchObject({
        name: "ChainReaderError",
        kind: "invalid_body",
      });
    }
    const net = createMockNetwork(
      http.get(`${BASE}/block/${BLOCK_870001}/status`, () => HttpResponse.json({})),
    );
    await expect(
      reader(net).isInBestChain({
        txid: CONFIRMED_TXID,
        index: 0,
        to: ADDRESS,
        tag: null,
        amount: "1",
        blockHeight: 870001,
        blockHash: BLOCK_870001,
      }),
    ).rejects.toMatchObject({ kind: "invalid_body" });
  });

  it("rejects bad options up front", () => {
    const net = createMockNetwork();
    expect(() => reader(net, { baseUrl: "ftp://example.com" })).toThrow(TypeError);
    expect(() => reader(net, { baseUrl: "https://example.com/api?x=1" })).toThrow(TypeError);
    expect(() => reader(net, { timeoutMs: 0 })).toThrow(RangeError);
  });
});

describe("esplora reader: whole blocks (blockTransfers)", () => {
  const HASH = BLOCK_870001;
  const PARENT = "00000000000000000000b1b3f8d3e2c9a4d5e6f708192a3b4c5d6e7f80910111";
  /** Block 870001 of `count` txs, tx i paying ADDRESS 1000 + i sats; `short` drops a page's last tx. */
  function blockNet(count: number, short?: number) {
    const txs = Array.from({ length: count }, (_, i) => {
      const { status: _status, ...rest } = tx(i, true);
      return rest;
    });
    return createMockNetwork(
      http.get(`${BASE}/block-height/870001`, () => HttpResponse.text(HASH)),
      http.get(`${BASE}/block/${HASH}`, () =>
        HttpResponse.json({ id: HASH, height: 870_001, previousblockhash: PARENT, tx_count: count }),
      ),
      http.get(`${BASE}/block/${HASH}/txs/:start`, ({ params }) => {
        const start = Number(params.start);
        const page = txs.slice(start, start + ESPLORA_CHAIN_PAGE_SIZE);
        return HttpResponse.json(start === short ? page.slice(0, -1) : page);
      }),
    );
  }

  it("reads every page of the block once and lists the outputs to watched addresses, as incomingTransfers would", async () => {
    const net = blockNet(51);
    const block = await reader(net).blockTransfers!(BTC, 870_001, (a) => a === ADDRESS);
    expect(block).toMatchObject({ hash: HASH, previous: PARENT });
    expect(block.transfers).toHaveLength(51);
    expect(block.transfers[50]).toEqual({
      txid: (50).toString(16).padStart(64, "0"),
      index: 0,
      to: ADDRESS,
      tag: null,
      amount: "0.0000105",
      blockHeight: 870_001,
      blockHash: HASH,
      sources: [SENDER],
    });
    expect(urls(net)).toEqual([
      `GET ${BASE}/block-height/870001`,
      `GET ${BASE}/block/${HASH}`,
      `GET ${BASE}/block/${HASH}/txs/0`,
      `GET ${BASE}/block/${HASH}/txs/25`,
      `GET ${BASE}/block/${HASH}/txs/50`,
    ]);
    expect((await reader(blockNet(3)).blockTransfers!(BTC, 870_001, () => false)).transfers).toEqual([]);
  });

  it("a page short of its share of tx_count fails the read: no transaction is skipped", async () => {
    await expect(reader(blockNet(60, 25)).blockTransfers!(BTC, 870_001, () => true)).rejects.toMatchObject({
      kind: "invalid_body",
    });
    await expect(reader(blockNet(60, 50)).blockTransfers!(BTC, 870_001, () => true)).rejects.toBeInstanceOf(
      ChainReaderError,
    );
  });
});
