// Per-key IP allowlists: IPv4 and IPv6 CIDRs, compared as big integers so both families share
// one code path. An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is compared as the IPv4 address.

export interface Cidr {
  family: 4 | 6;
  base: bigint;
  prefix: number;
  /** The canonical text, as stored and shown. */
  text: string;
}

function parseV4(s: string): bigint | null {
  const parts = s.split(".");
  if (parts.length !== 4) return null;
  let n = 0n;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255 || (p.length > 1 && p.startsWith("0"))) return null;
    n = (n << 8n) | BigInt(p);
  }
  return n;
}

function parseV6(s: string): bigint | null {
  let text = s;
  // A trailing dotted quad (::ffff:192.0.2.1) becomes its two hex groups.
  const lastColon = text.lastIndexOf(":");
  if (lastColon >= 0 && text.includes(".", lastColon)) {
    const v4 = parseV4(text.slice(lastColon + 1));
    if (v4 === null) return null;
    text = `${text.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const group = (h: string) => (h === "" ? [] : h.split(":"));
  const head = group(halves[0] ?? "");
  const rest = halves.length === 2 ? group(halves[1] ?? "") : [];
  const explicit = head.length + rest.length;
  if (halves.length === 1 ? explicit !== 8 : explicit > 7) return null;
  const zeros = halves.length === 2 ? 8 - explicit : 0;
  let n = 0n;
  for (const g of [...head, ...Array<string>(zeros).fill("0"), ...rest]) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
    n = (n << 16n) | BigInt(`0x${g}`);
  }
  return n;
}

type Address = { family: 4 | 6; value: bigint };

const V4_MAPPED = 0xffffn << 32n;

export function parseIp(s: string): Address | null {
  const v4 = parseV4(s);
  if (v4 !== null) return { family: 4, value: v4 };
  const v6 = parseV6(s.replace(/^\[|\]$/g, ""));
  if (v6 === null) return null;
  if (v6 >> 32n === 0xffffn) return { family: 4, value: v6 - V4_MAPPED };
  return { family: 6, value: v6 };
}

/** Parses `a.b.c.d/n`, `x::y/n` or a bare address (a /32 or /128); null when malformed. */
export function parseCidr(raw: string): Cidr | null {
  const s = raw.trim();
  const slash = s.indexOf("/");
  const addrText = slash < 0 ? s : s.slice(0, slash);
  const v4 = parseV4(addrText);
  const v6 = v4 === null ? parseV6(addrText) : null;
  const a: Address | null =
    v4 !== null ? { family: 4, value: v4 } : v6 !== null ? { family: 6, value: v6 } : null;
  if (!a) return null;
  const bits = a.family === 4 ? 32 : 128;
  const prefixText = slash < 0 ? String(bits) : s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  if (prefix > bits) return null;
  const base = a.value & mask(bits, prefix);
  return { family: a.family, base, prefix, text: `${formatAddress(a.family, base)}/${prefix}` };
}

function mask(bits: number, prefix: number): bigint {
  const all = (1n << BigInt(bits)) - 1n;
  return all ^ ((1n << BigInt(bits - prefix)) - 1n);
}

function formatAddress(family: 4 | 6, v: bigint): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((s) => String((v >> s) & 255n)).join(".");
  const groups = Array.from({ length: 8 }, (_, i) => ((v >> BigInt(112 - 16 * i)) & 0xffffn).toString(16));
  // Compress the longest run of zero groups (RFC 5952).
  let best = { at: -1, len: 0 };
  for (let i = 0; i < 8; ) {
    if (groups[i] !== "0") {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === "0") j++;
    if (j - i > best.len && j - i > 1) best = { at: i, len: j - i };
    i = j;
  }
  if (best.at < 0) return groups.join(":");
  return `${groups.slice(0, best.at).join(":")}::${groups.slice(best.at + best.len).join(":")}`;
}

export function ipAllowed(allowlist: readonly Cidr[], ip: string): boolean {
  const a = parseIp(ip);
  if (!a) return false;
  const bits = a.family === 4 ? 32 : 128;
  return allowlist.some((c) => c.family === a.family && (a.value & mask(bits, c.prefix)) === c.base);
}
