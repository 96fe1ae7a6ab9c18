import { delay, HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { createSolanaReader } from "../../../src/adapters/chain/solana-rpc";
import type { AssetRef, IncomingTransfer } from "../../../src/adapters/chain/types";
import { associatedTokenAddress } from "../../../src/domain/addresses/solana";
import block from "../../fixtures/chain/solana-block-280000000.json";
import skipped from "../../fixtures/chain/solana-block-skipped.json";
import sigsAta from "../../fixtures/chain/solana-signatures-ata.json";
import sigsOwner from "../../fixtures/chain/solana-signatures-owner.json";
import slot from "../../fixtures/chain/solana-slot.json";
import txFailed from "../../fixtures/chain/solana-tx-failed.json";
import txFake from "../../fixtures/chain/solana-tx-fake-mint.json";
import txNative from "../../fixtures/chain/solana-tx-native.json";
import txUsdc from "../../fixtures/chain/solana-tx-usdc.json";
import { createMockNetwork, type MockNetwork } from "../../support/msw";
import { solanaKey, systemAccount, tokenAccount as usdcAccount } from "../../support/solana-node";

const RPC = "https://solana.test/";
const OWNER = "3h1zGmCwsRJnVk5BuRNMLsPaQu1y2aqXqXDWYCgrp5UG";
const ATA = "3uetDDizgTtadDHZzyy9BqxrjQcozMEkxzbKhfZF4tG3";
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const SOL: AssetRef = { coin: "SOL", network: "SOL", contract: null, decimals: 9 };
const USDC_SOL: AssetRef = { coin: "USDC", network: "SOL", contract: USDC, decimals: 6 };
const NATIVE_SIG = "4fdexGtqurZmjeCps4VRtjfcRwAzGYRn1Gm5s9ieH6wYsR3sc26Gp14AfJBe4pzYpaYbZqH7s11ZEyCrCvAk36r2";
const USDC_SIG = "22W3chm1pHrTmrE3rQAkJPn7QY3M5S45orb9M3VPBYxqYjXn8xy5c29LjJxrwqgDyDz6wdHLDBYVDUrebvp8BFh1";
const BLOCKHASH = "5D4UAVmY3LN1SGr4ut5JZ2Gxqd3yLYrMikJgqKvNSVgY";

interface Call {
  jsonrpc: "2.0";
  id: number;
  method: string;
  params: unknown[];
}
type Answer = { result?: unknown; error?: unknown } | undefined;
const TXS: Record<string, { result: unknown }> = {
  [NATIVE_SIG]: txNative,
  [USDC_SIG]: txUsdc,
  [txFake.result.transaction.signatures[0]!]: txFake,
  [txFailed.result.transaction.signatures[0]!]: txFailed,
};

/** A Solana RPC node over the fixtures; `answer` may override any call. */
function node(answer: (call: Call) => Answer = () => undefined) {
  const reply = (call: Call) => {
    const custom = answer(call);
    if (custom) return { jsonrpc: "2.0", ...custom, id: call.id };
    const [first] = call.params;
    let result: unknown = null;
    if (call.method === "getSlot") result = slot.result;
    if (call.method === "getSignaturesForAddress")
      result = first === ATA ? sigsAta.result : first === OWNER ? sigsOwner.result : [];
    if (call.method === "getTransaction") result = TXS[first as string]?.result ?? null;
    if (call.method === "getBlock") result = block.result;
    return { jsonrpc: "2.0", id: call.id, result };
  };
  return http.post(RPC, async ({ request }) => {
    const body = (await request.json()) as Call | Call[];
    return HttpResponse.json(Array.isArray(body) ? body.map(reply) : reply(body));
  });
}
const calls = (net: MockNetwork) =>
  net.requests.flatMap((r) => {
    const body = JSON.parse(r.body) as Call | Call[];
    return (Array.isArray(body) ? body : [body]).map((c) => [c.method, c.params[0]]);
  });
const reader = (net: MockNetwork, extra: Record<string, unknown> = {}) =>
  createSolanaReader({ baseUrl: RPC, fetch: net.fetch, ...extra });

const native: IncomingTransfer = {
  txid: NATIVE_SIG,
  index: 0,
  to: OWNER,
  tag: null,
  amount: "1.5",
  blockHeight: 280000000,
  blockHash: BLOCKHASH,
};

describe("solana reader", () => {
  it("tip: the finalized slot", async () => {
    const net = createMockNetwork(node());
    expect(await reader(net).tipHeight()).toBe(280000010);
    expect(JSON.parse(net.requests[0]!.body)).toMatchObject({
      method: "getSlot",
      params: [{ commitment: "finalized" }],
    });
  });

  it("SOL: credits the deposit address's lamport gain; a failed transaction is never read", async () => {
    const net = createMockNetwork(node());
    expect(await reader(net).incomingTransfers(SOL, OWNER, null)).toEqual([native]);
    expect(calls(net)).toEqual([
      ["getSignaturesForAddress", OWNER],
      ["getTransaction", NATIVE_SIG],
      ["getBlock", 280000000],
    ]);
    expect(JSON.parse(net.requests[1]!.body)[0].params[1]).toEqual({
      encoding: "jsonParsed",
      commitment: "confirmed",
      maxSupportedTransactionVersion: 0,
    });
    expect(net.unhandled).toEqual([]);
  });

  it("a failed transaction whose signature is listed as fine is still not credited (meta.err)", async () => {
    const failedSig = txFailed.result.transaction.signatures[0]!;
    const net = createMockNetwork(
      node((c) =>
        c.method === "getSignaturesForAddress"
          ? { result: [{ ...sigsOwner.result[1], err: null, signature: failedSig }] }
          : undefined,
      ),
    );
    expect(await reader(net).incomingTransfers(SOL, OWNER, null)).toEqual([]);
  });

  it("USDC: reads the owner's associated token account; only the genuine mint credited", async () => {
    const net = createMockNetwork(node());
    expect(await reader(net).incomingTransfers(USDC_SOL, OWNER, null)).toEqual([
      { ...native, txid: USDC_SIG, amount: "250", blockHeight: 280000001 },
    ]);
    // The look-alike mint landed in another token account of the owner, in a tx touching the ATA.
    expect(calls(net)[0]).toEqual(["getSignaturesForAddress", ATA]);
    expect(calls(net).filter(([m]) => m === "getTransaction")).toHaveLength(2);
  });

  it("a token balance of the ATA with another owner, or a mint with other decimals, is refused", async () => {
    const otherOwner = structuredClone(txUsdc);
    for (const b of otherOwner.result.meta.postTokenBalances)
      b.owner = "5waJka9MrCgPFoLo3SQSjLDTGnkoDcwYYPnpk4YNJS6i";
    const net = createMockNetwork(
      node((c) => (c.method === "getTransaction" && c.params[0] === USDC_SIG ? otherOwner : undefined)),
    );
    expect(await reader(net).incomingTransfers(USDC_SOL, OWNER, null)).toEqual([]);
    await expect(
      reader(createMockNetwork(node())).incomingTransfers({ ...USDC_SOL, decimals: 9 }, OWNER, null),
    ).rejects.toMatchObject({ kind: "invalid_body" });
  });

  it("a signature only confirmed (not finalized) is unconfirmed; one not yet visible is absent", async () => {
    const net = createMockNetwork(
      node((c) =>
        c.method === "getSignaturesForAddress"
          ? { result: [{ ...sigsOwner.result[0], confirmationStatus: "confirmed" }] }
          : undefined,
      ),
    );
    expect(await reader(net).incomingTransfers(SOL, OWNER, null)).toEqual([
      { ...native, blockHeight: null, blockHash: null },
    ]);
    expect(calls(net).map(([m]) => m)).not.toContain("getBlock");
    const invisible = createMockNetwork(
      node((c) => (c.method === "getTransaction" ? { result: null } : undefined)),
    );
    expect(await reader(invisible).incomingTransfers(SOL, OWNER, null)).toEqual([]);
  });

  it("pages with `before` = the last signature of a full page", async () => {
    const net = createMockNetwork(
      node((c) => {
        if (c.method !== "getSignaturesForAddress") return undefined;
        const opts = c.params[1] as { before?: string };
        return { result: opts.before === undefined ? [sigsOwner.result[1]] : [sigsOwner.result[0]] };
      }),
    );
    expect(await reader(net, { limit: 1, maxPages: 2 }).incomingTransfers(SOL, OWNER, null)).toEqual([
      native,
    ]);
    const pages = net.requests
      .map((r) => JSON.parse(r.body) as Call)
      .filter((c) => c.method === "getSignaturesForAddress")
      .map((c) => c.params[1]);
    expect(pages).toEqual([
      { limit: 1, commitment: "confirmed" },
      { limit: 1, commitment: "confirmed", before: sigsOwner.result[1]!.signature },
    ]);
  });

  it("best chain: the slot's blockhash must be the transfer's; a skipped slot is out", async () => {
    const r = reader(createMockNetwork(node()));
    expect(await r.isInBestChain(native)).toBe(true);
    expect(await r.isInBestChain({ ...native, blockHash: "11111111111111111111111111111111" })).toBe(false);
    const gone = reader(
      createMockNetwork(node((c) => (c.method === "getBlock" ? { error: skipped.error } : undefined))),
    );
    expect(await gone.isInBestChain(native)).toBe(false);
  });

  it("provider errors, timeouts, wrong shapes; tags and bad addresses", async () => {
    const busy = createMockNetwork(node(() => ({ error: { code: -32005, message: "Node is behind" } })));
    await expect(reader(busy).tipHeight()).rejects.toMatchObject({ kind: "rpc_error", rpcCode: -32005 });
    const down = createMockNetwork(http.post(RPC, () => new HttpResponse(null, { status: 503 })));
    await expect(reader(down).incomingTransfers(SOL, OWNER, null)).rejects.toMatchObject({
      kind: "http_status",
    });
    const slow = createMockNetwork(
      http.post(RPC, async () => {
        await delay(500);
        return HttpResponse.json(slot);
      }),
    );
    await expect(reader(slow, { timeoutMs: 50 }).tipHeight()).rejects.toMatchObject({ kind: "timeout" });
    const garbage = createMockNetwork(
      node((c) => (c.method === "getTransaction" ? { result: { slot: "x" } } : undefined)),
    );
    await expect(reader(garbage).incomingTransfers(SOL, OWNER, null)).rejects.toMatchObject({
      kind: "invalid_body",
    });
    expect(await reader(garbage).incomingTransfers(SOL, OWNER, "123")).toEqual([]);
    await expect(reader(garbage).incomingTransfers(SOL, "0xnotsolana", null)).rejects.toThrow(TypeError);
  });

  describe("balances (balancesMany)", () => {
    const wallet = (i: number) => solanaKey(7, i);
    const tokenAccount = (owner: string, amount: string, info: Record<string, unknown> = {}) =>
      usdcAccount(USDC, owner, amount, 6, info);
    const system = systemAccount;
    /** Answers getMultipleAccounts from `accounts` (pubkey → account; absent: null). */
    const accountsNode = (accounts: Map<string, unknown>, slotAt = 280000020) =>
      node((c) =>
        c.method === "getMultipleAccounts"
          ? {
              result: {
                context: { apiVersion: "2.1.21", slot: slotAt },
                value: (c.params[0] as string[]).map((k) => accounts.get(k) ?? null),
              },
            }
          : undefined,
      );

    it("SOL: lamports of each address, 100 keys a call in one batch, null for an account that does not exist", async () => {
      const addresses = Array.from({ length: 150 }, (_, i) => wallet(i));
      const accounts = new Map<string, unknown>(
        addresses.slice(0, 140).map((a, i) => [a, system(1_000_000 * i + 1)]),
      );
      const net = createMockNetwork(accountsNode(accounts));
      const balances = await reader(net).balancesMany!(SOL, addresses);
      expect(balances.get(addresses[0]!)).toBe("0.000000001");
      expect(balances.get(addresses[139]!)).toBe("0.139000001");
      expect(balances.get(addresses[145]!)).toBeNull();
      expect([...balances.keys()]).toEqual(addresses);
      expect(net.requests).toHaveLength(1);
      const batch = JSON.parse(net.requests[0]!.body) as Call[];
      expect(batch.map((c) => [c.method, (c.params[0] as string[]).length, c.params[1]])).toEqual([
        ["getMultipleAccounts", 100, { encoding: "jsonParsed", commitment: "confirmed" }],
        ["getMultipleAccounts", 50, { encoding: "jsonParsed", commitment: "confirmed" }],
      ]);
    });

    it("USDC: the tokenAmount of each address's associated token account; null before it exists", async () => {
      const other = wallet(1);
      const accounts = new Map<string, unknown>([[ATA, tokenAccount(OWNER, "250000000")]]);
      const net = createMockNetwork(accountsNode(accounts));
      const balances = await reader(net).balancesMany!(USDC_SOL, [OWNER, other]);
      expect(balances).toEqual(
        new Map([
          [OWNER, "250"],
          [other, null],
        ]),
      );
      expect(JSON.parse(net.requests[0]!.body)[0].params[0]).toEqual([
        ATA,
        associatedTokenAddress(other, USDC),
      ]);
    });

    it("a token account of another mint, owner, program or decimals, or a short answer, fails the read", async () => {
      const bad = [
        tokenAccount(OWNER, "1", { mint: "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB" }),
        tokenAccount(OWNER, "1", { owner: wallet(3) }),
        { ...tokenAccount(OWNER, "1"), owner: "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb" },
        tokenAccount(OWNER, "1", { tokenAmount: { amount: "1", decimals: 9 } }),
        system(5),
      ];
      for (const account of bad) {
        const net = createMockNetwork(accountsNode(new Map([[ATA, account]])));
        await expect(reader(net).balancesMany!(USDC_SOL, [OWNER])).rejects.toMatchObject({
          kind: "invalid_body",
        });
      }
      const short = createMockNetwork(
        node((c) =>
          c.method === "getMultipleAccounts" ? { result: { context: { slot: 1 }, value: [] } } : undefined,
        ),
      );
      await expect(reader(short).balancesMany!(SOL, [OWNER])).rejects.toMatchObject({ kind: "invalid_body" });
      const busy = createMockNetwork(node(() => ({ error: { code: -32005, message: "Node is behind" } })));
      await expect(reader(busy).balancesMany!(SOL, [OWNER])).rejects.toMatchObject({ kind: "rpc_error" });
    });

    it("after a balance read, listings ask minContextSlot; a listed signature at or below it with no transaction fails", async () => {
      const net = createMockNetwork(accountsNode(new Map([[OWNER, system(1)]]), 280000005));
      const r = reader(net);
      await r.balancesMany!(SOL, [OWNER]);
      expect(await r.incomingTransfers(SOL, OWNER, null)).toEqual([native]);
      const listing = net.requests
        .map((q) => JSON.parse(q.body) as Call)
        .find((c) => c.method === "getSignaturesForAddress");
      expect(listing!.params[1]).toEqual({ limit: 100, commitment: "confirmed", minContextSlot: 280000005 });
      // A node that lists the signature but lacks its transaction is behind the balance: no answer.
      net.use(node((c) => (c.method === "getTransaction" ? { result: null } : undefined)));
      await expect(r.incomingTransfers(SOL, OWNER, null)).rejects.toMatchObject({ kind: "invalid_body" });
      // Without a balance read (the unshared reader), such a transaction is only not visible yet.
      const plain = reader(
        createMockNetwork(node((c) => (c.method === "getTransaction" ? { result: null } : undefined))),
      );
      expect(await plain.incomingTransfers(SOL, OWNER, null)).toEqual([]);
    });
  });
});
