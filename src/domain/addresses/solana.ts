import { decodeBase58 } from "./encoding";
import { type AddressCheck, accepted, rejected } from "./types";

export function validateSolanaAddress(address: string): AddressCheck {
  if (address.length < 32 || address.length > 44) return rejected("must be 32 to 44 base58 characters");
  const decoded = decodeBase58("bitcoin", address);
  if (!decoded.ok) return rejected(decoded.reason);
  if (decoded.bytes.length !== 32) return rejected("does not decode to a 32-byte public key");
  // No on-curve check: program-derived addresses (e.g. token vaults) are legitimately off-curve.
  return accepted(address);
}
