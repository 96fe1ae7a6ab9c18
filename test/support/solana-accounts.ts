/**
 * Solana JSON-RPC account answers as `getMultipleAccounts` with `encoding: "jsonParsed"` gives
 * them (https://solana.com/docs/rpc/http/getmultipleaccounts): a system account's `data` is
 * unparsed base64, an SPL Token account's is parsed (`info.tokenAmount`). And distinct valid keys.
 */
import { base58 } from "@scure/base";
import { TOKEN_PROGRAM_ID } from "../../src/domain/addresses/solana";

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
