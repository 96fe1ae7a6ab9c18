/**
 * ChainReader over Solana JSON-RPC (https://api.mainnet-beta.solana.com or a provider's endpoint,
 * which usually carries its key in the path), POSTed to `baseUrl` as is, for native SOL and SPL
 * tokens (USDC) on per-order deposit addresses.
 *
 * - Tip: `getSlot {commitment: "finalized"}`. Heights are slots; a transfer counts as mined only
 *   once its slot is finalized (optimistic "confirmed" slots can still be skipped), so 1
 *   confirmation = finalized.
 * - Which account is watched: the deposit address itself for SOL; for a token, the address's
 *   associated token account for the requested mint (src/domain/addresses/solana.ts). Tokens sent
 *   to any other token account — even one the address owns — are NOT credited (the deposit
 *   instructions name the wallet, whose wallet software resolves the ATA).
 * - Transfers: `getSignaturesForAddress(watched, {limit, commitment: "confirmed", before})`
 *   (newest first; `before` = the last signature of a full page, at most `maxPages` pages);
 *   signatures with `err` are skipped. The rest are read in one JSON-RPC batch of
 *   `getTransaction(sig, {encoding: "jsonParsed", commitment: "confirmed",
 *   maxSupportedTransactionVersion: 0})`; a transaction with `meta.err` is not credited.
 *     · SOL: the lamport delta `postBalances[i] − preBalances[i]` of the deposit address, when
 *       positive (a transaction that pays the fee from it never is).
 *     · Token: the delta of `post/preTokenBalances` at the ATA's account index whose `mint` is
 *       exactly the requested mint (never a look-alike), `owner` the deposit address and
 *       `programId` the SPL Token program, when positive; decimals must match the catalog.
 *   One transfer per transaction (`index` 0); `txid` = signature.
 * - `blockHash` is the finalized slot's `blockhash` (`getBlock(slot, {transactionDetails: "none"})`,
 *   batched, once per slot per call); `isInBestChain` compares it again, and a slot that is now
 *   skipped (`-32007`) answers false.
 * - Tags: Solana is not a memo network here; with a tag there are no transfers ([]).
 * - Balances (`balancesMany`, the shared reads' change detector, ./balance-watch.ts): the watched
 *   account of each address (as above: the address, or its ATA) read by `getMultipleAccounts(keys,
 *   {encoding: "jsonParsed", commitment: "confirmed"})`, at most 100 keys a call
 *   (https://solana.com/docs/rpc/http/getmultipleaccounts), up to 10 calls in one JSON-RPC batch.
 *   The answer is `{context: {slot}, value: [account | null, ...]}` in the keys' order, null for an
 *   account that does not exist (a wallet never funded, an ATA not yet created: balance null).
 *   SOL: the account's `lamports`; token: `data.parsed.info.tokenAmount.amount` of an SPL Token
 *   account (program `spl-token`, owner the Token program) whose `mint` and `owner` are the
 *   requested ones and `decimals` the catalog's — anything else fails the read. The highest
 *   `context.slot` seen is then sent as `minContextSlot` with every `getSignaturesForAddress`, and a
 *   listed signature at or below it whose transaction the node does not have fails the listing: a
 *   lagging node must not answer a listing older than the balance that triggered it (that deposit
 *   would never move the balance again, so it would never be listed).
 */
import { z } from "zod";
import {
  associatedTokenAddress,
  TOKEN_PROGRAM_ID,
  validateSolanaAddress,
} from "../../domain/addresses/solana";
import {
  ChainReaderError,
  maxPagesOption,
  type PagedReaderOptions,
  parseBody,
  positiveIntOption,
  readerBase,
  unitsToDecimal,
} from "./http-util";
import { createJsonRpc } from "./json-rpc";
import type { AssetRef, ChainReader, IncomingTransfer } from "./types";

export const SIGNATURES_PAGE_LIMIT = 100;
/** Keys per getMultipleAccounts call (the method's limit), and calls per JSON-RPC batch. */
export const ACCOUNTS_PER_CALL = 100;
export const ACCOUNT_CALLS_PER_BATCH = 10;
/** Derived associated token accounts kept per reader (oldest dropped first), ≈ 150 bytes each. */
const ATAS_KEPT = 50_000;
/** JSON-RPC error of getBlock for a slot that was skipped (no block). */
export const SLOT_SKIPPED = -32007;

export interface SolanaReaderOptions extends PagedReaderOptions {
  /** Signatures per getSignaturesForAddress page (at most 1000); default 100. */
  limit?: number;
}

const slot = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const lamports = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const signature = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{64,90}$/);

const signaturesSchema = z.array(
  z.object({
    signature,
    slot,
    err: z.unknown().nullable(),
    confirmationStatus: z.enum(["processed", "confirmed", "finalized"]).nullable().optional(),
  }),
);

