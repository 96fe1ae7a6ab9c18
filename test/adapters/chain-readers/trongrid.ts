import { delay, HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { ChainReaderError } from "../../../src/adapters/chain/http-util";
import { createTronGridReader } from "../../../src/adapters/chain/trongrid";
import { type AssetRef, confirmations, type IncomingTransfer } from "../../../src/adapters/chain/types";
import blocks from "../../fixtures/chain/trongrid-blocks.json";
import nowBlock from "../../fixtures/chain/trongrid-nowblock.json";
import trc20List from "../../fixtures/chain/trongrid-trc20-list.json";
import trxList from "../../fixtures/chain/trongrid-trx-list.json";
import txInfo from "../../fixtures/chain/trongrid-txinfo.json";
import { fakeTron, TRON_BASE, type TronTx, tronAccount, tronHex } from "../../support/fake-tron";
import { createMockNetwork, type MockNetwork } from "../../support/msw";

const BASE = "https://api.trongrid.io";
const ADDRESS = "TZ1RFjs5gov1Qse96dMz7uCuMvabw7X72i";
const USDT_CONTRACT = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
const USDT: AssetRef = { coin: "USDT", network: "TRX", contract: USDT_CONTRACT, decimals: 6 };
const TRX: AssetRef = { coin: "TRX", network: "TRX", contract: null, decimals: 6 };
const API_KEY = "3c9e1f2a-8b7d-4e6f-9a0b-1c2d3e4f5a6b";

const TRC20_URL = `${BASE}/v1/accounts/${ADDRESS}/transactions/trc20?only_to=true&contract_address=${USDT_CONTRACT}&limit=200`;
const TRX_URL = `${BASE}/v1/accounts/${ADDRESS}/transactions?only_to=true&limit=200`;
// MSW matches paths only (query strings are not part of a handler's URL).
const TRC20_PATH = TRC20_URL.split("?")[0]!;
const TRX_PATH = TRX_URL.split("?")[0]!;

const B1 = 67_512_345;
const B2 = 67_512_350;
const BLOCK_ID = (n: number) => (blocks as Record<string, { blockID: string }>)[String(n)]!.blockID;

const TX = {
  single: "1e5f986326166d90b77907b366ca95a7682f27f24c8d354008f3689d80b883d0",
  batch: "b64353f5a2b85ef0d6b316d7edf96d98c9b738f733104bf3c817308b332b2d1a",
  unconfirmed: "9ceb22b2a77c1bbf98149a8db523870b89ce01d44d8da15dd61ae8e5a53b616e",
  trx: "b107a017ac731ba09536c5f5c0393cf8c1cf346957c5fda99cbe85482c7c8d1d",
  trxBig: "24ed8fbe7f398d6c57dcac3701f7df67b589f47e26ecf13b477beb4cfa491f4a",
  trxPending: "d18a5d3f017c37e4b39505f1912490293b7a1a667d8e41afaae5a7f53a32da30",
};

type Info = Record<string, unknown>;
/** The fields of a native list item the tests edit (the fixture's inferred type is a union). */
interface NativeItem {
  txID: string;
  ret: Array<{ contractRet: string; fee: number }>;
  raw_data: { contract: Array<{ parameter: { value: Record<string, unknown> } }> };
}
const pendingTrx = (): NativeItem => structuredClone(trxList.data[0]) as NativeItem;
const infos = txInfo as Record<string, Info>;

/** TronGrid answering from the fixtures; `info` overrides gettransactioninfobyid per txid. */
function tronNetwork(overrides: { info?: Record<string, Info>; blocks?: Record<string, unknown> } = {}) {
  return createMockNetwork(
    http.get(`${BASE}/v1/accounts/:address/transactions/trc20`, () => HttpResponse.json(trc20List)),
    http.get(`${BASE}/v1/accounts/:address/transactions`, () => HttpResponse.json(trxList)),
    http.post(`${BASE}/wallet/getnowblock`, () => HttpResponse.json(nowBlock)),
    http.post(`${BASE}/wallet/gettransactioninfobyid`, async ({ request }) => {
      const { value } = (await request.json()) as { value: string };
      return HttpResponse.json(overrides.info?.[value] ?? infos[value] ?? {});
    }),
    http.post(`${BASE}/wallet/getblockbynum`, async ({ request }) => {
      const { num } = (await request.json()) as { num: number };
      const all = { ...(blocks as Record<string, unknown>), ...overrides.blocks };
      return HttpResponse.json(all[String(num)] ?? {});
    }),
  );
}

const calls = (net: MockNetwork) =>
  net.requests.map((r) => (r.method === "GET" ? `GET ${r.url}` : `POST ${r.url} ${r.body}`));

function reader(net: MockNetwork, extra: { apiKey?: string; timeoutMs?: number } = {}) {
  return createTronGridReader({ baseUrl: BASE, fetch: net.fetch, ...extra });
}

describe("trongrid reader: tip", () => {
  it("reads getnowblock's block number", async () => {
    const net = tronNetwork();
    expect(await reader(net).tipHeight()).toBe(67_512_400);
    expect(calls(net)).toEqual([`POST ${BASE}/wallet/getnowblock {}`]);
    expect(net.unhandled).toEqual([]);
  });
});

describe("trongrid reader: TRC-20", () => {
  it("credits genuine USDT transfers to the address, with blocks from tx info and block ids", async () => {
    const net = tronNetwork();
    const transfers = await reader(net, { apiKey: API_KEY }).incomingTransfers(USDT, ADDRESS, null);
    expect(transfers).toEqual<IncomingTransfer[]>([
      // Not yet in a block (empty tx info): unconfirmed.
      {
        txid: TX.unconfirmed,
        index: 0,
        to: ADDRESS,
        tag: null,
        amount: "3",
        blockHeight: null,
        blockHash: null,
        from: "TGa42LGUBFX6sYMnfQp2w462vaFA2u5jPG", // the item's `from`
      },
      // Two transfers to the address in one tx: distinct indexes (ranked by value).
      {
        txid: TX.batch,
        index: 0,
        to: ADDRESS,
        tag: null,
        amount: "0.5",
        blockHeight: B1,
        blockHash: BLOCK_ID(B1),
        from: "TTmHvEYg9ZVHQ1FjKLn6hqBBYxVCBNREyF",
      },
      {
        txid: TX.batch,
        index: 1,
        to: ADDRESS,
        tag: null,
        amount: "2",
        blockHeight: B1,
        blockHash: BLOCK_ID(B1),
        from: "TTmHvEYg9ZVHQ1FjKLn6hqBBYxVCBNREyF",
      },
      {
        txid: TX.single,
        index: 0,
        to: ADDRESS,
        tag: null,
        amount: "1.5",
        blockHeight: B1,
        blockHash: BLOCK_ID(B1),
        from: "TAqb5zj4J1wHKQE1dybSJLweDVzTddG5Sh",
      },
      // Never credited: the fake "USDT" (same symbol, other contract), the zero-value poisoning
      // transfer, the Approval, and the transfer to another address.
    ]);
    expect(calls(net)).toEqual([
      `GET ${TRC20_URL}`,
      `POST ${BASE}/wallet/gettransactioninfobyid {"value":"${TX.unconfirmed}"}`,
      `POST ${BASE}/wallet/gettransactioninfobyid {"value":"${TX.batch}"}`,
      `POST ${BASE}/wallet/gettransactioninfobyid {"value":"${TX.single}"}`,
      // One block lookup for the two txs in block B1.
      `POST ${BASE}/wallet/getblockbynum {"num":${B1}}`,
    ]);
    for (const r of net.requests) expect(r.headers.get("TRON-PRO-API-KEY")).toBe(API_KEY);
    expect(net.unhandled).toEqual([]);
    expect(transfers.map((t) => confirmations(t, 67_512_400))).toEqual([0, 56, 56, 56]);
  });

  it("never credits the look-alike token, even when it is the only item", async () => {
    const fakeOnly = {
      ...trc20List,
      data: trc20List.data.filter((d) => d.token_info.address !== USDT_CONTRACT),
    };
    expect(fakeOnly.data).toHaveLength(1);
    expect(fakeOnly.data[0]!.token_info.symbol).toBe("USDT");
    const net = createMockNetwork(http.get(TRC20_PATH, () => HttpResponse.json(fakeOnly)));
    expect(await reader(net).incomingTransfers(USDT, ADDRESS, null)).toEqual([]);
    expect(calls(net)).toEqual([`GET ${TRC20_URL}`]);
    // And asking for the fake contract's transfers does not credit the real USDT ones.
    const fake = "TGrg4w84ezCiMnXAzdxDuLrgN4PxKPDwzF";
    const net2 = createMockNetwork(
      http.get(`${BASE}/v1/accounts/:address/transactions/trc20`, () =>
        HttpResponse.json({
          ...trc20List,
          data: trc20List.data.filter((d) => d.token_info.address === USDT_CONTRACT),
        }),
      ),
    );
    expect(await reader(net2).incomingTransfers({ ...USDT, contract: fake }, ADDRESS, null)).toEqual([]);
  });

  it("does not credit a failed or reverted transaction", async () => {
    const net = tronNetwork({
      info: {
        [TX.single]: { ...infos[TX.single], result: "FAILED", resMessage: "5452414e534645525f4641494c4544" },
        [TX.batch]: { ...infos[TX.batch], receipt: { result: "REVERT" } },
      },
    });
    const transfers = await reader(net).incomingTransfers(USDT, ADDRESS, null);
    expect(transfers.map((t) => t.txid)).toEqual([TX.unconfirmed]);
    expect(calls(net)).not.toContain(`POST ${BASE}/wallet/getblockbynum {"num":${B1}}`);
  });

  it("counts a transfer as unconfirmed while the node has no block at its height yet", async () => {
    const net = tronNetwork({ blocks: { [String(B1)]: {} } });
    const transfers = await reader(net).incomingTransfers(USDT, ADDRESS, null);
    expect(transfers.every((t) => t.blockHeight === null && t.blockHash === null)).toBe(true);
  });

  it("has no transfers for a tag, and refuses non-TRON addresses", async () => {
    const net = tronNetwork();
    expect(await reader(net).incomingTransfers(USDT, ADDRESS, "123")).toEqual([]);
    // Hex form, bad checksum, EVM address.
    for (const bad of [
      "41fcb5f40df9be6bae66c1d77a6c15968866a9e6cb",
      "TZ1RFjs5gov1Qse96dMz7uCuMvabw7X72j",
      "0x9cbae97fb54f32820de834093691ff27a83d5531",
    ]) {
      await expect(reader(net).incomingTransfers(USDT, bad, null)).rejects.toBeInstanceOf(TypeError);
    }
    await expect(
      reader(net).incomingTransfers(
        { ...USDT, contract: "0xdAC17F958D2ee523a2206206994597C13D831ec7" },
        ADDRESS,
        null,
      ),
    ).rejects.toBeInstanceOf(TypeError);
    expect(net.requests).toEqual([]);
  });
});

describe("trongrid reader: TRX", () => {
  it("credits successful TransferContracts to the address", async () => {
    const net = tronNetwork();
    const transfers = await reader(net).incomingTransfers(TRX, ADDRESS, null);
    expect(transfers).toEqual<IncomingTransfer[]>([
      {
        txid: TX.trxPending,
        index: 0,
        to: ADDRESS,
        tag: null,
        amount: "4.2",
        blockHeight: null,
        blockHash: null,
        // owner_address 414867d1…74a1, in its T… spelling
        from: "TGa42LGUBFX6sYMnfQp2w462vaFA2u5jPG",
      },
      {
        txid: TX.trx,
        index: 0,
        to: ADDRESS,
        tag: null,
        amount: "1.5",
        blockHeight: B2,
        blockHash: BLOCK_ID(B2),
        from: "TAqb5zj4J1wHKQE1dybSJLweDVzTddG5Sh",
      },
      {
        txid: TX.trxBig,
        index: 0,
        to: ADDRESS,
        tag: null,
        amount: "25000",
        blockHeight: B1,
        blockHash: BLOCK_ID(B1),
        from: "TAqb5zj4J1wHKQE1dybSJLweDVzTddG5Sh",
      },
      // Not credited: the internal transaction, the TRC-10 TransferAssetContract, the USDT
      // TriggerSmartContract, and the TRX sent from the address to another one.
    ]);
    expect(calls(net)).toEqual([
      `GET ${TRX_URL}`,
      `POST ${BASE}/wallet/getblockbynum {"num":${B2}}`,
      `POST ${BASE}/wallet/getblockbynum {"num":${B1}}`,
    ]);
    expect(net.requests[0]!.headers.has("TRON-PRO-API-KEY")).toBe(false);
    expect(net.unhandled).toEqual([]);
  });

  it("accepts base58 to_address (visible=true form) and skips non-SUCCESS results", async () => {
    const base58Form = pendingTrx();
    base58Form.raw_data.contract[0]!.parameter.value.to_address = ADDRESS;
    const failed = pendingTrx();
    failed.txID = TX.trx;
    failed.ret = [{ contractRet: "OUT_OF_ENERGY", fee: 0 }];
    const net = createMockNetwork(
      http.get(TRX_PATH, () => HttpResponse.json({ ...trxList, data: [base58Form, failed] })),
    );
    const transfers = await reader(net).incomingTransfers(TRX, ADDRESS, null);
    expect(transfers.map((t) => [t.txid, t.amount])).toEqual([[TX.trxPending, "4.2"]]);
  });
});

describe("trongrid reader: best chain", () => {
  const transfer: IncomingTransfer = {
    txid: TX.single,
    index: 0,
    to: ADDRESS,
    tag: null,
    amount: "1.5",
    blockHeight: B1,
    blockHash: BLOCK_ID(B1),
  };

  it("compares getblockbynum's blockID", async () => {
    const net = tronNetwork();
    expect(await reader(net).isInBestChain(transfer)).toBe(true);
    expect(calls(net)).toEqual([`POST ${BASE}/wallet/getblockbynum {"num":${B1}}`]);
  });

  it("is false after a reorg (other blockID) or when the block is missing", async () => {
    const net = tronNetwork();
    expect(await reader(net).isInBestChain({ ...transfer, blockHash: BLOCK_ID(B2) })).toBe(false);
    const empty = tronNetwork({ blocks: { [String(B1)]: {} } });
    expect(await reader(empty).isInBestChain(transfer)).toBe(false);
  });

  it("is true for an unconfirmed transfer, without a request", async () => {
    const net = tronNetwork();
    expect(await reader(net).isInBestChain({ ...transfer, blockHeight: null, blockHash: null })).toBe(true);
    expect(net.requests).toEqual([]);
  });
});

describe("trongrid reader: failures", () => {
  it("HTTP 500 and 429 → http_status", async () => {
    for (const status of [500, 429]) {
      const net = createMockNetwork(http.get(TRC20_PATH, () => HttpResponse.json({}, { status })));
      const err = await reader(net)
        .incomingTransfers(USDT, ADDRESS, null)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ChainReaderError);
      expect(err).toMatchObject({ kind: "http_status", status, source: "trongrid" });
    }
  });

  it("a slow API → timeout", async () => {
    const net = createMockNetwork(
      http.post(`${BASE}/wallet/getnowblock`, async () => {
        await delay(2_000);
        return HttpResponse.json(nowBlock);
      }),
    );
    await expect(reader(net, { timeoutMs: 50 }).tipHeight()).rejects.toMatchObject({ kind: "timeout" });
  });

  it("success:false → rpc_error", async () => {
    const net = createMockNetwork(
      http.get(TRX_PATH, () =>
        HttpResponse.json({ success: false, error: "Invalid address", statusCode: 400 }),
      ),
    );
    await expect(reader(net).incomingTransfers(TRX, ADDRESS, null)).rejects.toMatchObject({
      kind: "rpc_error",
    });
  });

  it("garbage or wrongly shaped bodies → invalid_body", async () => {
    const cases: Array<[string, () => Promise<unknown>, MockNetwork]> = [];
    const garbage = createMockNetwork(
      http.post(`${BASE}/wallet/getnowblock`, () => HttpResponse.text("<html>")),
    );
    cases.push(["tip garbage", () => reader(garbage).tipHeight(), garbage]);
    const noHeader = createMockNetwork(http.post(`${BASE}/wallet/getnowblock`, () => HttpResponse.json({})));
    cases.push(["tip shape", () => reader(noHeader).tipHeight(), noHeader]);
    const badValue = createMockNetwork(
      http.get(TRC20_PATH, () =>
        HttpResponse.json({ ...trc20List, data: [{ ...trc20List.data.at(-1)!, value: "1.5e6" }] }),
      ),
    );
    cases.push(["trc20 value", () => reader(badValue).incomingTransfers(USDT, ADDRESS, null), badValue]);
    const badSender = createMockNetwork(
      http.get(TRC20_PATH, () =>
        HttpResponse.json({ ...trc20List, data: [{ ...trc20List.data.at(-1)!, from: "0xabc" }] }),
      ),
    );
    cases.push(["trc20 sender", () => reader(badSender).incomingTransfers(USDT, ADDRESS, null), badSender]);
    const badOwner = createMockNetwork(
      http.get(TRX_PATH, () => {
        const item = pendingTrx();
        item.raw_data.contract[0]!.parameter.value.owner_address = "41zz";
        return HttpResponse.json({ ...trxList, data: [item] });
      }),
    );
    cases.push(["trx owner", () => reader(badOwner).incomingTransfers(TRX, ADDRESS, null), badOwner]);
    const badAmount = createMockNetwork(
      http.get(TRX_PATH, () => {
        const item = pendingTrx();
        item.raw_data.contract[0]!.parameter.value.amount = "4200000";
        return HttpResponse.json({ ...trxList, data: [item] });
      }),
    );
    cases.push(["trx amount", () => reader(badAmount).incomingTransfers(TRX, ADDRESS, null), badAmount]);
    const noData = createMockNetwork(http.get(TRX_PATH, () => HttpResponse.json({ success: true })));
    cases.push(["no data", () => reader(noData).incomingTransfers(TRX, ADDRESS, null), noData]);
    for (const [what, run, net] of cases) {
      await expect(run(), what).rejects.toMatchObject({ name: "ChainReaderError", kind: "invalid_body" });
      expect(net.unhandled, what).toEqual([]);
    }
  });
});

