import { hmacSha256Hex } from "./credentials";
import type { OrderView } from "./order";
import type { OrderStatus } from "./order-state";

export const WEBHOOK_EVENT_TYPE = "order.status_changed";
/** A hold began (or its deadline moved), and a hold ended: the order's status does not change (docs/webhooks.md). */
export const HOLD_EVENT_TYPES = ["order.held", "order.released"] as const;
export type OrderEventType = typeof WEBHOOK_EVENT_TYPE | (typeof HOLD_EVENT_TYPES)[number];

/** A partner has one endpoint per mode: live keys see live deliveries, test keys test ones. */
export const WEBHOOK_MODES = ["live", "test"] as const;
export type WebhookMode = (typeof WEBHOOK_MODES)[number];

export const DELIVERY_STATUSES = ["pending", "delivered", "failed", "skipped"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface WebhookEvent {
  id: string;
  type: OrderEventType;
  created_at: string;
  /** Per order, increasing by one with every event: receivers drop anything older than they have. */
  sequence: number;
  data: { order: OrderView; previous_status: OrderStatus };
}

/** What travels on the queue: routing fields plus the exact body to deliver. */
export interface WebhookMessage {
  event_id: string;
  partner_id: string;
  /** Which of the partner's endpoints receives it; absent means live (messages before test mode). */
  mode?: WebhookMode;
  /** Null for a test event (`ping`). */
  order_id: string | null;
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
 * partner's webhook secret (the Stripe scheme: the timestamp inside the MAC stops replays). While a
 * rotation overlaps, one `v1=` per secret, the newest first — a receiver that keeps only the last
 * `v1` (a naive key=value parser) still verifies with the old secret it has not yet replaced.
 */
export async function signatureHeader(
  secrets: readonly string[],
  body: string,
  unixSeconds: number,
): Promise<string> {
  const data = new TextEncoder().encode(`${unixSeconds}.${body}`);
  const macs = await Promise.all(secrets.map((s) => hmacSha256Hex(s, data)));
  return [`t=${unixSeconds}`, ...macs.map((m) => `v1=${m}`)].join(",");
}

/** A rotation may keep the previous secret signing for at most a day. */
export const MAX_SECRET_OVERLAP_S = 24 * 3600;

export interface EndpointSecrets {
  secret: string | null;
  previous_secret: string | null;
  previous_secret_until: string | null;
}

/** The secrets that sign a delivery made at `now`: the current one, then the previous while it overlaps. */
export function signingSecrets(e: EndpointSecrets, now: number): string[] {
  if (!e.secret) return [];
  const overlapping =
    e.previous_secret !== null &&
    e.previous_secret_until !== null &&
    Date.parse(e.previous_secret_until) > now;
  return overlapping && e.previous_secret ? [e.secret, e.previous_secret] : [e.secret];
}

export const PING_EVENT_TYPE = "ping";

/** Every event type the log holds (the event browser's and the API's `type` filter). */
export const WEBHOOK_EVENT_TYPES = [WEBHOOK_EVENT_TYPE, ...HOLD_EVENT_TYPES, PING_EVENT_TYPE] as const;

/** The body of a test event: no order, just proof that the endpoint and its secret work. */
export function pingEvent(id: string, createdAt: string): string {
  return JSON.stringify({ id, type: PING_EVENT_TYPE, created_at: createdAt, data: {} });
}

/** Retry schedule: about a minute, doubling, at most 12 h between tries, for up to 3 days. */
export const FIRST_RETRY_S = 60;
export const MAX_RETRY_GAP_S = 12 * 3600;
export const GIVE_UP_AFTER_MS = 3 * 24 * 3600 * 1000;

export function retryDelaySeconds(failedAttempts: number): number {
  return Math.min(MAX_RETRY_GAP_S, FIRST_RETRY_S * 2 ** Math.max(0, failedAttempts - 1));
}

/** How much of a receiver's answer an attempt keeps: enough to read an error, bounded per row. */
export const RESPONSE_BODY_LIMIT = 2048;

export const SIGNATURE_HEADER = "x-webhook-signature";
/** What the log keeps of our signature: enough to match a receiver's log line, too little to replay. */
export const SIGNATURE_SHOWN_CHARS = 8;

/** The headers of a delivery as its attempt records them: the signature cut after 8 characters. */
/** Headers whose value is a secret or made from one: the signature, Ledger's key (docs/ledger.md). */
const SECRET_HEADERS = new Set([SIGNATURE_HEADER, "x-api-key"]);

export function recordedHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) =>
      SECRET_HEADERS.has(name.toLowerCase()) && value.length > SIGNATURE_SHOWN_CHARS
        ? [name, `${value.slice(0, SIGNATURE_SHOWN_CHARS)}…`]
        : [name, value],
    ),
  );
}

/**
 * The first `limit` bytes of a body as text, cut where a UTF-8 character starts (a multi-byte
 * character is dropped whole, not shown half); bytes that are not UTF-8 read as U+FFFD.
 */
export function bodyPrefix(bytes: Uint8Array, limit: number): { text: string; truncated: boolean } {
  if (bytes.byteLength <= limit) return { text: new TextDecoder().decode(bytes), truncated: false };
  let cut = limit;
  // A character is at most 4 bytes: at most 3 continuation bytes to step back over.
  for (let back = 0; back < 3 && cut > 0 && ((bytes[cut] ?? 0) & 0xc0) === 0x80; back++) cut--;
  return { text: new TextDecoder().decode(bytes.subarray(0, cut)), truncated: true };
}
