import { bech32 } from "@scure/base";
import { decodeBase58Check } from "./encoding";
import { type AddressCheck, accepted, rejected } from "./types";

/**
 * CashAddr, Bitcoin Cash's address format (bitcoincashorg/bitcoincash.org spec/cashaddr.md):
 * `prefix:payload`, the payload base32 in bech32's alphabet (a type byte, the hash, a 40-bit BCH
 * checksum over the prefix too), so an address of one network never checks on another even when
 * the prefix is left off.
 */
export const CASHADDR_MAINNET = "bitcoincash";
export const CASHADDR_TESTNET = "bchtest";
const KNOWN_PREFIXES = new Set([CASHADDR_MAINNET, CASHADDR_TESTNET, "bchreg"]);

const CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
const PAYLOAD = /^[qpzry9x8gf2tvdw0s3jn54khce6mua7l]+$/;
const GENERATORS = [0x98f2bc8e61n, 0x79b76d99e2n, 0xf33e5fb3c4n, 0xae2eabe2a8n, 0x1e4f43e470n];
const CHECKSUM_WORDS = 8;

/** The spec's PolyMod: 0 over prefix, separator and payload when the checksum holds. */
function polymod(words: readonly number[]): bigint {
  let c = 1n;
  for (const d of words) {
    const c0 = c >> 35n;
    c = ((c & 0x07ffffffffn) << 5n) ^ BigInt(d);
    for (let i = 0; i < 5; i++) if ((c0 >> BigInt(i)) & 1n) c ^= GENERATORS[i]!;
  }
  return c ^ 1n;
}

/** The lower 5 bits of each prefix character, then a zero for the separator. */
function prefixWords(prefix: string): number[] {
  return [...prefix].map((ch) => ch.charCodeAt(0) & 0x1f).concat(0);
}

/** P2PKH (type bits 0, `q…`) and P2SH (1, `p…`), the two types a 160-bit hash is paid through. */
export type CashAddrType = 0 | 1;
const HASH_BYTES = 20;

export function encodeCashAddr(prefix: string, type: CashAddrType, hash: Uint8Array): string {
  if (hash.length !== HASH_BYTES) throw new RangeError("CashAddr: only 160-bit hashes are encoded here");
  const data = bech32.toWords(Uint8Array.of(type << 3, ...hash));
  const mod = polymod([...prefixWords(prefix), ...data, ...new Array<number>(CHECKSUM_WORDS).fill(0)]);
  const checksum = Array.from({ length: CHECKSUM_WORDS }, (_, i) =>
    Number((mod >> BigInt(5 * (7 - i))) & 31n),
  );
  return `${prefix}:${[...data, ...checksum].map((w) => CHARSET[w]).join("")}`;
}

type Decoded = { ok: true; prefix: string; payload: Uint8Array } | { ok: false; reason: string };

/**
 * A CashAddr string's prefix and payload (type byte and hash), checksum verified; `defaultPrefix`
 * is the prefix checked when the string has none. All lower or all upper case, never mixed.
 */
export function decodeCashAddr(address: string, defaultPrefix: string): Decoded {
  const lower = address.toLowerCase();
  if (address !== lower && address !== address.toUpperCase())
    return { ok: false, reason: "mixed-case CashAddr address (must be all lower or all upper case)" };
  const sep = lower.indexOf(":");
  const prefix = sep === -1 ? defaultPrefix : lower.slice(0, sep);
  const body = lower.slice(sep + 1);
  if (!PAYLOAD.test(body)) return { ok: false, reason: "contains characters outside the CashAddr alphabet" };
  const words = [...body].map((ch) => CHARSET.indexOf(ch));
  if (words.length < CHECKSUM_WORDS) return { ok: false, reason: "too short" };
  if (polymod([...prefixWords(prefix), ...words]) !== 0n) return { ok: false, reason: "bad checksum" };
  const payload = bech32.fromWordsUnsafe(words.slice(0, -CHECKSUM_WORDS));
  if (!payload) return { ok: false, reason: "invalid CashAddr padding" };
  return { ok: true, prefix, payload };
}

