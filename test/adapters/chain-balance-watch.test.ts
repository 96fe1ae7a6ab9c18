/**
 * The shared reads' balance watch (src/adapters/chain/balance-watch.ts through shared-reads.ts) on
 * Solana: a fake JSON-RPC node over MSW whose accounts, signatures and transactions follow the
 * deposits the test makes, on a clock the test moves. Provider calls are counted per JSON-RPC
 * method (a batch of ten calls is ten), and every deposit is compared with what the address's own
 * unshared listing says.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createSharedReader } from "../../src/adapters/chain/shared-reads";
import { createSolanaReader } from "../../src/adapters/chain/solana-rpc";
import type { AssetRef, ChainReader, IncomingTransfer } from "../../src/adapters/chain/types";
import { solanaKey, solanaNode, USDC_MINT as USDC } from "../support/solana-node";

const RPC = "https://solana.watch.test/";
const SOL: AssetRef = { coin: "SOL", network: "SOL", contract: null, decimals: 9 };
const USDC_SOL: AssetRef = { coin: "USDC", network: "SOL", contract: USDC, decimals: 6 };
const SETTINGS = { tipMs: 5_000, addressMs: 180_000 };
const key = solanaKey;
const wallet = (i: number) => key(7, i);

// Thousands of requests in a few real seconds: signals without the 10 s timers (see chain-block-scan.test.ts).
beforeEach(() => {
  vi.spyOn(AbortSignal, "timeout").mockImplementation(() => new AbortController().signal);
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** The fake node, a clock, the shared reads over it, and the unshared reader as the truth. */
function watching() {
  const node = solanaNode(RPC);
  let t = 1_000_000;
  const clock = { now: () => t, advance: (ms: number) => (t += ms) };
  const shared = createSharedReader(
    createSolanaReader({ baseUrl: RPC, fetch: node.net.fetch }),
    SETTINGS,
    clock.now,
  );
  const direct: ChainReader = createSolanaReader({ baseUrl: RPC, fetch: node.net.fetch });
  return { node, clock, shared, direct };
}

const listings = (calls: ReadonlyArray<readonly [string, unknown]>, account?: string) =>
  calls.filter(
    ([m, first]) => m === "getSignaturesForAddress" && (account === undefined || first === account),
  ).length;

