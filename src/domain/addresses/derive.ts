import { secp256k1 } from "@noble/curves/secp256k1.js";
import { hmac } from "@noble/hashes/hmac.js";
import { sha512 } from "@noble/hashes/sha2.js";
import { HDKey } from "@scure/bip32";
import { hash160, p2pkhAddress, p2wpkhAddress } from "./bitcoin";
import { CASHADDR_MAINNET, CASHADDR_TESTNET, encodeCashAddr } from "./cashaddr";
import { evmAccountId, evmAddressFromAccountId } from "./evm";
import { tronAddressFromAccountId } from "./tron";

export type DerivableFamily = "btc" | "bch" | "ltc" | "doge" | "evm" | "tron";

const RECEIVE_CHAIN = 0;
const HARDENED = 0x8000_0000;
// BIP44/84 account level (m / purpose' / coin' / account'): anything else would derive valid-looking
// addresses the operator's wallet never scans.
const ACCOUNT_DEPTH = 3;

const { Point } = secp256k1;
const { Fn } = Point;

/** A receive chain's key as the derivation below it uses it: the point already decoded. */
interface ChainKey {
  hd: HDKey;
  point: InstanceType<typeof Point>;
  publicKey: Uint8Array;
  chainCode: Uint8Array;
}

// A handful of xpubs per deployment: parsing one and deriving its receive chain is two thirds of
// the secp256k1 work of a derivation, and the result never changes. Only valid keys are kept.
const receiveChains = new Map<string, ChainKey>();
const MAX_CACHED_CHAINS = 32;

/** The account's receive chain m/…/account'/0 from an account-level xpub, parsed and checked once. */
function receiveChain(xpub: string): ChainKey {
  const cached = receiveChains.get(xpub);
  if (cached) return cached;
  const account = HDKey.fromExtendedKey(xpub);
  // Private keys must never sit in worker config; refusing them here makes the mistake loud.
  if (account.privateKey) throw new Error("expected an extended public key, got a private key");
  if (account.depth !== ACCOUNT_DEPTH) {
    throw new Error(`expected an account-level xpub (depth ${ACCOUNT_DEPTH}), got depth ${account.depth}`);
  }
  const hd = account.deriveChild(RECEIVE_CHAIN);
  const publicKey = hd.publicKey;
  const chainCode = hd.chainCode;
  if (!publicKey || !chainCode) throw new Error("derived key has no public key");
  const chain = { hd, point: Point.fromBytes(publicKey), publicKey, chainCode };
  if (receiveChains.size >= MAX_CACHED_CHAINS) receiveChains.clear();
  receiveChains.set(xpub, chain);
  return chain;
}

/**
 * BIP32 public child derivation (CKDpub) down a path of non-hardened indexes: the key
 * `HDKey.deriveChild` gives level by level, without the work a path's intermediate levels do not
 * need there (each level's fingerprint hash and the decoding of each compressed point; one order's
 * deposit address is two levels, 12 % of a creation's CPU in the 2026-11-23 profile). The base
 * multiplication is the variable-time one: nothing here is secret (an xpub is public key
 * material). Null where BIP32 skips an index (I_L ≥ n, or the point at infinity: ~2^-127 per
 * level), which the caller leaves to the library. Tested equal to @scure/bip32 on random paths.
 */
function publicPath(chain: ChainKey, path: readonly number[]): Uint8Array | null {
  let point = chain.point;
  let key = chain.publicKey;
  let chainCode = chain.chainCode;
  const data = new Uint8Array(37);
  const view = new DataView(data.buffer);
  for (const index of path) {
    data.set(key, 0);
    view.setUint32(33, index, false);
    const i = hmac(sha512, chainCode, data);
    const tweak = Fn.fromBytes(i.subarray(0, 32), true);
    if (!Fn.isValid(tweak)) return null;
    if (tweak !== 0n) point = point.add(Point.BASE.multiplyUnsafe(tweak));
    if (point.equals(Point.ZERO)) return null;
    // One field inversion a level: `toBytes` converts to affine twice (its validity check, then
    // the encoding), each an inversion unless Z is already 1.
    point = Point.fromAffine(point.toAffine());
    key = point.toBytes(true);
    chainCode = i.subarray(32);
  }
  return key;
}

/**
 * Receive address m/…/account'/0/index (or m/…/account'/0/i/j/… for a path of non-hardened indexes)
 * from an account-level xpub (standard 0x0488b21e version bytes, also for BIP84 accounts: the
 * version is only a label, the key material is the same as a zpub).
 * `testnet`: the UTXO chains' testnet encodings (tb1…, bchtest:q…, tltc1…, Dogecoin testnet n…), so a test
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
  const chain = receiveChain(xpub);
  const pubkey = publicPath(chain, path) ?? path.reduce((key, i) => key.deriveChild(i), chain.hd).publicKey;
  if (!pubkey) throw new Error("derived key has no public key");
  switch (family) {
    case "btc":
      return p2wpkhAddress(testnet ? "tb" : "bc", pubkey);
    case "bch":
      return encodeCashAddr(testnet ? CASHADDR_TESTNET : CASHADDR_MAINNET, 0, hash160(pubkey));
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
