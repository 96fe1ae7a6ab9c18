/**
 * A fake Solana JSON-RPC node over MSW (`solanaNode`): accounts, per-account signatures,
 * transactions, confirmed and finalized slots, following the SOL and USDC deposits a test makes.
 * Account answers are shaped as `getMultipleAccounts` with `encoding: "jsonParsed"` gives them
 * (https://solana.com/docs/rpc/http/getmultipleaccounts): a system account's `data` is unparsed
 * base64, an SPL Token account's is parsed (`info.tokenAmount`); an absent account is null.
 */
import { base58 } from "@scure/base";
import { HttpResponse, http } from "msw";
import { associatedTokenAddress, TOKEN_PROGRAM_ID } from "../../src/domain/addresses/solana";
import { createMockNetwork } from "./msw";

export const USDC_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";

export const SYSTEM_PROGRAM_ID = "11111111111111111111111111111111";

/** A distinct valid key per (kind, i): 32 bytes (an address, a blockhash), or 64 (a signature). */
export const solanaKey = (kind: number, i: number, size = 32) =>
  base58.encode(
    Uint8Array.from({ length: size }, (_, k) => (k === 0 ? kind : k < 4 ? (i >> (8 * (k - 1))) & 255 : 0)),
  );

export const systemAccount = (lamports: number) => ({
  lamports,
  owner: SYSTEM_PROGRAM_ID,
  executable: false,
  data: ["", "base64"],
  space: 0,
});

/** An SPL Token account of `owner` for `mint` holding `amount` units; `info` overrides parsed fields. */
export const tokenAccount = (
  mint: string,
  owner: string,
  amount: string,
  decimals: number,
  info: Record<string, unknown> = {},
) => ({
  lamports: 2039280,
  owner: TOKEN_PROGRAM_ID,
  executable: false,
  data: {
    program: "spl-token",
    parsed: {
      type: "account",
      info: { mint, owner, state: "initialized", tokenAmount: { amount, decimals }, ...info },
    },
    space: 165,
  },
});

const USDC = USDC_MINT;
const SYSTEM = SYSTEM_PROGRAM_ID;
const key = solanaKey;
const SENDER = key(9, 1);
const SENDER_ATA = associatedTokenAddress(SENDER, USDC);

interface Call {
  id: number;
  method: string;
  params: unknown[];
}
type Account = { lamports: number } | { owner: string; amount: bigint };

