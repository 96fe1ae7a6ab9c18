import { sha256 } from "@noble/hashes/sha2.js";
import { type BytesCoder, base58, base58xrp, createBase58check } from "@scure/base";

/** Failure carried as a value so validators can return a human reason instead of throwing. */
export type Decoded = { ok: true; bytes: Uint8Array } | { ok: false; reason: string };

export type Base58Alphabet = "bitcoin" | "xrp";

const BITCOIN_DIGITS = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
// XRP permutes the Bitcoin alphabet so that account ids start with "r".
const XRP_DIGITS = "rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz";

const ALPHABETS: Record<Base58Alphabet, { coder: BytesCoder; chars: RegExp }> = {
  bitcoin: { coder: base58, chars: /^[1-9A-HJ-NP-Za-km-z]+$/ },
  xrp: { coder: base58xrp, chars: /^[rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz]+$/ },
};

const base58check = createBase58check(sha256);

/**
 * Base58 works on digit values, so spelling each digit in the other alphabet turns an XRP string
 * into the Bitcoin string of the same bytes: one base58check codec then serves both.
 */
function respell(s: string, from: string, to: string): string {
  let out = "";
  for (const ch of s) out += to[from.indexOf(ch)];
  return out;
}

/** Longest base58 string any supported address uses (X-addresses are 47); bounds the quadratic decoder. */
const MAX_BASE58_CHARS = 64;

export function decodeBase58(alphabet: Base58Alphabet, s: string): Decoded {
  const { coder, chars } = ALPHABETS[alphabet];
  if (s.length === 0) return { ok: false, reason: "address is empty" };
  if (s.length > MAX_BASE58_CHARS) return { ok: false, reason: "too long" };
  if (!chars.test(s)) return { ok: false, reason: "contains characters outside the base58 alphabet" };
  const bytes = coder.decode(s);
  // Base58 with leading-zero digits is bijective; re-encoding guards against any decoder leniency.
  if (coder.encode(bytes) !== s) return { ok: false, reason: "not canonical base58" };
  return { ok: true, bytes };
}

/**
 * Base58 with a 4-byte double-SHA256 checksum (Bitcoin, Litecoin, Dogecoin, TRON, XRP).
 * Returns the payload without the checksum.
 */
export function decodeBase58Check(alphabet: Base58Alphabet, s: string): Decoded {
  const raw = decodeBase58(alphabet, s);
  if (!raw.ok) return raw;
  if (raw.bytes.length < 5) return { ok: false, reason: "too short" };
  try {
    return {
      ok: true,
      bytes: base58check.decode(alphabet === "xrp" ? respell(s, XRP_DIGITS, BITCOIN_DIGITS) : s),
    };
  } catch {
    return { ok: false, reason: "bad checksum" };
  }
}

export function encodeBase58Check(alphabet: Base58Alphabet, payload: Uint8Array): string {
  const s = base58check.encode(payload);
  return alphabet === "xrp" ? respell(s, BITCOIN_DIGITS, XRP_DIGITS) : s;
}

/** CRC-16/XMODEM (poly 0x1021, init 0, no reflection): the checksum of Stellar StrKey and TON addresses. */
export function crc16xmodem(data: Uint8Array): number {
  let crc = 0;
  for (const byte of data) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/**
 * Partners paste addresses; a stray space or newline must fail loudly with its own reason rather
 * than surface as a confusing alphabet or checksum error, and must never be silently trimmed.
 */
export function blankReason(s: string): string | null {
  if (s.length === 0) return "address is empty";
  if (/^\s|\s$/u.test(s)) return "address has leading or trailing whitespace";
  if (/\s/u.test(s)) return "address contains whitespace";
  return null;
}
