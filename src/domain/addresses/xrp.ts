import { equalBytes } from "@noble/curves/utils.js";
import { decodeBase58Check, encodeBase58Check } from "./encoding";
import { type AddressCheck, accepted, rejected, type TagCheck } from "./types";

const X_MAINNET = Uint8Array.of(0x05, 0x44);
const X_TESTNET = Uint8Array.of(0x04, 0x93);
const UINT32_MAX = 4_294_967_295;

function validateClassic(address: string): AddressCheck {
  if (address.length < 25 || address.length > 35) return rejected("must be 25 to 35 characters");
  const decoded = decodeBase58Check("xrp", address);
  if (!decoded.ok) return rejected(decoded.reason);
  if (decoded.bytes.length !== 21 || decoded.bytes[0] !== 0x00) return rejected("not an XRP account address");
  return accepted(address);
}

/**
 * X-address (XLS-5): prefix(2) ‖ account id(20) ‖ flag(1) ‖ tag as uint64 LE(8), base58check.
 * Decoded into classic address + tag so storage and payout only ever deal with one form.
 */
function validateXAddress(address: string): AddressCheck {
  const decoded = decodeBase58Check("xrp", address);
  if (!decoded.ok) return rejected(decoded.reason);
  const b = decoded.bytes;
  if (b.length !== 31) return rejected("not an X-address (wrong length)");
  const prefix = b.subarray(0, 2);
  if (equalBytes(prefix, X_TESTNET)) return rejected("not a mainnet address (testnet X-address)");
  if (!equalBytes(prefix, X_MAINNET)) return rejected("not an X-address (unknown prefix)");
  const flag = b[22]!;
  const tagBytes = b.subarray(23, 31);
  // The upper four bytes are reserved for 64-bit tags, which the ledger does not support.
  if (tagBytes.subarray(4).some((x) => x !== 0)) return rejected("X-address tag exceeds 32 bits");
  let tag: string | null;
  if (flag === 0) {
    if (tagBytes.some((x) => x !== 0)) return rejected("X-address has tag bytes but no tag flag");
    tag = null;
  } else if (flag === 1) {
    tag = String(tagBytes[0]! + tagBytes[1]! * 0x100 + tagBytes[2]! * 0x10000 + tagBytes[3]! * 0x1000000);
  } else {
    return rejected("X-address has an unsupported flag");
  }
  const classic = new Uint8Array(21);
  classic.set(b.subarray(2, 22), 1);
  return accepted(encodeBase58Check("xrp", classic), tag);
}

export function validateXrpAddress(address: string): AddressCheck {
  if (address.startsWith("r")) return validateClassic(address);
  // Testnet X-addresses start with T; decode them anyway so the reason says "testnet".
  if (address.startsWith("X") || address.startsWith("T")) return validateXAddress(address);
  return rejected("must be a classic r… address or an X-address");
}

export function validateDestinationTag(tag: string): TagCheck {
  // Decimal only, no sign or leading zeros, so one tag has exactly one spelling in storage.
  if (!/^(0|[1-9][0-9]{0,9})$/.test(tag) || Number(tag) > UINT32_MAX) {
    return rejected("destination tag must be an integer from 0 to 4294967295 without leading zeros");
  }
  return { ok: true, tag };
}
