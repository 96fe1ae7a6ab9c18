import { delay, HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { createHorizonReader } from "../../../src/adapters/chain/horizon";
import type { AssetRef, IncomingTransfer } from "../../../src/adapters/chain/types";
import ledger from "../../fixtures/chain/horizon-ledger-52000000.json";
import page1 from "../../fixtures/chain/horizon-payments-p1.json";
import page2 from "../../fixtures/chain/horizon-payments-p2.json";
import root from "../../fixtures/chain/horizon-root.json";
import { createMockNetwork, type MockNetwork } from "../../support/msw";

const BASE = "https://horizon.test";
const ADDRESS = "GB3JDWCQJCWMJ3IILWIGDTQJJC5567PGVEVXSCVPEQOTDN64VJBDQBYX";
const SENDER = "GCUB7JL4APK7LKJ6MZF7Q2JTLHAGNBIUA7XIXD5SQTG52GQ2DAT6XZMK";
const XLM: AssetRef = { coin: "XLM", network: "XLM", contract: null, decimals: 7 };
const CURSOR = page1._embedded.records[4]!.paging_token;

const urls = (net: MockNetwork) => net.requests.map((r) => r.url);
const handlers = [
  http.get(`${BASE}/`, () => HttpResponse.json(root)),
  http.get(`${BASE}/accounts/${ADDRESS}/payments`, ({ request }) =>
    HttpResponse.json(new URL(request.url).searchParams.get("cursor") === CURSOR ? page2 : page1),
  ),
  http.get(`${BASE}/ledgers/:seq`, ({ params }) =>
    HttpResponse.json({
      ...ledger,
      sequence: Number(params.seq),
      hash: Number(params.seq).toString(16).padStart(64, "0"),
    }),
  ),
];
const reader = (net: MockNetwork, extra: Record<string, unknown> = {}) =>
  createHorizonReader({ baseUrl: BASE, fetch: net.fetch, limit: 5, ...extra });
const hashOf = (seq: number) => seq.toString(16).padStart(64, "0");

const deposit: IncomingTransfer = {
  txid: "a1".repeat(32),
  index: 1,
  to: ADDRESS,
  tag: "100001",
  amount: "25",
  blockHeight: 52000000,
  blockHash: hashOf(52000000),
  from: SENDER,
};

describe("horizon reader", () => {
  it("tip: the newest ledger Horizon has ingested", async () => {
    expect(await reader(createMockNetwork(...handlers)).tipHeight()).toBe(52000005);
  });

  it("credits a native payment whose memo id is the order's tag", async () => {
    const net = createMockNetwork(...handlers);
    expect(await reader(net).incomingTransfers(XLM, ADDRESS, "100001")).toEqual([deposit]);
    // Both pages are listed; only the order's own transfer costs a ledger lookup.
    expect(urls(net)).toEqual([
      `${BASE}/accounts/${ADDRESS}/payments?join=transactions&order=desc&limit=5`,
      `${BASE}/accounts/${ADDRESS}/payments?join=transactions&order=desc&limit=5&cursor=${CURSOR}`,
      `${BASE}/ledgers/52000000`,
    ]);
    expect(net.unhandled).toEqual([]);
  });

  it("a text memo of the same digits matches too; the operation index tells operations apart", async () => {
    const [t] = await reader(createMockNetwork(...handlers)).incomingTransfers(XLM, ADDRESS, "100002");
    expect(t).toMatchObject({ txid: "b2".repeat(32), index: 2, amount: "10.5", tag: "100002" });
  });

  it("a wrong or missing memo reaches no order; the address-wide listing keeps it with its sender", async () => {
    const r = reader(createMockNetwork(...handlers));
    expect(await r.incomingTransfers(XLM, ADDRESS, "100009")).toEqual([]);
    const all = await r.addressTransfers!(XLM, ADDRESS);
    // The address-wide listing looks up no ledger: a busy address stays cheap to read.
    expect(all.every((t) => t.blockHash === null && t.blockHeight !== null)).toBe(true);
    expect(all.map((t) => [t.tag, t.amount, t.from])).toEqual([
      ["100001", "25", SENDER],
      ["100002", "10.5", SENDER],
      ["999", "40", SENDER],
      [null, "41", SENDER],
      ["100005", "12", SENDER],
    ]);
  });

  it("pages on with the last paging_token while pages are full; a path payment credits what arrived", async () => {
    const net = createMockNetwork(...handlers);
    const [t] = await reader(net).incomingTransfers(XLM, ADDRESS, "100005");
    expect(t).toMatchObject({ txid: "f6".repeat(32), amount: "12", blockHeight: 51999990 });
    expect(urls(net)).toContain(
      `${BASE}/accounts/${ADDRESS}/payments?join=transactions&order=desc&limit=5&cursor=${CURSOR}`,
    );
    const one = createMockNetwork(...handlers);
    expect(await reader(one, { maxPages: 1 }).incomingTransfers(XLM, ADDRESS, "100005")).toEqual([]);
  });

  it("failed transactions and other assets are never credited", async () => {
    const r = reader(createMockNetwork(...handlers));
    expect(await r.incomingTransfers(XLM, ADDRESS, "100003")).toEqual([]);
    const all = await r.addressTransfers!(XLM, ADDRESS);
    expect(all.filter((t) => t.amount === "100" || t.amount === "30")).toEqual([]);
  });

  it("best chain: the ledger's hash must still be the transfer's", async () => {
    const r = reader(createMockNetwork(...handlers));
    expect(await r.isInBestChain(deposit)).toBe(true);
    expect(await r.isInBestChain({ ...deposit, blockHash: "ff".repeat(32) })).toBe(false);
  });

  it("an unknown account (404) has received nothing; other errors fail loudly", async () => {
    const missing = createMockNetwork(
      http.get(`${BASE}/accounts/${ADDRESS}/payments`, () =>
        HttpResponse.json(
          { type: "https://stellar.org/horizon-errors/not_found", title: "Resource Missing", status: 404 },
          { status: 404 },
        ),
      ),
    );
    expect(await reader(missing).incomingTransfers(XLM, ADDRESS, "100001")).toEqual([]);
    const limited = createMockNetwork(http.get(`${BASE}/`, () => new HttpResponse(null, { status: 429 })));
    await expect(reader(limited).tipHeight()).rejects.toMatchObject({ kind: "http_status", status: 429 });
    const slow = createMockNetwork(
      http.get(`${BASE}/`, async () => {
        await delay(500);
        return HttpResponse.json(root);
      }),
    );
    await expect(reader(slow, { timeoutMs: 50 }).tipHeight()).rejects.toMatchObject({ kind: "timeout" });
    const bad = { _embedded: { records: [{ ...page1._embedded.records[0], amount: "-1" }] } };
    const garbage = createMockNetwork(
      http.get(`${BASE}/accounts/${ADDRESS}/payments`, () => HttpResponse.json(bad)),
    );
    await expect(reader(garbage).incomingTransfers(XLM, ADDRESS, "100001")).rejects.toMatchObject({
      kind: "invalid_body",
    });
    await expect(reader(garbage).incomingTransfers(XLM, "GNOTANACCOUNT", "1")).rejects.toThrow(TypeError);
  });
});
