import { sha256 } from "@noble/hashes/sha2.js";
import { type BytesCoder, base58, base58xrp } from "@scure/base";

/** Failure carried as a value so validators can return a human reason instead of throwing. */
export type Decoded = { ok: true; bytes: Uint8Array } | { ok: false; reason: string };

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export type Base58Alphabet = "bitcoin" | "xrp";

const ALPHABETS: Record<Base58Alphabet, { coder: BytesCoder; chars: RegExp }> = {
  bitcoin: { coder: base58, chars: /^[1-9A-HJ-NP-Za-km-z]+$/ },
  // XRP permutes the Bitcoin alphabet so that account ids start with "r".
  xrp: { coder: base58xrp, chars: /^[rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz]+$/ },
};

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

function checksum4(payload: Uint8Array): Uint8Array {
  return sha256(sha256(payload)).subarray(0, 4);
}

/**
 * Base58 with a 4-byte double-SHA256 checksum (Bitcoin, Litecoin, Dogecoin, TRON, XRP).
 * Returns the payload without the checksum.
 */
export function decodeBase58Check(alphabet: Base58Alphabet, s: string): Decoded {
  const raw = decodeBase58(alphabet, s);
  if (!raw.ok) return raw;
  const all = raw.bytes;
  if (all.length < 5) return { ok: false, reason: "too short" };
  const payload = all.subarray(0, all.length - 4);
  if (!bytesEqual(checksum4(payload), all.subarray(all.length - 4)))
    return { ok: false, reason: "bad checksum" };
  return { ok: true, bytes: payload };
}

export function encodeBase58Check(alphabet: Base58Alphabet, payload: Uint8Array): string {
  return ALPHABETS[alphabet].coder.encode(concatBytes(payload, checksum4(payload)));
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