const tokenBalance = z.object({
  accountIndex: z.number().int().nonnegative(),
  mint: z.string(),
  owner: z.string().optional(),
  programId: z.string().optional(),
  uiTokenAmount: z.object({ amount: z.string(), decimals: z.number().int() }),
});
const transactionSchema = z
  .object({
    slot,
    meta: z.object({
      err: z.unknown().nullable(),
      preBalances: z.array(lamports),
      postBalances: z.array(lamports),
      preTokenBalances: z.array(tokenBalance).nullable().optional(),
      postTokenBalances: z.array(tokenBalance).nullable().optional(),
    }),
    transaction: z.object({
      message: z.object({ accountKeys: z.array(z.object({ pubkey: z.string() })) }),
    }),
  })
  .nullable();
const accountsSchema = z.object({
  context: z.object({ slot }),
  value: z.array(z.object({ lamports, owner: z.string(), data: z.unknown() }).nullable()),
});
const tokenAccountData = z.object({
  program: z.literal("spl-token"),
  parsed: z.object({
    type: z.literal("account"),
    info: z.object({
      mint: z.string(),
      owner: z.string(),
      tokenAmount: z.object({ amount: z.string().regex(/^[0-9]{1,40}$/), decimals: z.number().int() }),
    }),
  }),
});
const blockSchema = z.object({ blockhash: z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/) });

type Tx = NonNullable<z.infer<typeof transactionSchema>>;

