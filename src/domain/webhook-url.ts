// Which webhook URLs the service may POST to. Partners set their own URLs, so a URL is a request
// the service makes on their behalf: it must never reach the operator's own network (metadata
// endpoints, private ranges, the payout signer), and the recorded status code must not become an
// oracle into it. Names are not resolved here (Workers cannot pin a resolution); what a name can
// say about itself — an IP literal, a name reserved for local use, a wildcard-DNS service that
// maps names to any IP, a non-default port — is refused.
import { type Cidr, ipAllowed, parseCidr, parseIp } from "./ip-allowlist";

/** Why an IP literal is special; every IP literal is refused, the range only names the reason. */
const SPECIAL_RANGES: [label: string, cidrs: string[]][] = [
  ["unspecified", ["0.0.0.0/8", "::/128"]],
  ["loopback", ["127.0.0.0/8", "::1/128"]],
  ["private", ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"]],
  ["link-local", ["169.254.0.0/16", "fe80::/10"]],
  ["carrier-grade NAT", ["100.64.0.0/10"]],
  ["multicast", ["224.0.0.0/4", "ff00::/8"]],
  [
    "reserved",
    [
      "192.0.0.0/24",
      "192.0.2.0/24",
      "198.18.0.0/15",
      "198.51.100.0/24",
      "203.0.113.0/24",
      "240.0.0.0/4",
      "2001:db8::/32",
      "100::/64",
    ],
  ],
  // IPv6 forms that carry an IPv4 address another hop may unwrap.
  ["IPv4-compatible", ["::/96"]],
  ["NAT64", ["64:ff9b::/96", "64:ff9b:1::/48"]],
  ["6to4", ["2002::/16"]],
  ["Teredo", ["2001::/32"]],
];
function cidr(text: string): Cidr {
  const parsed = parseCidr(text);
  if (!parsed) throw new Error(`bad CIDR in SPECIAL_RANGES: ${text}`);
  return parsed;
}
const RANGES = SPECIAL_RANGES.map(([label, cidrs]) => ({ label, list: cidrs.map(cidr) }));

/** The special range an IP address is in, or "public". */
export function ipRange(ip: string): string | null {
  if (!parseIp(ip)) return null;
  return RANGES.find((r) => ipAllowed(r.list, ip))?.label ?? "public";
}

/** Suffixes of names that never mean a public endpoint (RFC 6761/6762/8375 and common internal TLDs). */
const LOCAL_SUFFIXES = [
  "localhost",
  "local",
  "internal",
  "intranet",
  "lan",
  "home",
  "corp",
  "private",
  "home.arpa",
  "arpa",
  "localdomain",
];
/** Public wildcard-DNS services: `10.0.0.1.nip.io` resolves to 10.0.0.1. */
const WILDCARD_DNS = ["nip.io", "sslip.io", "xip.io", "localtest.me", "lvh.me", "traefik.me"];

const endsWithName = (host: string, suffix: string) => host === suffix || host.endsWith(`.${suffix}`);

export interface WebhookUrlRules {
  /** ALLOW_HTTP_WEBHOOKS (dev): plain http to localhost / 127.0.0.1 / [::1], any port. */
  allowHttpLocal: boolean;
  /** The operator's own hosts (and their subdomains), never a partner's endpoint. */
  blockedHosts?: readonly string[];
}

export type WebhookUrlCheck = { ok: true; url: string } | { ok: false; reason: string };

const DEV_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** Classifies a webhook URL: the normalised URL, or why the service will not call it. */
export function checkWebhookUrl(raw: string, rules: WebhookUrlRules): WebhookUrlCheck {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { ok: false, reason: "is not a valid URL" };
  }
  if (url.username || url.password) return { ok: false, reason: "must not carry credentials" };
  const host = url.hostname.toLowerCase();
  if (rules.allowHttpLocal && DEV_HOSTS.has(host) && (url.protocol === "http:" || url.protocol === "https:"))
    return { ok: true, url: url.toString() };
  if (url.protocol !== "https:") {
    return {
      ok: false,
      reason: rules.allowHttpLocal ? "must be https (or http on localhost/127.0.0.1)" : "must be https",
    };
  }
  // The URL parser has already turned 2130706433, 0x7f.1 and 0177.0.0.1 into dotted quads.
  const range = ipRange(host);
  if (range !== null) return { ok: false, reason: `must use a host name, not an IP address (${range})` };
  if (url.port !== "") return { ok: false, reason: "must use the default https port (443)" };
  const name = host.replace(/\.+$/, "");
  if (!name.includes(".")) return { ok: false, reason: "must use a fully qualified public host name" };
  if (LOCAL_SUFFIXES.some((s) => endsWithName(name, s)))
    return { ok: false, reason: "must not point to a local or internal name" };
  if (WILDCARD_DNS.some((s) => endsWithName(name, s)))
    return { ok: false, reason: "must not use a wildcard-DNS service that maps names to IP addresses" };
  if ((rules.blockedHosts ?? []).some((s) => endsWithName(name, s.toLowerCase())))
    return { ok: false, reason: "must not point to this service's own hosts" };
  return { ok: true, url: url.toString() };
}
