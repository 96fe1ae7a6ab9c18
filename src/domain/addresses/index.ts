import { networkFacts } from "../networks";
import { BITCOIN, DOGECOIN, LITECOIN, validateUtxoAddress } from "./bitcoin";
import { validateBchAddress } from "./cashaddr";
import { blankReason } from "./encoding";
import { validateEvmAddress } from "./evm";
import { validateSolanaAddress } from "./solana";
import { validateMemoText, validateStellarAddress } from "./stellar";
import { validateComment, validateTonAddress } from "./ton";
import { validateTronAddress } from "./tron";
import type { AddressCheck, AddressFamily, TagCheck } from "./types";
import { validateDestinationTag, validateXrpAddress } from "./xrp";

export { deriveDepositAddress } from "./derive";
export type { AddressCheck, AddressFamily, TagCheck } from "./types";

/** Catalog network code → address rules (src/domain/networks.ts). */
export function addressFamily(network: string): AddressFamily | undefined {
  return networkFacts(network)?.family;
}

/** The rules of an address family, whatever the network (sanctions lists are per asset, not per network). */
export function validateForFamily(family: AddressFamily, address: string): AddressCheck {
  switch (family) {
    case "btc":
      return validateUtxoAddress(BITCOIN, address);
    case "bch":
      return validateBchAddress(address);
    case "ltc":
      return validateUtxoAddress(LITECOIN, address);
    case "doge":
      return validateUtxoAddress(DOGECOIN, address);
    case "evm":
      return validateEvmAddress(address);
    case "tron":
      return validateTronAddress(address);
    case "sol":
      return validateSolanaAddress(address);
    case "xrp":
      return validateXrpAddress(address);
    case "xlm":
      return validateStellarAddress(address);
    case "ton":
      return validateTonAddress(address);
  }
}

/** Mainnet-only format and checksum validation; says nothing about whether the account exists. */
export function validateAddress(network: string, address: string): AddressCheck {
  const family = addressFamily(network);
  if (family === undefined) return { ok: false, reason: `unsupported network ${network}` };
  // Request bodies are parsed upstream, but a non-string must not reach the decoders and throw.
  if (typeof address !== "string") return { ok: false, reason: "address must be a string" };
  const blank = blankReason(address);
  if (blank !== null) return { ok: false, reason: blank };
  return validateForFamily(family, address);
}

/** Format rules for the deposit tag/memo of memo networks; other networks take no tag at all. */
export function validateTag(network: string, tag: string): TagCheck {
  if (typeof tag !== "string") return { ok: false, reason: "tag must be a string" };
  switch (networkFacts(network)?.tag) {
    case "destination_tag":
      return validateDestinationTag(tag);
    case "memo_text":
      return validateMemoText(tag);
    case "comment":
      return validateComment(tag);
    default:
      return { ok: false, reason: "network does not use tags" };
  }
}
