/**
 * Verifies an `X-Webhook-Signature` header (`t=<unix seconds>,v1=<hex HMAC-SHA256>`) with Web
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
  const parts = new Map(
    signatureHeader.split(",").map((kv) => {
      const i = kv.indexOf("=");
      return [kv.slice(0, i).trim(), kv.slice(i + 1).trim()] as const;
    }),
  );
  const t = Number(parts.get("t"));
  const v1 = parts.get("v1") ?? "";
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  if (!/^[0-9a-f]{64}$/.test(v1)) return false;
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["verify"],
  );
  const mac = new Uint8Array(v1.match(/../g)?.map((h) => Number.parseInt(h, 16)) ?? []);
  // crypto.subtle.verify compares in constant time.
  return crypto.subtle.verify("HMAC", key, mac, new TextEncoder().encode(`${t}.${rawBody}`));
}