describe("trongrid reader: whole blocks (blockTransfers)", () => {
  const FAKE_TOKEN = "TGrg4w84ezCiMnXAzdxDuLrgN4PxKPDwzF";
  const a = tronAccount(1);
  const b = tronAccount(2);
  const watched = (x: string) => x === a || x === b;
  const scanReader = (fake: ReturnType<typeof fakeTron>) =>
    createTronGridReader({ baseUrl: TRON_BASE, fetch: fake.net.fetch });
  const path = (r: { url: string }) => new URL(r.url).pathname;
  const mine = (fake: ReturnType<typeof fakeTron>) => {
    const tx = {
      trx: fake.trx(a, 1_500_000),
      trxFailed: fake.trx(a, 9_000_000, { ok: false }),
      trxToStranger: fake.trx(tronAccount(3, 0x14), 5_000_000),
      usdt: fake.token([[a, 2_500_000n]]),
      // Two transfers to b in one tx: ranked by value, as the listing ranks them.
      batch: fake.token([
        [b, 2_000_000n],
        [b, 500_000n, undefined, tronAccount(4, 0x14)],
      ]),
      usdtFailed: fake.token([[a, 3_000_000n]], { ok: false }),
      // Another token's Transfer to a, alone and beside a genuine one in the same tx.
      lookAlike: fake.token([[a, 7_000_000n, FAKE_TOKEN]]),
      mixed: fake.token([
        [a, 1_000_000n, FAKE_TOKEN],
        [a, 4_000_000n],
      ]),
      zero: fake.token([[b, 0n]]),
    };
    const block = fake.mine(
      4,
      Object.values(tx).map((t, i): [number, TronTx] => [1 + 2 * i, t]),
    );
    return { tx, block };
  };

  it("reads the block once for all scans (TRX: getblockbynum; a token: its tx infos) and lists its transfers to watched addresses as the listing does", async () => {
    const fake = fakeTron(70_000_000);
    const { tx, block } = mine(fake);
    fake.mine(2);
    const r = scanReader(fake);

    const native = await r.blockTransfers!(TRX, block.number, watched);
    expect(native).toEqual({
      hash: block.id,
      previous: block.parent,
      transfers: [
        {
          txid: tx.trx.txID,
          index: 0,
          to: a,
          tag: null,
          amount: "1.5",
          blockHeight: block.number,
          blockHash: block.id,
          from: tx.trx.from, // the TransferContract's owner_address, spelt T…
        },
      ],
    });
    expect(fake.net.requests.map(path)).toEqual(["/wallet/getblockbynum"]);

    fake.net.requests.length = 0;
    const token = await r.blockTransfers!(USDT, block.number, watched);
    // `from`: each Transfer log's sender topic, spelt T….
    expect(token.transfers.map((t) => [t.txid, t.index, t.to, t.amount, t.from])).toEqual([
      [tx.usdt.txID, 0, a, "2.5", tx.usdt.from],
      [tx.batch.txID, 0, b, "0.5", tronAccount(4, 0x14)],
      [tx.batch.txID, 1, b, "2", tx.batch.from],
      [tx.mixed.txID, 0, a, "4", tx.mixed.from],
    ]);
    expect(token.transfers.every((t) => t.blockHash === block.id && t.blockHeight === block.number)).toBe(
      true,
    );
    // The block itself came with the TRX read: the network's scans share it.
    expect(fake.net.requests.map(path)).toEqual(["/wallet/gettransactioninfobyblocknum"]);
    // A scan that reads a height again (as after a reorg) gets the block afresh.
    fake.net.requests.length = 0;
    await r.blockTransfers!(TRX, block.number, watched);
    expect(fake.net.requests.map(path)).toEqual(["/wallet/getblockbynum"]);

    // Exactly what each address's own listing says of that block.
    const key = (t: IncomingTransfer) => `${t.txid}:${t.index}`;
    const sorted = (l: IncomingTransfer[]) => [...l].sort((x, y) => key(x).localeCompare(key(y)));
    for (const [asset, scanned] of [
      [TRX, native],
      [USDT, token],
    ] as const)
      for (const x of [a, b])
        expect(sorted(await r.incomingTransfers(asset, x, null)), `${asset.coin} ${x}`).toEqual(
          sorted(scanned.transfers.filter((t) => t.to === x)),
        );

    // Nobody watched: nothing, whatever the block holds.
    expect((await r.blockTransfers!(USDT, block.number, () => false)).transfers).toEqual([]);
    expect(fake.net.unhandled).toEqual([]);
  });

  it("a block the node lacks, or tx infos that do not name the block's transactions, fail the read: a missed block never reads as no deposit", async () => {
    const fake = fakeTron(70_000_000);
    const { block } = mine(fake);
    const r = scanReader(fake);
    const invalid = { name: "ChainReaderError", kind: "invalid_body" };
    await expect(r.blockTransfers!(TRX, block.number + 1, watched)).rejects.toMatchObject(invalid);
    await expect(r.blockTransfers!(USDT, block.number + 1, watched)).rejects.toMatchObject(invalid);

    const infos = async () =>
      (await (
        await fake.net.fetch(`${TRON_BASE}/wallet/gettransactioninfobyblocknum`, {
          method: "POST",
          body: JSON.stringify({ num: block.number }),
        })
      ).json()) as Array<{ id: string }>;
    const all = await infos();
    for (const [what, answer] of [
      ["none (a node behind)", []],
      ["one short", all.slice(1)],
      ["one twice, one missing", [...all.slice(1), all[1]]],
      ["other transactions'", all.map((i) => ({ ...i, id: `6e${i.id.slice(2)}` }))],
      ["an error", { Error: "class java.lang.NullPointerException : null" }],
    ] as const) {
      fake.net.use(
        http.post(`${TRON_BASE}/wallet/gettransactioninfobyblocknum`, () => HttpResponse.json(answer)),
      );
      await expect(r.blockTransfers!(USDT, block.number, watched), what).rejects.toMatchObject(invalid);
      fake.net.reset();
    }

    // A stranger's odd transaction does not stop the reads; a malformed transfer to a watched address does.
    const json = (await (
      await fake.net.fetch(`${TRON_BASE}/wallet/getblockbynum`, {
        method: "POST",
        body: JSON.stringify({ num: block.number }),
      })
    ).json()) as { transactions: Array<{ raw_data: { contract: Array<Record<string, unknown>> } }> };
    const odd = structuredClone(json);
    odd.transactions[0]!.raw_data.contract[0] = { type: "AccountCreateContract" };
    const bad = structuredClone(json);
    const toA = (t: (typeof bad.transactions)[number]) =>
      (t.raw_data.contract[0]!.parameter as { value: { to_address?: string } }).value.to_address ===
      tronHex(a);
    const trx = bad.transactions.find(toA)!;
    (trx.raw_data.contract[0]!.parameter as { value: { amount: unknown } }).value.amount = "1500000";
    for (const [answer, fails] of [
      [odd, false],
      [bad, true],
    ] as const) {
      fake.net.use(http.post(`${TRON_BASE}/wallet/getblockbynum`, () => HttpResponse.json(answer)));
      const read = r.blockTransfers!(TRX, block.number, watched);
      if (fails) await expect(read).rejects.toMatchObject(invalid);
      else expect((await read).transfers).toHaveLength(1);
      fake.net.reset();
    }

    // An empty block (no `transactions`, no tx infos) has nothing, and says so.
    const empty = fake.mine(0);
    expect(await r.blockTransfers!(USDT, empty.number, watched)).toEqual({
      hash: empty.id,
      previous: block.id,
      transfers: [],
    });
  });
});
