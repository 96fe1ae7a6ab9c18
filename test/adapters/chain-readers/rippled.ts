import { delay, HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { createRippledReader } from "../../../src/adapters/chain/rippled";
import type { AssetRef, IncomingTransfer } from "../../../src/adapters/chain/types";
import actNotFound from "../../fixtures/chain/rippled-account-tx-actnotfound.json";
import page1 from "../../fixtures/chain/rippled-account-tx-p1.json";
import page2 from "../../fixtures/chain/rippled-account-tx-p2.json";
import ledger from "../../fixtures/chain/rippled-ledger-90000000.json";
import { createMockNetwork, type MockNetwork } from "../../support/msw";

const URL_ = "https://rippled.test/";
const ADDRESS = "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh";
const SENDER = "rPT1Sjq2YGrBMTttX4GZHjKu9dyfzbpAYe";
const XRP: AssetRef = { coin: "XRP", network: "XRP", contract: null, decimals: 6 };
const LEDGER_HASH = "F8A87917A06D5C5A1E6D4B4E3B5C0D7F1A2B3C4D5E6F708192A3B4C5D6E7F809";

interface RpcBody {
  method: string;
  params: Array<Record<string, unknown>>;
}
const bodies = (net: MockNetwork) => net.requests.map((r) => JSON.parse(r.body) as RpcBody);

/** account_tx pages by marker, `ledger` by index. */
function rippled(overrides: Partial<Record<string, (p: Record<string, unknown>) => unknown>> = {}) {
  return http.post(URL_, async ({ request }) => {
    const { method, params } = (await request.json()) as RpcBody;
    const p = params[0] ?? {};
    const override = overrides[method] as
      | ((p: Record<string, unknown>) => Record<string, unknown>)
      | undefined;
    if (override) return HttpResponse.json(override(p));
    if (method === "account_tx") return HttpResponse.json(p.marker ? page2 : page1);
    if (method === "ledger") {
      if (p.ledger_index === "validated" || p.ledger_index === 90000000) return HttpResponse.json(ledger);
    }
    return HttpResponse.json({ result: { status: "error", error: "unknownCmd", error_code: 32 } });
  });
}
const reader = (net: MockNetwork, extra: Record<string, unknown> = {}) =>
  createRippledReader({ baseUrl: URL_, fetch: net.fetch, ...extra });

const deposit: IncomingTransfer = {
  txid: "C3F2A0E2B0F3D8E1A9C1B7D6E5F4A3B2C1D0E9F8A7B6C5D4E3F2A1B0C9D8E7F6",
  index: 0,
  to: ADDRESS,
  tag: "100001",
  amount: "25",
  blockHeight: 90000000,
  blockHash: LEDGER_HASH,
  from: SENDER,
};

describe("rippled reader", () => {
  it("tip: the newest validated ledger", async () => {
    const net = createMockNetwork(rippled());
    expect(await reader(net).tipHeight()).toBe(90000000);
    expect(bodies(net)).toEqual([{ method: "ledger", params: [{ ledger_index: "validated" }] }]);
  });

  it("credits a tesSUCCESS payment with the order's destination tag, validated ledger = 1 confirmation", async () => {
    const net = createMockNetwork(rippled());
    expect(await reader(net).incomingTransfers(XRP, ADDRESS, "100001")).toEqual([deposit]);
    expect(bodies(net)[0]).toEqual({
      method: "account_tx",
      params: [
        {
          api_version: 2,
          account: ADDRESS,
          ledger_index_min: -1,
          ledger_index_max: -1,
          forward: false,
          limit: 200,
        },
      ],
    });
    expect(net.unhandled).toEqual([]);
  });

  it("partial payment: credits delivered_amount (0.001), never Amount/DeliverMax (500000)", async () => {
    const net = createMockNetwork(rippled());
    const [t] = await reader(net).incomingTransfers(XRP, ADDRESS, "100002");
    expect(t).toMatchObject({ amount: "0.001", tag: "100002" });
  });

  it("a failed payment (tec…) and an issued-currency payment are never credited", async () => {
    const net = createMockNetwork(rippled());
    const r = reader(net);
    expect(await r.incomingTransfers(XRP, ADDRESS, "100003")).toEqual([]);
    expect(await r.incomingTransfers(XRP, ADDRESS, "100004")).toEqual([]);
  });

  it("a wrong or missing tag reaches no order, but the address-wide listing shows it with its sender", async () => {
    const net = createMockNetwork(rippled());
    const r = reader(net);
    expect(await r.incomingTransfers(XRP, ADDRESS, "100009")).toEqual([]);
    const all = await r.addressTransfers!(XRP, ADDRESS);
    expect(all.map((t) => [t.tag, t.amount, t.from])).toEqual([
      ["100001", "25", SENDER],
      ["100002", "0.001", SENDER],
      ["999", "40", SENDER],
      [null, "41", SENDER],
      ["100005", "12", SENDER],
    ]);
    // Only the untagged one for "no tag"; the outgoing payment is never incoming.
    expect((await r.incomingTransfers(XRP, ADDRESS, null)).map((t) => t.amount)).toEqual(["41"]);
  });

  it("follows the marker to the next page (v1 entries: the ledger hash is looked up once)", async () => {
    const v1 = {
      result: {
        ...page2.result,
        transactions: page2.result.transactions.map(
          ({ tx_json, hash, ledger_index, ledger_hash: _, ...rest }) => ({
            ...rest,
            tx: { ...tx_json, hash, ledger_index },
          }),
        ),
      },
    };
    const otherLedger = {
      result: { ...ledger.result, ledger_index: 89999990, ledger_hash: "AB".repeat(32) },
    };
    const net = createMockNetwork(
      rippled({
        account_tx: (p) => (p.marker ? v1 : page1),
        ledger: (p) => (p.ledger_index === 89999990 ? otherLedger : ledger),
      }),
    );
    const [t] = await reader(net).incomingTransfers(XRP, ADDRESS, "100005");
    expect(t).toMatchObject({ amount: "12", blockHeight: 89999990, blockHash: "AB".repeat(32) });
    const calls = bodies(net);
    expect(calls.map((c) => c.method)).toEqual(["account_tx", "account_tx", "ledger"]);
    expect(calls[1]?.params[0]?.marker).toEqual({ ledger: 89999990, seq: 3 });
    const one = createMockNetwork(rippled());
    expect(await reader(one, { maxPages: 1 }).incomingTransfers(XRP, ADDRESS, "100005")).toEqual([]);
    expect(one.requests).toHaveLength(1);
  });

  it("an entry not yet validated is unconfirmed", async () => {
    const pending = {
      result: { ...page2.result, transactions: [{ ...page2.result.transactions[1], validated: false }] },
    };
    const net = createMockNetwork(rippled({ account_tx: () => pending }));
    const [t] = await reader(net).incomingTransfers(XRP, ADDRESS, "100005");
    expect(t).toMatchObject({ blockHeight: null, blockHash: null });
  });

  it("an account that does not exist yet has received nothing", async () => {
    const net = createMockNetwork(rippled({ account_tx: () => actNotFound }));
    expect(await reader(net).incomingTransfers(XRP, ADDRESS, "100001")).toEqual([]);
  });

  it("best chain: the ledger at that index must have the transfer's hash", async () => {
    const net = createMockNetwork(rippled());
    const r = reader(net);
    expect(await r.isInBestChain(deposit)).toBe(true);
    expect(await r.isInBestChain({ ...deposit, blockHash: "CD".repeat(32) })).toBe(false);
    expect(await r.isInBestChain({ ...deposit, blockHeight: null, blockHash: null })).toBe(true);
  });

  it("provider errors: rpc errors, HTTP status, timeout, wrong shapes, bad addresses", async () => {
    const err = createMockNetwork(
      rippled({ account_tx: () => ({ result: { status: "error", error: "tooBusy", error_code: 9 } }) }),
    );
    await expect(reader(err).incomingTransfers(XRP, ADDRESS, "1")).rejects.toMatchObject({
      kind: "rpc_error",
      rpcCode: 9,
    });
    const down = createMockNetwork(http.post(URL_, () => new HttpResponse(null, { status: 502 })));
    await expect(reader(down).tipHeight()).rejects.toMatchObject({ kind: "http_status", status: 502 });
    const slow = createMockNetwork(
      http.post(URL_, async () => {
        await delay(500);
        return HttpResponse.json(ledger);
      }),
    );
    await expect(reader(slow, { timeoutMs: 50 }).tipHeight()).rejects.toMatchObject({ kind: "timeout" });
    const garbage = createMockNetwork(rippled({ account_tx: () => ({ result: { transactions: [{}] } }) }));
    await expect(reader(garbage).incomingTransfers(XRP, ADDRESS, "1")).rejects.toMatchObject({
      kind: "invalid_body",
    });
    await expect(reader(garbage).incomingTransfers(XRP, "rNotAnAddress", "1")).rejects.toThrow(TypeError);
    expect(await reader(garbage).incomingTransfers({ ...XRP, contract: "USD" }, ADDRESS, "1")).toEqual([]);
  });
});
