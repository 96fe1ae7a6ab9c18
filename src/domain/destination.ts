import { validateAddress, validateTag } from "./addresses";
import { DomainError } from "./errors";

export interface CheckedDestination {
  address: string;
  tag: string | null;
}

/**
 * An address and optional tag for a network, checked with the network's real rules. The stored
 * address is the canonical form (EIP-55, lower-case bech32, classic XRP address); an XRP
 * X-address carries its tag, and then a separate tag is refused as ambiguous.
 */
export function checkDestination(
  network: string,
  isMemo: boolean,
  address: string,
  tag: string | undefined,
  field: "recipient_address" | "refund_address",
): CheckedDestination {
  const tagField = `${field}_tag`;
  const checked = validateAddress(network, address);
  if (!checked.ok)
    throw new DomainError(
      "invalid_address",
      `${field} is not a valid ${network} address: ${checked.reason}.`,
    );
  if (tag === undefined) return { address: checked.address, tag: checked.tag };
  if (!isMemo)
    throw new DomainError(
      "invalid_tag",
      `${tagField} is not allowed: ${network} does not use memos or tags.`,
    );
  if (checked.tag !== null) {
    throw new DomainError(
      "invalid_tag",
      `${field} is an X-address that already carries a tag; omit ${tagField}.`,
    );
  }
  const t = validateTag(network, tag);
  if (!t.ok) throw new DomainError("invalid_tag", `${tagField} is not a valid ${network} tag: ${t.reason}.`);
  return { address: checked.address, tag: t.tag };
}
