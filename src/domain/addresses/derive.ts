import { HDKey } from "@scure/bip32";
import { p2pkhAddress, p2wpkhAddress } from "./bitcoin";
import { evmAccountId, evmAddressFromAccountId } from "./evm";
import { tronAddressFromAccountId } from "./tron";

export type DerivableFamily = "btc" | "ltc" | "doge" | "evm" | "tron";

const RECEIVE_CHAIN = 0;
const HARDENED = 0x8000_0000;
// BIP44/84 account level (m / purpose' / coin' / account'): anything else would derive valid-looking
// addresses the operator's wallet never scans.
const ACCOUNT_DEPTH = 3;

// A handful of xpubs per deployment: parsing one and deriving its receive chain is two thirds of
// the secp256k1 work of a derivation, and the result never changes. Only valid keys are kept.
const receiveChains = new Map<string, HDKey>();
const MAX_CACHED_CHAINS = 32;

/** The account's receive chain m/…/account'/0 from an account-level xpub, parsed and checked once. */
function receiveChain(xpub: string): HDKey {
  const cached = receiveChains.get(xpub);
  if (cached) return cached;
  const account = HDKey.fromExtendedKey(xpub);
  // Private keys must never sit in worker config; refusing them here makes the mistake loud.
  if (account.privateKey) throw new Error("expected an extended public key, got a private key");
  if (account.depth !== ACCOUNT_DEPTH) {
    throw new Error(`expected an account-level xpub (depth ${ACCOUNT_DEPTH}), got depth ${account.depth}`);
  }
  const chain = account.deriveChild(RECEIVE_CHAIN);
  if (receiveChains.size >= MAX_CACHED_CHAINS) receiveChains.clear();
  receiveChains.set(xpub, chain);
  return chain;
}

/**
 * Receive address m/…/account'/0/index (or m/…/account'/0/i/j/… for a path of non-hardened indexes)
 * from an account-level xpub (standard 0x0488b21e version bytes, also for BIP84 accounts: the
 * version is only a label, the key material is the same as a zpub).
 * `testnet`: the UTXO chains' testnet encodings (tb1…, tltc1…, Dogecoin testnet n…), so a test
 * order's address can never receive mainnet coin; EVM and TRON have no testnet address format.
 */
export function deriveDepositAddress(
  family: DerivableFamily,
  xpub: string,
  index: number | readonly number[],
  testnet = false,
): string {
  const path = typeof index === "number" ? [index] : index;
  if (path.length === 0 || path.some((i) => !Number.isSafeInteger(i) || i < 0 || i >= HARDENED)) {
    throw new RangeError("index must be an integer from 0 to 2^31-1");
  }
  const pubkey = path.reduce((key, i) => key.deriveChild(i), receiveChain(xpub)).publicKey;
  if (!pubkey) throw new Error("derived key has no public key");
  switch (family) {
    case "btc":
      return p2wpkhAddress(testnet ? "tb" : "bc", pubkey);
    case "ltc":
      return p2wpkhAddress(testnet ? "tltc" : "ltc", pubkey);
    case "doge":
      return p2pkhAddress(testnet ? 0x71 : 0x1e, pubkey);
    case "evm":
      return evmAddressFromAccountId(evmAccountId(pubkey));
    case "tron":
      return tronAddressFromAccountId(evmAccountId(pubkey));
    default: {
      const unknown: never = family;
      throw new Error(`no derivation for family ${String(unknown)}`);
    }
  }
}