/** A Solana node: accounts, per-account signatures (oldest first), transactions, confirmed and finalized slots. */
export function solanaNode(url: string) {
  let serial = 0;
  const chain = {
    confirmed: 300_000_000,
    finalized: 300_000_000,
    accounts: new Map<string, Account>(),
    signatures: new Map<string, Array<{ signature: string; slot: number }>>(),
    txs: new Map<string, unknown>(),
    /** getMultipleAccounts answers this error while set. */
    accountsError: null as { code: number; message: string } | null,
  };
  const blockhash = (slot: number) => key(5, slot - 300_000_000);
  const accountJson = (pubkey: string) => {
    const a = chain.accounts.get(pubkey);
    if (!a) return null;
    if ("lamports" in a) return systemAccount(a.lamports);
    return tokenAccount(USDC, a.owner, a.amount.toString(), 6);
  };
  const answer = (c: Call): Record<string, unknown> => {
    const reply = (result: unknown) => ({ jsonrpc: "2.0", id: c.id, result });
    const [first, opts] = c.params as [unknown, Record<string, unknown> | undefined];
    switch (c.method) {
      case "getSlot":
        return reply(chain.finalized);
      case "getMultipleAccounts":
        if (chain.accountsError) return { jsonrpc: "2.0", id: c.id, error: chain.accountsError };
        return reply({
          context: { apiVersion: "2.1.21", slot: chain.confirmed },
          value: (first as string[]).map(accountJson),
        });
      case "getSignaturesForAddress": {
        if (Number(opts?.minContextSlot ?? 0) > chain.confirmed)
          return {
            jsonrpc: "2.0",
            id: c.id,
            error: { code: -32016, message: "Minimum context slot has not been reached" },
          };
        let list = [...(chain.signatures.get(first as string) ?? [])].reverse();
        if (opts?.before) list = list.slice(list.findIndex((s) => s.signature === opts.before) + 1);
        return reply(
          list.slice(0, Number(opts?.limit ?? 1000)).map((s) => ({
            ...s,
            err: null,
            confirmationStatus: s.slot <= chain.finalized ? "finalized" : "confirmed",
          })),
        );
      }
      case "getTransaction":
        return reply(chain.txs.get(first as string) ?? null);
      case "getBlock":
        return reply({ blockhash: blockhash(first as number) });
      default:
        return { jsonrpc: "2.0", id: c.id, error: { code: -32601, message: "Method not found" } };
    }
  };
  const net = createMockNetwork(
    http.post(url, async ({ request }) => {
      const body = (await request.json()) as Call | Call[];
      return HttpResponse.json(Array.isArray(body) ? body.map(answer) : answer(body));
    }),
  );

  const lamports = (a: string) => {
    const acc = chain.accounts.get(a);
    return acc && "lamports" in acc ? acc.lamports : 0;
  };
  const record = (slot: number, keys: string[], tx: Record<string, unknown>) => {
    const signature = key(3, ++serial, 64);
    for (const k of keys) chain.signatures.set(k, [...(chain.signatures.get(k) ?? []), { signature, slot }]);
    chain.txs.set(signature, {
      slot,
      ...tx,
      transaction: { message: { accountKeys: keys.map((pubkey) => ({ pubkey })) } },
    });
    return signature;
  };
  /** A successful SOL transfer to `to` in a new confirmed (not yet finalized) slot. */
  const paySol = (to: string, amount: number) => {
    const slot = ++chain.confirmed;
    const pre = [lamports(SENDER) || 1e15, lamports(to)];
    const post = [pre[0]! - amount - 5000, pre[1]! + amount];
    chain.accounts.set(SENDER, { lamports: post[0]! });
    chain.accounts.set(to, { lamports: post[1]! });
    return record(slot, [SENDER, to, SYSTEM], {
      meta: { err: null, preBalances: [...pre, 1], postBalances: [...post, 1] },
    });
  };
  /** A USDC transfer to `owner`'s associated token account (created by the first one). */
  const payUsdc = (owner: string, units: bigint) => {
    const slot = ++chain.confirmed;
    const ata = associatedTokenAddress(owner, USDC);
    const before = chain.accounts.get(ata) as { amount: bigint } | undefined;
    const after = (before?.amount ?? 0n) + units;
    chain.accounts.set(ata, { owner, amount: after });
    const balance = (accountIndex: number, who: string, amount: bigint) => ({
      accountIndex,
      mint: USDC,
      owner: who,
      programId: TOKEN_PROGRAM_ID,
      uiTokenAmount: { amount: amount.toString(), decimals: 6 },
    });
    return record(slot, [SENDER, SENDER_ATA, ata, TOKEN_PROGRAM_ID], {
      meta: {
        err: null,
        preBalances: [1e9, 2039280, before ? 2039280 : 0, 1],
        postBalances: [1e9 - 5000, 2039280, 2039280, 1],
        preTokenBalances: [
          balance(1, SENDER, 10n ** 15n),
          ...(before ? [balance(2, owner, before.amount)] : []),
        ],
        postTokenBalances: [balance(1, SENDER, 10n ** 15n - units), balance(2, owner, after)],
      },
    });
  };
  const finalize = () => {
    chain.finalized = chain.confirmed;
  };
  /** JSON-RPC calls made so far (a batch's calls each), as [method, first param]. */
  const calls = () =>
    net.requests.flatMap((r) => {
      const body = JSON.parse(r.body) as Call | Call[];
      return (Array.isArray(body) ? body : [body]).map((c) => [c.method, c.params[0]] as const);
    });
  return { chain, net, paySol, payUsdc, finalize, calls, blockhash };
}
