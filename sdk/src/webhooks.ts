import { constantTimeEqual, hmacSha256Hex } from "./hmac.js";
import type { components } from "./schema.js";

export type WebhookEvent = components["schemas"]["WebhookEvent"];

export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
}

export interface VerifyOptions {
  /** Oldest signature accepted, in seconds (default 300): older ones may be replays. */
  toleranceSeconds?: number;
  /** Now, in unix seconds (tests). */
  nowSeconds?: number;
}

/**
 * Verifies `X-Webhook-Signature` (`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`)
 * over the raw body exactly as received, then parses it. While a secret is being rotated the
 * header carries one `v1=` per valid secret; any one matching is enough. Throws
 * `WebhookVerificationError` on a bad, missing or stale signature.
 */
export async function verifyWebhook(
  rawBody: string,
  signatureHeader: string | null | undefined,
  secret: string,
  options: VerifyOptions = {},
): Promise<WebhookEvent> {
  const { toleranceSeconds = 300, nowSeconds = Math.floor(Date.now() / 1000) } = options;
  if (!signatureHeader) throw new WebhookVerificationError("No X-Webhook-Signature header.");
  let timestamp: string | undefined;
  const signatures: string[] = [];
  for (const part of signatureHeader.split(",")) {
    const eq = part.indexOf("=");
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === "t") timestamp = value;
    else if (key === "v1") signatures.push(value.toLowerCase());
  }
  if (!timestamp || !/^\d{1,12}$/.test(timestamp) || signatures.length === 0)
    throw new WebhookVerificationError("Malformed X-Webhook-Signature header.");
  if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds)
    throw new WebhookVerificationError("Signature timestamp outside the tolerance; possible replay.");
  const expected = await hmacSha256Hex(secret, `${timestamp}.${rawBody}`);
  // Every candidate is compared, so timing does not tell which one matched.
  let ok = false;
  for (const s of signatures) ok = constantTimeEqual(s, expected) || ok;
  if (!ok) throw new WebhookVerificationError("Signature does not match the body and secret.");
  return JSON.parse(rawBody) as WebhookEvent;
}
