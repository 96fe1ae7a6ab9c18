import { ripemd160 } from "@noble/hashes/legacy.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bech32, bech32m } from "@scure/base";
import { looksLikeCashAddr } from "./cashaddr";
import { decodeBase58Check, encodeBase58Check } from "./encoding";
import { type AddressCheck, accepted, rejected } from "./types";

export type UtxoChain = {
  name: string;
  /** null: the chain has no segwit, so any bech32 string is some other chain's address. */
  hrp: string | null;
  base58Versions: readonly number[];
};

export const BITCOIN: UtxoChain = { name: "Bitcoin", hrp: "bc", base58Versions: [0x00, 0x05] };
// 0x05 is Litecoin's legacy P2SH version (shared with Bitcoin) that older wallets still hand out.
export const LITECOIN: UtxoChain = { name: "Litecoin", hrp: "ltc", base58Versions: [0x30, 0x32, 0x05] };
export const DOGECOIN: UtxoChain = { name: "Dogecoin", hrp: null, base58Versions: [0x1e, 0x16] };

/** The testnets, where test-mode deposit addresses live (docs/test-mode.md). */
export const BITCOIN_TESTNET: UtxoChain = {
  name: "Bitcoin testnet",
  hrp: "tb",
  base58Versions: [0x6f, 0xc4],
};
export const LITECOIN_TESTNET: UtxoChain = {
  name: "Litecoin testnet",
  hrp: "tltc",
  base58Versions: [0x6f, 0x3a],
};
export const DOGECOIN_TESTNET: UtxoChain = {
  name: "Dogecoin testnet",
  hrp: null,
  base58Versions: [0x71, 0xc4],
};

// Known test/regtest prefixes get a "not mainnet" reason instead of a vaguer "wrong network" one.
const TEST_HRPS = new Set(["tb", "bcrt", "tltc", "rltc"]);
const MAIN_HRPS = new Set(["bc", "ltc"]);
// 0x6f/0xc4: Bitcoin and Litecoin testnet; 0x3a: Litecoin testnet P2SH; 0x71: Dogecoin testnet.
const TEST_VERSIONS = new Set([0x6f, 0xc4, 0x3a, 0x71]);

const BECH32_MAX_LENGTH = 90;
const BECH32_CHARSET = /^[qpzry9x8gf2tvdw0s3jn54khce6mua7l]+$/;

function bech32Hrp(lower: string): string | null {
  const sep = lower.lastIndexOf("1");
  if (sep <= 0) return null;
  const hrp = lower.slice(0, sep);
  return MAIN_HRPS.has(hrp) || TEST_HRPS.has(hrp) ? hrp : null;
}

function validateSegwit(chain: UtxoChain, address: string, hrp: string): AddressCheck {
  if (hrp !== chain.hrp) {
    return rejected(TEST_HRPS.has(hrp) ? "not a mainnet address" : `not a ${chain.name} address`);
  }
  if (address.length > BECH32_MAX_LENGTH) return rejected("too long for a segwit address");
  const lower = address.toLowerCase();
  if (address !== lower && address !== address.toUpperCase()) {
    return rejected("mixed-case segwit address (must be all lower or all upper case)");
  }
  const data = lower.slice(hrp.length + 1);
  if (!BECH32_CHARSET.test(data)) return rejected("contains characters outside the bech32 alphabet");
  // Exactly one of the two checksums can match (their constants differ), which tells us the encoding.
  const asBech32 = bech32.decodeUnsafe(lower);
  const asBech32m = asBech32 ? undefined : bech32m.decodeUnsafe(lower);
  const decoded = asBech32 ?? asBech32m;
  if (!decoded) return rejected("bad checksum");
  const [version, ...programWords] = decoded.words;
  if (version === undefined) return rejected("missing witness version");
  if (version > 16) return rejected("invalid witness version");
  const program = bech32.fromWordsUnsafe(programWords);
  if (!program) return rejected("invalid witness program padding");
  if (program.length < 2 || program.length > 40) return rejected("invalid witness program length");
  if (version === 0) {
    if (!asBech32) return rejected("witness version 0 must use bech32, not bech32m");
    if (program.length !== 20 && program.length !== 32) return rejected("invalid witness program length");
  } else if (!asBech32m) {
    return rejected("witness version 1+ must use bech32m (BIP350), not bech32");
  }
  return accepted(lower);
}

function validateBase58(chain: UtxoChain, address: string): AddressCheck {
  const decoded = decodeBase58Check("bitcoin", address);
  if (!decoded.ok) return rejected(decoded.reason);
  if (decoded.bytes.length !== 21) return rejected("wrong payload length");
  const version = decoded.bytes[0]!;
  if (chain.base58Versions.includes(version)) return accepted(address);
  return rejected(TEST_VERSIONS.has(version) ? "not a mainnet address" : `not a ${chain.name} address`);
}

export function validateUtxoAddress(chain: UtxoChain, address: string): AddressCheck {
  // Replay safety: a Bitcoin Cash address pasted for another chain gets its own reason, not a
  // vague alphabet or checksum one (docs/networks.md, "Bitcoin Cash addresses").
  if (looksLikeCashAddr(address)) return rejected(`a Bitcoin Cash address, not a ${chain.name} one`);
  const hrp = bech32Hrp(address.toLowerCase());
  return hrp === null ? validateBase58(chain, address) : validateSegwit(chain, address, hrp);
}

export function hash160(data: Uint8Array): Uint8Array {
  return ripemd160(sha256(data));
}

export function p2wpkhAddress(hrp: string, compressedPubkey: Uint8Array): string {
  return bech32.encode(hrp, [0, ...bech32.toWords(hash160(compressedPubkey))]);
}

export function p2pkhAddress(version: number, compressedPubkey: Uint8Array): string {
  const payload = new Uint8Array(21);
  payload[0] = version;
  payload.set(hash160(compressedPubkey), 1);
  return encodeBase58Check("bitcoin", payload);
}
