/** A strong entity tag for `body`: the first 16 hex digits of its SHA-256, quoted. */
export async function etagOf(body: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body)));
  let hex = "";
  for (const b of digest.subarray(0, 8)) hex += b.toString(16).padStart(2, "0");
  return `"${hex}"`;
}

/**
 * Whether an `If-None-Match` value names `etag` (RFC 9110 §13.1.2: weak comparison, `*` matches
 * any). Weak because a proxy that compresses the response (Cloudflare's edge does) turns our
 * strong tag into `W/"…"`, and the client sends that back.
 */
export function ifNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  const ours = opaque(etag);
  return header.split(",").some((tag) => {
    const t = opaque(tag);
    return t === "*" || t === ours;
  });
}
