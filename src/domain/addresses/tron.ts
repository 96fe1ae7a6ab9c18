import { decodeBase58Check, encodeBase58Check } from "./encoding";
import { type AddressCheck, accepted, rejected } from "./types";

const TRON_PREFIX = 0x41;

export function validateTronAddress(address: string): AddressCheck {
  // The 41-prefixed hex form appears in TRON APIs but has no checksum, so a typo would go unnoticed.
  if (/^(0x)?41[0-9a-fA-F]{40}$/.test(address))
    return rejected("hex TRON form is not accepted; use the T… form");
  if (address.length !== 34 || !address.startsWith("T")) {
    return rejected("must be 34 characters starting with T");
  }
  const decoded = decodeBase58Check("bitcoin", address);
  if (!decoded.ok) return rejected(decoded.reason);
  if (decoded.bytes.length !== 21 || decoded.bytes[0] !== TRON_PREFIX) return rejected("not a TRON address");
  return accepted(address);
}

export function tronAddressFromAccountId(id: Uint8Array): string {
  const payload = new Uint8Array(21);
  payload[0] = TRON_PREFIX;
  payload.set(id, 1);
  return encodeBase58Check("bitcoin", payload);
}
