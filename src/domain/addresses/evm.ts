import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { utf8 } from "@scure/base";
import { type AddressCheck, accepted, rejected } from "./types";

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** EIP-55: hex digit i is upper case exactly when nibble i of keccak256(lowercase hex) is >= 8. */
export function toChecksumAddress(hex40: string): string {
  const lower = hex40.toLowerCase();
  const hash = keccak_256(utf8.decode(lower));
  let out = "0x";
  for (let i = 0; i < 40; i++) {
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0x0f;
    out += nibble >= 8 ? lower[i]!.toUpperCase() : lower[i]!;
  }
  return out;
}

export function validateEvmAddress(address: string): AddressCheck {
  if (!EVM_ADDRESS.test(address)) return rejected("must be 0x followed by 40 hexadecimal characters");
  const body = address.slice(2);
  const canonical = toChecksumAddress(body);
  // Single-case input carries no checksum (EIP-55 is opt-in), so it is accepted as is; mixed case
  // asserts a checksum, and a wrong one usually means a typo.
  const singleCase = body === body.toLowerCase() || body === body.toUpperCase();
  if (!singleCase && address !== canonical) return rejected("bad checksum (EIP-55)");
  return accepted(canonical);
}

/** Last 20 bytes of keccak256 over the 64-byte uncompressed point (X‖Y, no 0x04 prefix). */
export function evmAccountId(compressedPubkey: Uint8Array): Uint8Array {
  const uncompressed = secp256k1.Point.fromBytes(compressedPubkey).toBytes(false);
  return keccak_256(uncompressed.subarray(1)).subarray(12);
}

export function evmAddressFromAccountId(id: Uint8Array): string {
  return toChecksumAddress(bytesToHex(id));
}
