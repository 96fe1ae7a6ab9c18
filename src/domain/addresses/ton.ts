import { bytesToHex } from "@noble/hashes/utils.js";
import { base64, base64url } from "@scure/base";
import { crc16xmodem } from "./encoding";
import { type AddressCheck, accepted, rejected, type TagCheck } from "./types";

const BOUNCEABLE = 0x11;
const NON_BOUNCEABLE = 0x51;
const TESTNET_FLAG = 0x80;
const COMMENT_MAX_CHARS = 120;

export function validateTonAddress(address: string): AddressCheck {
  // The raw form has no checksum, so a typo would silently send funds to another account.
  if (/^-?[0-9]+:[0-9a-fA-F]{64}$/.test(address)) return rejected("raw TON form is not accepted");
  if (!/^[A-Za-z0-9+/_-]{48}$/.test(address)) return rejected("must be 48 base64 or base64url characters");
  const standard = /[+/]/.test(address);
  const urlSafe = /[-_]/.test(address);
  if (standard && urlSafe) return rejected("mixes base64 and base64url alphabets");
  // 48 characters are exactly 36 bytes, so neither alphabet needs padding.
  const bytes = (urlSafe ? base64url : base64).decode(address);
  const tag = bytes[0]!;
  if (tag & TESTNET_FLAG) return rejected("not a mainnet address (testnet flag set)");
  if (tag !== BOUNCEABLE && tag !== NON_BOUNCEABLE) return rejected("unknown TON address tag");
  const workchain = bytes[1]!;
  if (workchain !== 0x00 && workchain !== 0xff) return rejected("unsupported workchain (only 0 and -1)");
  const crc = crc16xmodem(bytes.subarray(0, 34));
  // TON stores the CRC big-endian (StrKey uses little-endian with the same polynomial).
  if (bytes[34] !== crc >> 8 || bytes[35] !== (crc & 0xff)) return rejected("bad checksum");
  // Canonical form is base64url with the bounce flag kept as given: the flag tells the payer whether
  // to send bounceable, which matters for uninitialised wallets.
  return accepted(base64url.encode(bytes));
}

/**
 * The account a TON address names, as the raw form `wc:hex` (lower-case hex): the same for its
 * bounceable (EQ…) and non-bounceable (UQ…) spellings, which differ only in a flag for the payer.
 * Accepts a valid friendly form or a raw one; null for anything else.
 */
export function tonAccountId(address: string): string | null {
  const raw = /^(0|-1):([0-9a-fA-F]{64})$/.exec(address);
  if (raw) return `${raw[1]}:${raw[2]!.toLowerCase()}`;
  const check = validateTonAddress(address);
  if (!check.ok) return null;
  const bytes = base64url.decode(check.address);
  return `${bytes[1] === 0xff ? -1 : 0}:${bytesToHex(bytes.subarray(2, 34))}`;
}

// Control characters, lone surrogates and line/paragraph separators render invisibly or break display.
const NOT_PRINTABLE = /[\p{Cc}\p{Cs}\p{Zl}\p{Zp}]/u;

export function validateComment(comment: string): TagCheck {
  if (comment.length === 0) return rejected("comment is empty");
  if (NOT_PRINTABLE.test(comment)) return rejected("comment must be printable text");
  // Count code points, not UTF-16 units, so an emoji counts as one character.
  if ([...comment].length > COMMENT_MAX_CHARS) {
    return rejected(`comment must be at most ${COMMENT_MAX_CHARS} characters`);
  }
  return { ok: true, tag: comment };
}
