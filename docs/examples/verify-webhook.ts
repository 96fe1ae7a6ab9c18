/**
 * Verifies an `X-Webhook-Signature` header (`t=<unix seconds>,v1=<hex HMAC-SHA256>[,v1=…]`) with Web
 * Crypto. Pass the raw request body exactly as received (before any JSON parsing) and your
 * `whsec_…` secret. Rejects signatures older than `toleranceSeconds` to stop replays.
 */
export async function verifyWebhook(
  rawBody: string,
  signatureHeader: string,
  secret: string,
  toleranceSeconds = 300,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<boolean> {
  const parts = signatureHeader.split(",").map((kv) => {
    const i = kv.indexOf("=");
    return [kv.slice(0, i).trim(), kv.slice(i + 1).trim()] as const;
  });
  const t = Number(parts.find(([k]) => k === "t")?.[1]);
  // During a secret rotation the header carries one v1 per secret: any one may match yours.
  const v1s = parts.filter(([k, v]) => k === "v1" && /^[0-9a-f]{64}$/.test(v)).map(([, v]) => v);
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceSeconds || v1s.length === 0) return false;
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["verify"],
  );
  const signed = new TextEncoder().encode(`${t}.${rawBody}`);
  let ok = false;
  for (const v1 of v1s) {
    const mac = new Uint8Array(v1.match(/../g)?.map((h) => Number.parseInt(h, 16)) ?? []);
    // crypto.subtle.verify compares in constant time; every candidate is checked.
    ok = (await crypto.subtle.verify("HMAC", key, mac, signed)) || ok;
  }
  return ok;
}
