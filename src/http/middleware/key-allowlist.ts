import { type Cidr, ipAllowed, parseCidr } from "../../domain/ip-allowlist";

// Parsed allowlists, by their stored JSON: the key cache already bounds how often rows are read,
// this keeps the CIDR parsing off each request too.
const parsed = new Map<string, Cidr[]>();

/** Whether a key's stored allowlist (JSON array of CIDRs, null = anywhere) admits `ip`. */
export function keyAllowsIp(allowlist: string | null, ip: string): boolean {
  if (allowlist === null) return true;
  let cidrs = parsed.get(allowlist);
  if (!cidrs) {
    cidrs = (JSON.parse(allowlist) as string[]).flatMap((t) => parseCidr(t) ?? []);
    if (parsed.size >= 1000) parsed.clear();
    parsed.set(allowlist, cidrs);
  }
  return ipAllowed(cidrs, ip);
}
