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

/**
 * Receive address m/…/account'/0/index from an account-level xpub (standard 0x0488b21e version bytes,
 * also for BIP84 accounts: the version is only a label, the key material is the same as a zpub).
 */
export function deriveDepositAddress(family: DerivableFamily, xpub: string, index: number): string {
  if (!Number.isSafeInteger(index) || index < 0 || index >= HARDENED) {
    throw new RangeError("index must be an integer from 0 to 2^31-1");
  }
  const account = HDKey.fromExtendedKey(xpub);
  // Private keys must never sit in worker config; refusing them here makes the mistake loud.
  if (account.privateKey) throw new Error("expected an extended public key, got a private key");
  if (account.depth !== ACCOUNT_DEPTH) {
    throw new Error(`expected an account-level xpub (depth ${ACCOUNT_DEPTH}), got depth ${account.depth}`);
  }
  const pubkey = account.deriveChild(RECEIVE_CHAIN).deriveChild(index).publicKey;
  if (!pubkey) throw new Error("derived key has no public key");
  switch (family) {
    case "btc":
      return p2wpkhAddress("bc", pubkey);
    case "ltc":
      return p2wpkhAddress("ltc", pubkey);
    case "doge":
      return p2pkhAddress(0x1e, pubkey);
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