export function createSolanaReader(options: SolanaReaderOptions): ChainReader {
  const { source, url, http } = readerBase(options, "solana", { rpc: true });
  const limit = positiveIntOption(source, "limit", options.limit ?? SIGNATURES_PAGE_LIMIT);
  const maxPages = maxPagesOption(source, options);
  const rpc = createJsonRpc(source, http, url);
  /** The newest slot a balance was read at: no listing may come from an older state (`balancesMany`). */
  let balancesSlot = 0;
  const invalid = (message: string) => new ChainReaderError(source, "invalid_body", message);
  const blockParams = (n: number) => [
    n,
    {
      commitment: "finalized",
      transactionDetails: "none",
      rewards: false,
      maxSupportedTransactionVersion: 0,
    },
  ];

  const signatures = async (account: string) => {
    const found: z.infer<typeof signaturesSchema> = [];
    let before: string | undefined;
    for (let page = 0; page < maxPages; page++) {
      const params = {
        limit,
        commitment: "confirmed",
        ...(before ? { before } : {}),
        ...(balancesSlot > 0 ? { minContextSlot: balancesSlot } : {}),
      };
      const list = parseBody(
        source,
        signaturesSchema,
        await rpc.call("getSignaturesForAddress", [account, params]),
        "getSignaturesForAddress",
      );
      found.push(...list);
      if (list.length < limit) break;
      before = list[list.length - 1]!.signature;
    }
    return found;
  };

  /** Units credited to the watched account by `tx` (0n when none). */
  const credited = (tx: Tx, asset: AssetRef, owner: string, watched: string, sig: string): bigint => {
    const keys = tx.transaction.message.accountKeys.map((k) => k.pubkey);
    const index = keys.indexOf(watched);
    if (index < 0) return 0n;
    if (asset.contract === null) {
      const pre = tx.meta.preBalances[index];
      const post = tx.meta.postBalances[index];
      if (pre === undefined || post === undefined) throw invalid(`balances of ${sig} miss account ${index}`);
      return BigInt(post) - BigInt(pre);
    }
    const ours = (b: z.infer<typeof tokenBalance>) =>
      b.accountIndex === index &&
      b.mint === asset.contract &&
      (b.owner === undefined || b.owner === owner) &&
      (b.programId === undefined || b.programId === TOKEN_PROGRAM_ID);
    const post = tx.meta.postTokenBalances?.find(ours);
    if (!post) return 0n;
    if (post.uiTokenAmount.decimals !== asset.decimals)
      throw invalid(
        `${sig}: mint has ${post.uiTokenAmount.decimals} decimals, the catalog ${asset.decimals}`,
      );
    const pre = tx.meta.preTokenBalances?.find(ours);
    const units = (s: string) => {
      if (!/^[0-9]{1,40}$/.test(s)) throw invalid(`${sig}: bad token amount ${s.slice(0, 40)}`);
      return BigInt(s);
    };
    return units(post.uiTokenAmount.amount) - (pre ? units(pre.uiTokenAmount.amount) : 0n);
  };

  // Derived ATAs, kept: a derivation is a sha256 and a curve check per bump (≈ 0.5 ms), and a
  // balance read of 10,000 USDC addresses would derive them all again every cycle.
  const atas = new Map<string, string>();
  /** The account a deposit of `asset` to `address` credits: the address, or its ATA for the mint. */
  const watchedAccount = (asset: AssetRef, address: string): string => {
    if (!validateSolanaAddress(address).ok)
      throw new TypeError(`${source}: not a Solana address: ${address}`);
    if (asset.contract === null) return address;
    if (!validateSolanaAddress(asset.contract).ok)
      throw new TypeError(`${source}: not a mint address: ${asset.contract}`);
    const key = `${asset.contract}:${address}`;
    let ata = atas.get(key);
    if (ata === undefined) {
      ata = associatedTokenAddress(address, asset.contract);
      if (atas.size >= ATAS_KEPT) atas.delete(atas.keys().next().value!);
      atas.set(key, ata);
    }
    return ata;
  };

  /** The balance one getMultipleAccounts entry shows for `address` (null: no such account). */
  const balanceOf = (
    asset: AssetRef,
    address: string,
    account: z.infer<typeof accountsSchema>["value"][number],
  ): string | null => {
    if (account === null) return null;
    if (asset.contract === null) return unitsToDecimal(source, account.lamports, asset.decimals, address);
    const data = parseBody(source, tokenAccountData, account.data, "getMultipleAccounts token account");
    const { info } = data.parsed;
    if (account.owner !== TOKEN_PROGRAM_ID || info.mint !== asset.contract || info.owner !== address)
      throw invalid(`token account of ${address} is not its ${asset.coin} account`);
    if (info.tokenAmount.decimals !== asset.decimals)
      throw invalid(
        `${address}: mint has ${info.tokenAmount.decimals} decimals, the catalog ${asset.decimals}`,
      );
    return unitsToDecimal(source, info.tokenAmount.amount, asset.decimals, address);
  };

  return {
    async tipHeight(): Promise<number> {
      return parseBody(source, slot, await rpc.call("getSlot", [{ commitment: "finalized" }]), "getSlot");
    },

    async incomingTransfers(
      asset: AssetRef,
      address: string,
      tag: string | null,
    ): Promise<IncomingTransfer[]> {
      if (tag !== null) return [];
      const watched = watchedAccount(asset, address);
      const floor = balancesSlot;
      const sigs = (await signatures(watched)).filter((s) => s.err === null);
      if (sigs.length === 0) return [];
      const txs = await rpc.batch(
        "getTransaction",
        sigs.map((s) => [
          s.signature,
          { encoding: "jsonParsed", commitment: "confirmed", maxSupportedTransactionVersion: 0 },
        ]),
      );
      const pending: Array<{ sig: string; amount: string; slot: number | null }> = [];
      sigs.forEach((s, i) => {
        const tx = parseBody(source, transactionSchema, txs[i], "getTransaction");
        if (tx === null && s.slot <= floor)
          throw invalid(`getTransaction: ${s.signature} (slot ${s.slot}) missing at slot ${floor}`);
        if (tx === null || tx.meta.err !== null) return; // not visible at this commitment yet / failed
        const units = credited(tx, asset, address, watched, s.signature);
        if (units <= 0n) return;
        pending.push({
          sig: s.signature,
          amount: unitsToDecimal(source, units, asset.decimals, s.signature),
          slot: s.confirmationStatus === "finalized" ? tx.slot : null,
        });
      });
      const slots = [...new Set(pending.flatMap((p) => (p.slot === null ? [] : [p.slot])))];
      const blocks = slots.length === 0 ? [] : await rpc.batch("getBlock", slots.map(blockParams));
      const hashes = new Map(
        slots.map((n, i) => [n, parseBody(source, blockSchema, blocks[i], "getBlock").blockhash]),
      );
      return pending.map((p) => ({
        txid: p.sig,
        index: 0,
        to: address,
        tag: null,
        amount: p.amount,
        blockHeight: p.slot,
        blockHash: p.slot === null ? null : (hashes.get(p.slot) ?? null),
      }));
    },

    async balancesMany(asset: AssetRef, addresses: readonly string[]) {
      const accounts = addresses.map((a) => watchedAccount(asset, a));
      const calls: unknown[][] = [];
      for (let i = 0; i < accounts.length; i += ACCOUNTS_PER_CALL)
        calls.push([
          accounts.slice(i, i + ACCOUNTS_PER_CALL),
          { encoding: "jsonParsed", commitment: "confirmed" },
        ]);
      const balances = new Map<string, string | null>();
      let newest = 0;
      for (let b = 0; b < calls.length; b += ACCOUNT_CALLS_PER_BATCH) {
        const answers = await rpc.batch("getMultipleAccounts", calls.slice(b, b + ACCOUNT_CALLS_PER_BATCH));
        answers.forEach((answer, j) => {
          const { context, value } = parseBody(source, accountsSchema, answer, "getMultipleAccounts");
          const first = (b + j) * ACCOUNTS_PER_CALL;
          const keys = addresses.slice(first, first + ACCOUNTS_PER_CALL);
          if (value.length !== keys.length)
            throw invalid(`getMultipleAccounts: ${value.length} accounts for ${keys.length} keys`);
          keys.forEach((address, k) => {
            balances.set(address, balanceOf(asset, address, value[k]!));
          });
          newest = Math.max(newest, context.slot);
        });
      }
      balancesSlot = Math.max(balancesSlot, newest);
      return balances;
    },

    async isInBestChain(transfer: IncomingTransfer): Promise<boolean> {
      if (transfer.blockHeight === null || transfer.blockHash === null) return true;
      try {
        const block = parseBody(
          source,
          blockSchema,
          await rpc.call("getBlock", blockParams(transfer.blockHeight)),
          "getBlock",
        );
        return block.blockhash === transfer.blockHash;
      } catch (err) {
        if (err instanceof ChainReaderError && err.rpcCode === SLOT_SKIPPED) return false;
        throw err;
      }
    },
  };
}
