import { hmacSha256Hex } from "./credentials";
import type { OrderView } from "./order";
import type { OrderStatus } from "./order-state";

export const WEBHOOK_EVENT_TYPE = "order.status_changed";

export interface WebhookEvent {
  id: string;
  type: typeof WEBHOOK_EVENT_TYPE;
  created_at: string;
  /** Per order, increasing by one with every event: receivers drop anything older than they have. */
  sequence: number;
  data: { order: OrderView; previous_status: OrderStatus };
}

/** What travels on the queue: routing fields plus the exact body to deliver. */
export interface WebhookMessage {
  event_id: string;
  partner_id: string;
  order_id: string;
  sequence: number;
  type: string;
  created_at: string;
  body: string;
}

export function newEventId(): string {
  return `evt_${crypto.randomUUID().replaceAll("-", "")}`;
}

/**
 * `X-Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, keyed by the
 * partner's webhook secret (the Stripe scheme: the timestamp inside the MAC stops replays).
 */
export async function signatureHeader(secret: string, body: string, unixSeconds: number): Promise<string> {
  const mac = await hmacSha256Hex(secret, new TextEncoder().encode(`${unixSeconds}.${body}`));
  return `t=${unixSeconds},v1=${mac}`;
}

/** Retry schedule: about a minute, doubling, at most 12 h between tries, for up to 3 days. */
export const FIRST_RETRY_S = 60;
export const MAX_RETRY_GAP_S = 12 * 3600;
export const GIVE_UP_AFTER_MS = 3 * 24 * 3600 * 1000;

export function retryDelaySeconds(failedAttempts: number): number {
  return Math.min(MAX_RETRY_GAP_S, FIRST_RETRY_S * 2 ** Math.max(0, failedAttempts - 1));
}

/** Webhook URLs: https, or http to localhost/127.0.0.1 when ALLOW_HTTP_WEBHOOKS is set (dev). */
export function checkWebhookUrl(
  raw: string,
  allowHttpLocal: boolean,
): { ok: true; url: string } | { ok: false; reason: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "not a valid URL" };
  }
  if (url.username || url.password) return { ok: false, reason: "credentials in the URL are not allowed" };
  if (url.protocol === "https:") return { ok: true, url: url.toString() };
  const local = url.hostname === "localhost" || url.hostname === "127.0.0.1";
  if (url.protocol === "http:" && local && allowHttpLocal) return { ok: true, url: url.toString() };
  return {
    ok: false,
    reason: allowHttpLocal ? "must be https (or http on localhost/127.0.0.1)" : "must be https",
  };
}
