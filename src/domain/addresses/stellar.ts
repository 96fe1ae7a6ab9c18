import { base32nopad } from "@scure/base";
import { crc16xmodem } from "./encoding";
import { type AddressCheck, accepted, rejected, type TagCheck } from "./types";

const ACCOUNT_VERSION = 6 << 3; // "G"
const MEMO_TEXT_MAX_BYTES = 28;

// StrKey kinds that are not payable accounts; naming them beats a generic format error, and a pasted
// secret seed deserves a warning of its own.
const OTHER_STRKEYS = new Map([
  ["S", "this is a Stellar secret seed, not an account address (treat that seed as compromised)"],
  ["C", "contract addresses are not accepted"],
  ["T", "pre-authorized transaction hashes are not accepted"],
  ["X", "hash-x signers are not accepted"],
  ["P", "signed payloads are not accepted"],
  ["L", "liquidity pool ids are not accepted"],
  ["B", "claimable balance ids are not accepted"],
]);

export function validateStellarAddress(address: string): AddressCheck {
  // Muxed M… accounts are refused: the 64-bit muxed id is not a memo, so it cannot be mapped onto our
  // account-plus-memo model without changing its meaning, and a payout rail without muxed support would
  // drop it. Partners can give the underlying G… account and a memo instead.
  if (/^M[A-Z2-7]{68}$/.test(address)) {
    return rejected("muxed (M…) Stellar addresses are not accepted; use the G… account and a memo");
  }
  const other = OTHER_STRKEYS.get(address.charAt(0));
  if (other !== undefined && /^[A-Z2-7]{56,}$/.test(address)) return rejected(other);
  if (!/^G[A-Z2-7]{55}$/.test(address)) return rejected("must be G followed by 55 base32 characters");
  // 56 base32 characters are exactly 35 bytes, so there are no padding bits to police.
  const bytes = base32nopad.decode(address);
  if (bytes[0] !== ACCOUNT_VERSION) return rejected("not a Stellar account address");
  const crc = crc16xmodem(bytes.subarray(0, 33));
  // StrKey stores the CRC little-endian.
  if (bytes[33] !== (crc & 0xff) || bytes[34] !== crc >> 8) return rejected("bad checksum");
  return accepted(address);
}

export function encodeStellarAccount(publicKey: Uint8Array): string {
  const bytes = new Uint8Array(35);
  bytes[0] = ACCOUNT_VERSION;
  bytes.set(publicKey, 1);
  const crc = crc16xmodem(bytes.subarray(0, 33));
  bytes[33] = crc & 0xff;
  bytes[34] = crc >> 8;
  return base32nopad.encode(bytes);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function validateMemoText(memo: string): TagCheck {
  if (memo.length === 0) return rejected("memo is empty");
  // A lone surrogate has no UTF-8 encoding; TextEncoder would silently swap in U+FFFD.
  if (LONE_SURROGATE.test(memo)) return rejected("memo is not valid Unicode text");
  if (new TextEncoder().encode(memo).length > MEMO_TEXT_MAX_BYTES) {
    return rejected(`memo must be at most ${MEMO_TEXT_MAX_BYTES} bytes of UTF-8`);
  }
  return { ok: true, tag: memo };
}
