import { ed25519 } from "@noble/curves/ed25519.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { concatBytes } from "@noble/hashes/utils.js";
import { base58 } from "@scure/base";
import { decodeBase58 } from "./encoding";
import { type AddressCheck, accepted, rejected } from "./types";

export function validateSolanaAddress(address: string): AddressCheck {
  if (address.length < 32 || address.length > 44) return rejected("must be 32 to 44 base58 characters");
  const decoded = decodeBase58("bitcoin", address);
  if (!decoded.ok) return rejected(decoded.reason);
  if (decoded.bytes.length !== 32) return rejected("does not decode to a 32-byte public key");
  // No on-curve check: program-derived addresses (e.g. token vaults) are legitimately off-curve.
  return accepted(address);
}

/** SPL Token program: the owner of classic token accounts (USDC on Solana). */
export const TOKEN_PROGRAM_ID = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
const ASSOCIATED_TOKEN_PROGRAM_ID = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";
const PDA_MARKER = new TextEncoder().encode("ProgramDerivedAddress");

function isOnCurve(bytes: Uint8Array): boolean {
  try {
    // zip215 (permissive) decoding, as @solana/web3.js's isOnCurve does.
    ed25519.Point.fromBytes(bytes, true);
    return true;
  } catch {
    return false;
  }
}

function key(address: string): Uint8Array {
  const decoded = decodeBase58("bitcoin", address);
  if (!decoded.ok || decoded.bytes.length !== 32) throw new TypeError(`not a Solana address: ${address}`);
  return decoded.bytes;
}

/**
 * The associated token account of `owner` for `mint` (SPL Token program): the program-derived
 * address of seeds [owner, token program, mint] under the Associated Token Account program — the
 * highest bump whose sha256 is off the ed25519 curve.
 */
export function associatedTokenAddress(owner: string, mint: string, tokenProgram = TOKEN_PROGRAM_ID): string {
  const program = key(ASSOCIATED_TOKEN_PROGRAM_ID);
  for (let bump = 255; bump >= 0; bump--) {
    const hash = sha256(
      concatBytes(key(owner), key(tokenProgram), key(mint), Uint8Array.of(bump), program, PDA_MARKER),
    );
    if (!isOnCurve(hash)) return base58.encode(hash);
  }
  throw new Error("no off-curve bump found"); // probability ~2^-256
}