/** Whether `address` is a well-formed CashAddr of any network, prefixed or not (for other chains' refusals). */
export function looksLikeCashAddr(address: string): boolean {
  const lower = address.toLowerCase();
  const sep = lower.indexOf(":");
  const prefix = sep === -1 ? null : lower.slice(0, sep);
  if (prefix !== null) return KNOWN_PREFIXES.has(prefix) && decodeCashAddr(address, prefix).ok;
  return [...KNOWN_PREFIXES].some((p) => decodeCashAddr(address, p).ok);
}

const LEGACY: Readonly<Record<number, { type: CashAddrType; testnet: boolean }>> = {
  0: { type: 0, testnet: false },
  5: { type: 1, testnet: false },
  111: { type: 0, testnet: true },
  196: { type: 1, testnet: true },
};

/**
 * A legacy base58 address, the format Bitcoin Cash shares with Bitcoin (and which its wallets
 * still accept), as the CashAddr of the same hash: what is stored and paid.
 */
function fromLegacy(address: string, testnet: boolean): AddressCheck {
  const decoded = decodeBase58Check("bitcoin", address);
  if (!decoded.ok) return rejected(decoded.reason);
  if (decoded.bytes.length !== 21) return rejected("wrong payload length");
  const version = LEGACY[decoded.bytes[0]!];
  if (version === undefined) return rejected("not a Bitcoin Cash address");
  if (version.testnet !== testnet)
    return rejected(testnet ? "not a testnet address" : "not a mainnet address");
  return accepted(
    encodeCashAddr(testnet ? CASHADDR_TESTNET : CASHADDR_MAINNET, version.type, decoded.bytes.subarray(1)),
  );
}

// Bitcoin's segwit prefixes: Bitcoin Cash has no segwit, so these are always Bitcoin addresses.
const BITCOIN_SEGWIT = /^(bc|tb|bcrt)1/i;
// A base58 string never holds `0` or `l`, and a CashAddr is 42 characters without its prefix.
const CASHADDR_SHAPED = /^[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{42}$/i;

/**
 * A Bitcoin Cash address, answered as lower-case prefixed CashAddr (`bitcoincash:q…`): CashAddr
 * with or without its prefix, or a legacy base58 P2PKH/P2SH address (normalised). Only 160-bit
 * P2PKH and P2SH (docs/networks.md, "Bitcoin Cash addresses").
 */
export function validateBchAddress(address: string, testnet = false): AddressCheck {
  const own = testnet ? CASHADDR_TESTNET : CASHADDR_MAINNET;
  if (BITCOIN_SEGWIT.test(address)) return rejected("a Bitcoin segwit address, not a Bitcoin Cash one");
  if (!address.includes(":") && !CASHADDR_SHAPED.test(address)) return fromLegacy(address, testnet);
  const decoded = decodeCashAddr(address, own);
  if (!decoded.ok) return rejected(decoded.reason);
  if (decoded.prefix !== own)
    return rejected(
      KNOWN_PREFIXES.has(decoded.prefix)
        ? `not a ${testnet ? "testnet" : "mainnet"} address (${decoded.prefix}:)`
        : "not a Bitcoin Cash address",
    );
  const [typeByte, ...hash] = decoded.payload;
  // Type byte: reserved bit 0, 4 type bits, 3 size bits (0: a 160-bit hash).
  if (typeByte === undefined || (typeByte !== 0x00 && typeByte !== 0x08))
    return rejected("unsupported CashAddr type (only P2PKH and P2SH with a 160-bit hash)");
  if (hash.length !== HASH_BYTES) return rejected("wrong payload length");
  return accepted(encodeCashAddr(own, (typeByte >> 3) as CashAddrType, Uint8Array.from(hash)));
}
