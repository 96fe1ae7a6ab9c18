import { delay, HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { createToncenterReader } from "../../../src/adapters/chain/toncenter";
import type { AssetRef, IncomingTransfer } from "../../../src/adapters/chain/types";
import block from "../../fixtures/chain/toncenter-block-40000000.json";
import info from "../../fixtures/chain/toncenter-masterchain-info.json";
import page1 from "../../fixtures/chain/toncenter-transactions-p1.json";
import page2 from "../../fixtures/chain/toncenter-transactions-p2.json";
import { createMockNetwork, type MockNetwork } from "../../support/msw";

const BASE = "https://toncenter.test/api/v3";
const UQ = "UQAzWZa6nM5mJev91wGc7VCSfBoIsYRqKJpV78N8Add9-RKY";
const EQ = "EQAzWZa6nM5mJev91wGc7VCSfBoIsYRqKJpV78N8Add9-U9d";
const SENDER = "0:83DFD552E63729B472FCBCC8C45EBCC6691702558B68EC7527E1BA403A0F31A8";
const TON: AssetRef = { coin: "TON", network: "TON", contract: null, decimals: 9 };
const MC_HASH = "252fee67832b4ff00e33dcd3876ba8973f167db06d47f9d53983635658fa7c02";

const handlers = (limit = 6) => [
  http.get(`${BASE}/masterchainInfo`, () => HttpResponse.json(info)),
  http.get(`${BASE}/transactions`, ({ request }) => {
    const offset = new URL(request.url).searchParams.get("offset");
    return HttpResponse.json(
      offset === "0" ? page1 : offset === String(limit) ? page2 : { transactions: [] },
    );
  }),
  http.get(`${BASE}/blocks`, ({ request }) => {
    const seqno = Number(new URL(request.url).searchParams.get("seqno"));
    const root_hash = seqno === 40000000 ? block.blocks[0]!.root_hash : btoa(String(seqno).padEnd(32, "x"));
    return HttpResponse.json({ blocks: [{ ...block.blocks[0], seqno, root_hash }] });
  }),
];
const reader = (net: MockNetwork, extra: Record<string, unknown> = {}) =>
  createToncenterReader({ baseUrl: BASE, fetch: net.fetch, limit: 6, ...extra });

const deposit: IncomingTransfer = {
  txid: "8b53639f152c8fc6ef30802fde462ba0be9cf085f7580dc69efd72e002abbb35",
  index: 0,
  to: UQ,
  tag: "100001",
  amount: "5",
  blockHeight: 40000000,
  blockHash: MC_HASH,
  from: SENDER,
};

describe("toncenter reader", () => {
  it("tip: the last masterchain seqno", async () => {
    expect(await reader(createMockNetwork(...handlers())).tipHeight()).toBe(40000004);
  });

  it("credits an internal message with the order's comment; txid in hex, block = masterchain block", async () => {
    const net = createMockNetwork(...handlers());
    expect(await reader(net).incomingTransfers(TON, UQ, "100001")).toEqual([deposit]);
    expect(net.requests[0]?.url).toBe(`${BASE}/transactions?account=${UQ}&limit=6&offset=0&sort=desc`);
    expect(net.unhandled).toEqual([]);
  });

  it("the bounceable and non-bounceable spellings of the deposit wallet are one address", async () => {
    const [viaEq] = await reader(createMockNetwork(...handlers())).incomingTransfers(TON, EQ, "100001");
    expect(viaEq).toEqual({ ...deposit, to: EQ });
  });

  it("a wrong or missing comment reaches no order; the address-wide listing keeps it with its sender", async () => {
    const r = reader(createMockNetwork(...handlers()));
    expect(await r.incomingTransfers(TON, UQ, "100009")).toEqual([]);
    const all = await r.addressTransfers!(TON, UQ);
    expect(all.every((t) => t.blockHash === null)).toBe(true);
    expect(all.map((t) => [t.tag, t.amount, t.from])).toEqual([
      ["100001", "5", SENDER],
      ["999", "4", SENDER],
      [null, "4.1", SENDER],
      ["100005", "1.5", SENDER],
    ]);
  });

  it("an aborted transaction, a bounced message and an external message are never credited", async () => {
    const r = reader(createMockNetwork(...handlers()));
    expect(await r.incomingTransfers(TON, UQ, "100002")).toEqual([]);
    const all = await r.addressTransfers!(TON, UQ);
    expect(all.filter((t) => t.amount === "3" || t.amount === "1")).toEqual([]);
  });

  it("pages on by offset while pages are full, at most maxPages", async () => {
    const net = createMockNetwork(...handlers());
    const [t] = await reader(net).incomingTransfers(TON, UQ, "100005");
    expect(t).toMatchObject({ amount: "1.5", blockHeight: 39999990 });
    expect(net.requests.map((r) => new URL(r.url).searchParams.get("offset")).filter(Boolean)).toEqual([
      "0",
      "6",
    ]);
    expect(
      await reader(createMockNetwork(...handlers()), { maxPages: 1 }).incomingTransfers(TON, UQ, "100005"),
    ).toEqual([]);
  });

  it("no masterchain block yet (or the indexer lacks it): unconfirmed", async () => {
    const pending = { transactions: [{ ...page1.transactions[0], mc_block_seqno: null }] };
    const net = createMockNetwork(http.get(`${BASE}/transactions`, () => HttpResponse.json(pending)));
    const [t] = await reader(net).incomingTransfers(TON, UQ, "100001");
    expect(t).toMatchObject({ blockHeight: null, blockHash: null });
    const noBlock = createMockNetwork(
      http.get(`${BASE}/transactions`, () => HttpResponse.json({ transactions: [page1.transactions[0]] })),
      http.get(`${BASE}/blocks`, () => HttpResponse.json({ blocks: [] })),
    );
    expect((await reader(noBlock).incomingTransfers(TON, UQ, "100001"))[0]).toMatchObject({
      blockHeight: null,
    });
  });

  it("best chain: the masterchain block's root hash must still be the transfer's", async () => {
    const r = reader(createMockNetwork(...handlers()));
    expect(await r.isInBestChain(deposit)).toBe(true);
    expect(await r.isInBestChain({ ...deposit, blockHash: "00".repeat(32) })).toBe(false);
  });

  it("provider errors, timeouts, wrong shapes and the API key header", async () => {
    const keyed = createMockNetwork(...handlers());
    await reader(keyed, { apiKey: "secret-key" }).tipHeight();
    expect(keyed.requests[0]?.headers.get("x-api-key")).toBe("secret-key");
    const limited = createMockNetwork(
      http.get(`${BASE}/masterchainInfo`, () => new HttpResponse(null, { status: 429 })),
    );
    await expect(reader(limited).tipHeight()).rejects.toMatchObject({ kind: "http_status", status: 429 });
    const slow = createMockNetwork(
      http.get(`${BASE}/masterchainInfo`, async () => {
        await delay(500);
        return HttpResponse.json(info);
      }),
    );
    await expect(reader(slow, { timeoutMs: 50 }).tipHeight()).rejects.toMatchObject({ kind: "timeout" });
    const garbage = createMockNetwork(
      http.get(`${BASE}/transactions`, () => HttpResponse.json({ transactions: [{ hash: "x" }] })),
    );
    await expect(reader(garbage).incomingTransfers(TON, UQ, "1")).rejects.toMatchObject({
      kind: "invalid_body",
    });
    await expect(reader(garbage).incomingTransfers(TON, "not-a-ton-address", "1")).rejects.toThrow(TypeError);
  });
});
