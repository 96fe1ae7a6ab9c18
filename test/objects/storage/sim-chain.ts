import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createSimulatedReader } from "../../../src/adapters/chain/simulated";
import { type AssetRef, confirmations } from "../../../src/adapters/chain/types";
import { createSimulatedPayout } from "../../../src/adapters/payout/simulated";
import type { PayoutRequest } from "../../../src/adapters/payout/types";

// Storage is shared by the tests of this file, so each test drives its own chain (a fresh name).
let counter = 0;
function fresh(prefix = "T") {
  counter++;
  const network = `${prefix}${counter}`;
  return { network, chain: env.SIM_CHAIN.getByName(network) };
}

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * The error an RPC call rejects with. Awaited in a try block on purpose: `expect(rpc).rejects`
 * leaves the RPC promise's own rejection unhandled in the Workers pool.
 */
async function rpcError(call: () => Promise<unknown>): Promise<Error> {
  try {
    await call();
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected the call to fail");
}
const ADDR = "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu";
const native = { coin: "BTC", contract: null } as const;

describe("SimChain: blocks, mempool, confirmations", () => {
  it("a sent transfer is unconfirmed until a block is mined; then confirmations grow", async () => {
    const { chain } = fresh();
    expect(await chain.tipHeight()).toBe(0);
    const { txid } = await chain.send({ to: ADDR, amount: "0.015", coin: "BTC" });
    expect(txid).toMatch(HEX64);
    expect(await chain.status()).toMatchObject({ height: 0, mempool: 1 });

    const [pending] = await chain.incomingTransfers({ address: ADDR, tag: null, ...native });
    expect(pending).toEqual({
      txid,
      index: 0,
      to: ADDR,
      tag: null,
      amount: "0.015",
      blockHeight: null,
      blockHash: null,
    });
    expect(confirmations(pending!, await chain.tipHeight())).toBe(0);

    expect(await chain.mine(1)).toEqual({ height: 1 });
    const [mined] = await chain.incomingTransfers({ address: ADDR, tag: null, ...native });
    expect(mined?.blockHeight).toBe(1);
    expect(mined?.blockHash).toMatch(HEX64);
    expect(confirmations(mined!, 1)).toBe(1);
    expect(await chain.status()).toMatchObject({ height: 1, mempool: 0 });

    expect(await chain.mine(5)).toEqual({ height: 6 });
    expect(confirmations(mined!, await chain.tipHeight())).toBe(6);
    expect(await chain.isInBestChain(mined!)).toBe(true);
  });

  it("the first mined block takes the whole mempool; later blocks are empty", async () => {
    const { chain } = fresh();
    await chain.send({ to: ADDR, amount: "1", coin: "BTC" });
    await chain.send({ to: ADDR, amount: 2, coin: "BTC" });
    await chain.mine(3);
    await chain.send({ to: ADDR, amount: "3.50", coin: "BTC" });
    const list = await chain.incomingTransfers({ address: ADDR, tag: null, ...native });
    expect(list.map((t) => [t.amount, t.blockHeight])).toEqual([
      ["1", 1],
      ["2", 1],
      ["3.5", null],
    ]);
    expect(list[0]?.blockHash).toBe(list[1]?.blockHash);
  });

  it("rejects bad input with RangeError and changes nothing", async () => {
    const { chain } = fresh();
    for (const amount of ["0", "-1", "abc", "", "1e999", -2]) {
      expect(await rpcError(() => chain.send({ to: ADDR, amount }))).toBeInstanceOf(RangeError);
    }
    expect((await rpcError(() => chain.send({ to: " ", amount: "1" }))).message).toMatch(/to must be/);
    for (const n of [0, -1, 1.5, 1001])
      expect(await rpcError(() => chain.mine(n))).toBeInstanceOf(RangeError);
    expect((await rpcError(() => chain.reorg(1))).message).toMatch(/exceeds the chain height 0/);
    expect(await chain.status()).toMatchObject({ height: 0, mempool: 0 });
  });

  it("stores the network (the object's name) on each transfer", async () => {
    const { network, chain } = fresh("NET");
    await chain.send({ to: ADDR, amount: "1" });
    const rows = await runInDurableObject(chain, (_instance, state) =>
      state.storage.sql
        .exec<{ network: string; coin: string }>("SELECT network, coin FROM transfers")
        .toArray(),
    );
    // Without a coin the network code stands in for it (the operator route always resolves one).
    expect(rows).toEqual([{ network, coin: network }]);
  });
});

describe("SimChain: reorgs and drops", () => {
  it("a reorg removes the last blocks and their transfers; the old block is no longer best", async () => {
    const { chain } = fresh();
    const a = await chain.send({ to: ADDR, amount: "1", coin: "BTC" });
    await chain.mine(1);
    const b = await chain.send({ to: ADDR, amount: "2", coin: "BTC" });
    await chain.mine(2);
    const before = await chain.incomingTransfers({ address: ADDR, tag: null, ...native });
    const [ta, tb] = before;
    expect([ta?.txid, ta?.blockHeight, tb?.txid, tb?.blockHeight]).toEqual([a.txid, 1, b.txid, 2]);

    expect(await chain.reorg(2)).toEqual({ height: 1 });
    expect(await chain.status()).toMatchObject({ height: 1, mempool: 0 });
    const after = await chain.incomingTransfers({ address: ADDR, tag: null, ...native });
    expect(after.map((t) => t.txid)).toEqual([a.txid]);
    expect(await chain.isInBestChain(tb!)).toBe(false);
    expect(await chain.isInBestChain(ta!)).toBe(true);

    // New blocks at the old heights carry new hashes: a stale (height, hash) never matches again.
    await chain.mine(3);
    expect(await chain.isInBestChain(tb!)).toBe(false);
    const oldBlock1 = ta!.blockHash;
    expect(await chain.reorg(4)).toEqual({ height: 0 });
    expect(await chain.incomingTransfers({ address: ADDR, tag: null, ...native })).toEqual([]);
    await chain.mine(1);
    expect(await chain.isInBestChain({ ...ta!, blockHash: oldBlock1 })).toBe(false);
  });

  it("a reorg leaves the mempool alone and refuses to go below genesis", async () => {
    const { chain } = fresh();
    await chain.mine(2);
    const pending = await chain.send({ to: ADDR, amount: "1", coin: "BTC" });
    expect(await rpcError(() => chain.reorg(3))).toBeInstanceOf(RangeError);
    expect(await rpcError(() => chain.reorg(0))).toBeInstanceOf(RangeError);
    expect(await chain.reorg(2)).toEqual({ height: 0 });
    const [t] = await chain.incomingTransfers({ address: ADDR, tag: null, ...native });
    expect(t?.txid).toBe(pending.txid);
    expect(await chain.isInBestChain(t!)).toBe(true);
  });

  it("drop removes only unconfirmed transfers", async () => {
    const { chain } = fresh();
    const confirmed = await chain.send({ to: ADDR, amount: "1", coin: "BTC" });
    await chain.mine(1);
    const pending = await chain.send({ to: ADDR, amount: "2", coin: "BTC" });
    const [, t] = await chain.incomingTransfers({ address: ADDR, tag: null, ...native });

    expect(await chain.drop(confirmed.txid)).toBe(false);
    expect(await chain.drop("0".repeat(64))).toBe(false);
    expect(await chain.drop(pending.txid)).toBe(true);
    expect(await chain.drop(pending.txid)).toBe(false);
    expect(await chain.isInBestChain(t!)).toBe(false);
    const left = await chain.incomingTransfers({ address: ADDR, tag: null, ...native });
    expect(left.map((x) => x.txid)).toEqual([confirmed.txid]);
    expect(await chain.status()).toMatchObject({ height: 1, mempool: 0 });
  });
});

describe("SimChain: incoming transfers are filtered by address, tag and asset", () => {
  it("matches address, tag (null only matches untagged) and coin + contract", async () => {
    const { chain } = fresh();
    const usdt = "0xdAC17F958D2ee523a2206206994597C13D831ec7";
    const addr = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94";
    const eth = await chain.send({ to: addr, amount: "1", coin: "ETH" });
    const token = await chain.send({ to: addr, amount: "25", coin: "USDT", contract: usdt });
    await chain.send({ to: "0x0000000000000000000000000000000000000001", amount: "1", coin: "ETH" });
    await chain.send({
      to: addr,
      amount: "5",
      coin: "USDT",
      contract: "0x1111111111111111111111111111111111111111",
    });

    const ethOnly = await chain.incomingTransfers({ address: addr, tag: null, coin: "ETH", contract: null });
    expect(ethOnly.map((t) => t.txid)).toEqual([eth.txid]);
    const usdtOnly = await chain.incomingTransfers({
      address: addr,
      tag: null,
      coin: "USDT",
      contract: usdt,
    });
    expect(usdtOnly.map((t) => [t.txid, t.amount])).toEqual([[token.txid, "25"]]);
    // EVM addresses compare case-insensitively, as on chain.
    const lower = await chain.incomingTransfers({
      address: addr.toLowerCase(),
      tag: null,
      coin: "ETH",
      contract: null,
    });
    expect(lower.map((t) => t.txid)).toEqual([eth.txid]);

    const xrp = "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh";
    const tagged = await chain.send({ to: xrp, amount: "20", tag: "1001", coin: "XRP" });
    await chain.send({ to: xrp, amount: "20", tag: "1002", coin: "XRP" });
    const untagged = await chain.send({ to: xrp, amount: "20", coin: "XRP" });
    const q = { address: xrp, coin: "XRP", contract: null };
    expect((await chain.incomingTransfers({ ...q, tag: "1001" })).map((t) => t.txid)).toEqual([tagged.txid]);
    expect((await chain.incomingTransfers({ ...q, tag: null })).map((t) => t.txid)).toEqual([untagged.txid]);
    // Base58 addresses are case-sensitive.
    expect(await chain.incomingTransfers({ ...q, address: xrp.toLowerCase(), tag: null })).toEqual([]);
  });
});

describe("SimChain: payouts exactly once per idempotency key", () => {
  const payout = (key: string, amount = "0.25") => ({
    idempotencyKey: key,
    orderId: "11111111-1111-4111-8111-111111111111",
    kind: "payout" as const,
    to: ADDR,
    tag: null,
    amount,
    coin: "BTC",
    contract: null,
  });

  it("many concurrent sends with one key record exactly one outgoing transfer", async () => {
    const { chain } = fresh();
    const results = await Promise.all(Array.from({ length: 40 }, () => chain.sendPayout(payout("order-1"))));
    const txids = new Set(results.map((r) => r.txid));
    expect(txids.size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const [txid] = [...txids];

    // A retry with a different body still returns the first payout: the key decides.
    expect(await chain.sendPayout(payout("order-1", "99"))).toEqual({ txid, created: false });
    expect(await chain.findPayout("order-1")).toEqual({ txid });
    expect(await chain.findPayout("order-2")).toBeNull();

    const out = await chain.outgoing();
    expect(out).toEqual([
      {
        txid,
        order_id: "11111111-1111-4111-8111-111111111111",
        kind: "payout",
        to: ADDR,
        tag: null,
        amount: "0.25",
        coin: "BTC",
        contract: null,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        block_height: null,
      },
    ]);
    // Payouts are not deposits to anybody we watch, and they are mined like any transfer.
    expect(await chain.incomingTransfers({ address: ADDR, tag: null, ...native })).toEqual([]);
    await chain.mine(1);
    expect((await chain.outgoing())[0]?.block_height).toBe(1);
  });

  it("a refund and a payout of the same order are separate keys; bad payouts are refused", async () => {
    const { chain } = fresh();
    const p = await chain.sendPayout(payout("o:payout"));
    const r = await chain.sendPayout({ ...payout("o:refund"), kind: "refund" });
    expect(p.txid).not.toBe(r.txid);
    expect((await chain.outgoing()).map((o) => o.kind)).toEqual(["payout", "refund"]);
    expect(await rpcError(() => chain.sendPayout(payout("bad", "0")))).toBeInstanceOf(RangeError);
    expect(await rpcError(() => chain.sendPayout(payout("")))).toBeInstanceOf(RangeError);
    expect(await chain.findPayout("bad")).toBeNull();
  });

  it("payouts survive reorgs (back to the mempool) and cannot be dropped", async () => {
    const { chain } = fresh();
    const { txid } = await chain.sendPayout(payout("keep"));
    expect(await chain.drop(txid)).toBe(false);
    await chain.mine(2);
    await chain.reorg(2);
    expect(await chain.outgoing()).toEqual([expect.objectContaining({ txid, block_height: null })]);
    expect(await chain.sendPayout(payout("keep"))).toEqual({ txid, created: false });
  });
});

describe("adapters over SimChain", () => {
  it("createSimulatedReader reads the network's chain (network code in any case)", async () => {
    const network = `RD${Date.now()}`;
    const chain = env.SIM_CHAIN.getByName(network);
    const reader = createSimulatedReader(env, network.toLowerCase());
    const asset: AssetRef = { coin: "BTC", network, contract: null, decimals: 8 };
    const { txid } = await chain.send({ to: ADDR, amount: "0.5", coin: "BTC" });
    await chain.mine(2);
    expect(await reader.tipHeight()).toBe(2);
    const [t] = await reader.incomingTransfers(asset, ADDR, null);
    expect(t).toMatchObject({ txid, amount: "0.5", blockHeight: 1 });
    expect(await reader.isInBestChain(t!)).toBe(true);
    await chain.reorg(2);
    expect(await reader.isInBestChain(t!)).toBe(false);
    expect(await reader.incomingTransfers(asset, ADDR, null)).toEqual([]);
  });

  it("createSimulatedPayout sends once per key and answers lookups", async () => {
    const network = `PO${Date.now()}`;
    const gateway = createSimulatedPayout(env);
    const req: PayoutRequest = {
      idempotencyKey: "22222222-2222-4222-8222-222222222222:payout",
      orderId: "22222222-2222-4222-8222-222222222222",
      kind: "payout",
      network,
      coin: "XRP",
      contract: null,
      to: "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh",
      tag: "42",
      amount: "12.5",
    };
    expect(await gateway.lookup(req)).toEqual({ status: "unknown_key" });
    const first = await gateway.send(req);
    expect(first).toEqual({ status: "sent", txid: expect.stringMatching(HEX64) });
    const again = await Promise.all([gateway.send(req), gateway.send(req)]);
    expect(again).toEqual([first, first]);
    if (first.status !== "sent") throw new Error("unreachable");
    expect(await gateway.lookup(req)).toEqual({ status: "sent", txid: first.txid });

    const out = await env.SIM_CHAIN.getByName(network).outgoing();
    expect(out).toEqual([
      expect.objectContaining({ txid: first.txid, tag: "42", amount: "12.5", kind: "payout" }),
    ]);

    const bad = await gateway.send({ ...req, idempotencyKey: "other", amount: "-1" });
    expect(bad).toMatchObject({ status: "refused" });
  });
});