describe("balance watch (Solana): deposits", () => {
  it("SOL and USDC deposits are found, unconfirmed then finalized, as each address's own listing says", async () => {
    const { node, clock, shared, direct } = watching();
    const sol = Array.from({ length: 20 }, (_, i) => wallet(i));
    const usdc = Array.from({ length: 20 }, (_, i) => wallet(100 + i));
    const poll = () =>
      Promise.all([
        ...sol.map((a) => shared.incomingTransfers(SOL, a, null)),
        ...usdc.map((a) => shared.incomingTransfers(USDC_SOL, a, null)),
      ]);
    const truth = () =>
      Promise.all([
        ...sol.map((a) => direct.incomingTransfers(SOL, a, null)),
        ...usdc.map((a) => direct.incomingTransfers(USDC_SOL, a, null)),
      ]);
    expect((await poll()).flat()).toEqual([]);

    const paid = {
      sol: node.paySol(sol[3]!, 1_500_000_000),
      twice: [node.paySol(sol[7]!, 250_000_000), node.paySol(sol[7]!, 1)],
      usdc: node.payUsdc(usdc[5]!, 250_000_000n), // creates the associated token account
      more: node.payUsdc(usdc[9]!, 1n),
    };
    clock.advance(SETTINGS.tipMs);
    const seen = await poll();
    expect(seen[3]).toEqual([
      { txid: paid.sol, index: 0, to: sol[3], tag: null, amount: "1.5", blockHeight: null, blockHash: null },
    ]);
    expect(seen[7]!.map((t) => t.amount).sort()).toEqual(["0.000000001", "0.25"]);
    expect(seen[20 + 5]).toEqual([
      {
        txid: paid.usdc,
        index: 0,
        to: usdc[5],
        tag: null,
        amount: "250",
        blockHeight: null,
        blockHash: null,
      },
    ]);
    expect(seen[20 + 9]).toMatchObject([{ txid: paid.more, amount: "0.000001", to: usdc[9] }]);
    expect(seen).toEqual(await truth());

    // Finalized: no balance moves, yet the unconfirmed deposits are listed again once the tip moved.
    node.finalize();
    clock.advance(SETTINGS.tipMs);
    const done = await poll();
    expect(done[3]).toEqual([
      {
        txid: paid.sol,
        index: 0,
        to: sol[3],
        tag: null,
        amount: "1.5",
        blockHeight: 300_000_001,
        blockHash: node.blockhash(300_000_001),
      },
    ]);
    expect(done).toEqual(await truth());
    expect(done.filter((l) => l.length > 0)).toHaveLength(4);
  });

  it("an unchanged balance causes no listing; a changed one is listed once", async () => {
    const { node, clock, shared } = watching();
    const addresses = Array.from({ length: 10 }, (_, i) => wallet(i));
    node.paySol(addresses[4]!, 7); // an older deposit: the balance is not where a changed one starts
    node.finalize();
    const poll = () => Promise.all(addresses.map((a) => shared.incomingTransfers(SOL, a, null)));
    await poll();
    expect(listings(node.calls())).toBe(10); // each address's first listing
    const first = node.calls().length;

    // Ten minutes of polls every 15 s: the balances are read, nothing is listed.
    for (let i = 0; i < 40; i++) {
      clock.advance(15_000);
      await poll();
    }
    const quiet = node.calls().slice(first);
    expect(listings(quiet)).toBe(0);
    expect(quiet.filter(([m]) => m === "getMultipleAccounts").length).toBeGreaterThanOrEqual(40);

    // One deposit, finalized at once: that address is listed once (signatures, its transaction, its block).
    const txid = node.paySol(addresses[2]!, 1_000_000_000);
    node.finalize();
    const before = node.calls().length;
    let found: IncomingTransfer[] = [];
    for (let i = 0; i < 8; i++) {
      clock.advance(15_000);
      found = (await poll())[2]!;
    }
    const after = node.calls().slice(before);
    expect(found).toMatchObject([{ txid, amount: "1", blockHeight: 300_000_002 }]);
    expect(listings(after)).toBe(1);
    expect(listings(after, addresses[2])).toBe(1);
    expect(after.filter(([m]) => m === "getTransaction")).toEqual([["getTransaction", txid]]);
  });

  it("a failed balance read fails the orders' reads (never 'no deposit'), new addresses' too, until it reads again", async () => {
    const { node, clock, shared } = watching();
    const addresses = [wallet(1), wallet(2)];
    await Promise.all(addresses.map((a) => shared.incomingTransfers(SOL, a, null)));
    const txid = node.paySol(addresses[1]!, 5_000_000_000);
    node.chain.accountsError = { code: -32005, message: "Node is behind" };
    clock.advance(SETTINGS.tipMs);
    for (const a of [...addresses, wallet(3)])
      await expect(shared.incomingTransfers(SOL, a, null)).rejects.toMatchObject({ kind: "rpc_error" });
    node.chain.accountsError = null;
    expect(await shared.incomingTransfers(SOL, addresses[1]!, null)).toMatchObject([{ txid, amount: "5" }]);
    expect(await shared.incomingTransfers(SOL, wallet(3), null)).toEqual([]);
  });
});

describe("balance watch (Solana): 10,000 watched addresses", () => {
  it("polling every minute for 30 simulated minutes, the provider sees a few calls a second and every deposit is found, as its own listing says", async () => {
    const { node, clock, shared, direct } = watching();
    const N = 10_000;
    const addresses = Array.from({ length: N }, (_, i) => wallet(i));
    const poll = async () => {
      const lists: IncomingTransfer[][] = [];
      for (let i = 0; i < addresses.length; i += 500)
        lists.push(
          ...(await Promise.all(
            addresses.slice(i, i + 500).map((a) => shared.incomingTransfers(SOL, a, null)),
          )),
        );
      return lists;
    };

    // The first poll reads each new address's balance and lists it once: a fixed cost per order.
    await poll();
    expect(listings(node.calls())).toBe(N);
    const fixed = node.calls().length;
    const fixedHttp = node.net.requests.length;

    const paid = new Map<number, { txid: string; minute: number }>();
    const plan = new Map<number, () => void>([
      [10, () => paid.set(17, { txid: node.paySol(addresses[17]!, 1_500_000_000), minute: 10 })],
      [11, () => paid.set(9_999, { txid: node.paySol(addresses[9_999]!, 2), minute: 11 })],
      [15, () => addresses.push(wallet(N))],
      [16, () => paid.set(N, { txid: node.paySol(wallet(N), 777), minute: 16 })],
      [20, () => paid.set(5_555, { txid: node.paySol(addresses[5_555]!, 123_456_789), minute: 20 })],
    ]);
    const seenAt = new Map<number, number>();
    const minutes = 30;
    for (let m = 1; m <= minutes; m++) {
      clock.advance(60_000);
      node.finalize(); // last minute's deposits are final by now
      plan.get(m)?.();
      const lists = await poll();
      for (const [i, list] of lists.entries())
        if (list.length > 0) {
          expect(paid.has(i), `${addresses[i]} was not paid`).toBe(true);
          seenAt.set(i, seenAt.get(i) ?? m);
        }
    }

    // Each deposit was seen within a cycle (at most addressMs) of its payment.
    for (const [i, p] of paid) {
      expect(seenAt.get(i), addresses[i]).toBeDefined();
      expect(seenAt.get(i)! - p.minute).toBeLessThanOrEqual(SETTINGS.addressMs / 60_000);
    }
    // Every paid address is served exactly what its own listing says (txid, amount, slot, blockhash).
    clock.advance(60_000);
    const lists = await poll();
    for (const i of paid.keys()) {
      expect(lists[i]).toEqual(await direct.incomingTransfers(SOL, addresses[i]!, null));
      expect(lists[i]).toMatchObject([{ txid: paid.get(i)!.txid }]);
      expect(lists[i]![0]!.blockHeight).not.toBeNull();
    }
    expect(lists.filter((l) => l.length > 0)).toHaveLength(paid.size);

    const steady = node.calls().slice(fixed);
    const seconds = (minutes + 1) * 60;
    const perSecond = steady.length / seconds;
    const perOrderMinute = steady.length / addresses.length / (minutes + 1);
    const byMethod = new Map<string, number>();
    for (const [m] of steady) byMethod.set(m, (byMethod.get(m) ?? 0) + 1);
    const count = (m: string) => byMethod.get(m) ?? 0;
    // Balances of all 10,000 once per addressMs (100 calls a sweep), the tip once a minute, and
    // the listings of the four changed addresses and the new one; nothing per quiet address.
    expect(perSecond).toBeLessThanOrEqual(2);
    expect(count("getSignaturesForAddress")).toBeLessThanOrEqual(paid.size + 1 + paid.size);
    expect(count("getMultipleAccounts")).toBeLessThanOrEqual(
      Math.ceil((minutes + 1) / 3) * (N / 100 + 1) + 1,
    );
    console.log(
      `balance watch, ${N} addresses, ${minutes + 1} min: ${steady.length} provider calls after the first listings ` +
        `(${perSecond.toFixed(3)}/s, ${perOrderMinute.toFixed(5)} per open order per minute; ` +
        `${node.net.requests.length - fixedHttp} HTTP requests; ` +
        [...byMethod].map(([m, n]) => `${m} ${n}`).join(", ") +
        ")",
    );
  }, 180_000);
});
