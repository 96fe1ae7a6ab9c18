import { withTimeout } from "../adapters/http-client";
import type { Config } from "../config";
import { LEDGER_STATUS_EVENT_TYPE } from "../domain/ledger-swap";
import { checkWebhookUrl, type WebhookUrlRules } from "../domain/webhook-url";
import {
  bodyPrefix,
  GIVE_UP_AFTER_MS,
  RESPONSE_BODY_LIMIT,
  recordedHeaders,
  retryDelaySeconds,
  SIGNATURE_HEADER,
  signatureHeader,
  signingSecrets,
  type WebhookMessage,
  type WebhookMode,
} from "../domain/webhooks";
import { getLedgerWebhook } from "../storage/ledger-webhooks";
import {
  type AttemptRow,
  type AttemptTrigger,
  type DeliveryRow,
  deliveryFor,
  type EndpointRow,
  getEndpoint,
  purgeWebhookHistory,
  recordAttempt,
} from "../storage/webhooks";

export interface DeliveryOptions {
  timeoutMs: number;
  /** Which URLs may be called; checked again at every attempt (a stored URL may predate a rule). */
  rules: WebhookUrlRules;
  /** Outbound HTTP; the runtime's fetch unless a test injects one. */
  fetch?: typeof fetch;
}

/** The operator's own hosts: never a partner's endpoint (the payout signer above all). */
export function deliveryOptions(config: Config, fetchImpl?: typeof fetch): DeliveryOptions {
  const hostOf = (u: string | undefined) => {
    try {
      return u ? [new URL(u).hostname] : [];
    } catch {
      return [];
    }
  };
  return {
    timeoutMs: config.WEBHOOK_TIMEOUT_SECONDS * 1000,
    rules: {
      allowHttpLocal: config.ALLOW_HTTP_WEBHOOKS,
      blockedHosts: [...hostOf(config.PAYOUT_GATEWAY_URL), ...hostOf(config.CABINET_ORIGIN)],
    },
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  };
}

export type Attempt = Omit<AttemptRow, "id" | "event_id">;

/** Why an endpoint cannot receive anything now, or null when it can. */
export function endpointUnusable(e: EndpointRow | null): string | null {
  if (!e?.url || !e.secret) return "the partner has no webhook URL and secret";
  if (e.enabled !== 1) return "the webhook endpoint is disabled";
  return null;
}

/**
 * The first `limit` + 1 bytes of a response (one more than kept, to know it was longer); the rest
 * is never read. Null when the body cannot be read (the receiver hung up or ran out the timeout).
 */
async function responsePrefix(res: Response, limit: number): Promise<Uint8Array | null> {
  if (!res.body) return new Uint8Array();
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size <= limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    return null;
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const bytes = new Uint8Array(Math.min(size, limit + 1));
  let at = 0;
  for (const c of chunks) {
    const part = c.subarray(0, bytes.byteLength - at);
    bytes.set(part, at);
    at += part.byteLength;
  }
  return bytes;
}

/**
 * One HTTP attempt: POST the exact body, signed now (with every secret that currently signs), and
 * report status or error, duration, the headers sent (signature redacted) and the first 2 KB of the
 * answer. Redirects are not followed (`manual`): a 3xx is a failure, so an endpoint cannot bounce
 * the service into another network.
 */
export async function attemptDelivery(
  endpoint: EndpointRow & { url: string },
  delivery: Pick<DeliveryRow, "event_id" | "payload">,
  trigger: AttemptTrigger,
  options: DeliveryOptions,
): Promise<Attempt & { ok: boolean }> {
  const now = Date.now();
  return postAttempt(
    endpoint.url,
    delivery.payload,
    async () => ({
      [SIGNATURE_HEADER]: await signatureHeader(
        signingSecrets(endpoint, now),
        delivery.payload,
        Math.floor(now / 1000),
      ),
      "x-webhook-id": delivery.event_id,
    }),
    trigger,
    options,
  );
}

/**
 * One POST of `body` to `url` with the JSON headers and `own` (a partner's signature, Ledger's
 * key), recorded the same way whoever receives it; the URL rules apply to every receiver.
 */
async function postAttempt(
  url: string,
  body: string,
  own: () => Promise<Record<string, string>>,
  trigger: AttemptTrigger,
  options: DeliveryOptions,
): Promise<Attempt & { ok: boolean }> {
  const started = Date.now();
  const base = {
    attempted_at: new Date(started).toISOString(),
    trigger,
    request_headers: null,
    response_body: null,
    response_truncated: 0,
  };
  const checked = checkWebhookUrl(url, options.rules);
  if (!checked.ok)
    return {
      ...base,
      ok: false,
      status_code: null,
      error: `URL refused: it ${checked.reason}`,
      duration_ms: 0,
    };
  const headers = {
    "content-type": "application/json",
    "user-agent": "swap-partner-api-webhooks/1",
    ...(await own()),
  };
  let status_code: number | null = null;
  let error: string | null = null;
  // Set inside the timed exchange (a cast, so the closure's assignment is not narrowed away).
  let answer = null as { text: string; truncated: boolean } | null;
  try {
    await withTimeout(options.timeoutMs, async (signal) => {
      const res = await (options.fetch ?? fetch)(checked.url, {
        method: "POST",
        body,
        headers,
        signal,
        redirect: "manual",
      });
      status_code = res.status;
      const prefix = await responsePrefix(res, RESPONSE_BODY_LIMIT);
      answer = prefix ? bodyPrefix(prefix, RESPONSE_BODY_LIMIT) : null;
      if (res.status < 200 || res.status >= 300) error = `HTTP ${res.status}`;
    });
  } catch (err) {
    error =
      err instanceof Error && err.name === "TimeoutError"
        ? `no answer within ${options.timeoutMs} ms`
        : String(err);
  }
  return {
    ...base,
    ok: error === null,
    status_code,
    error,
    duration_ms: Date.now() - started,
    request_headers: JSON.stringify(recordedHeaders(headers)),
    response_body: answer?.text ?? null,
    response_truncated: answer?.truncated ? 1 : 0,
  };
}

/**
 * Delivers one webhook event from the queue: a 2xx within the timeout is success. Otherwise the
 * message is retried after about a minute, doubling, at most 12 h apart, until the event is 3 days
 * old, then marked failed. Each message is acked or retried on its own, so one partner's failing
 * endpoint never holds up another's events. A message that arrives again after its event was
 * delivered (queues are at-least-once) is acked without a second POST.
 */
export async function deliverOne(
  env: Env,
  msg: Message<WebhookMessage>,
  options: DeliveryOptions,
): Promise<void> {
  const m = msg.body;
  const now = Date.now();
  const mode = m.mode ?? "live";
  const delivery = await deliveryFor(env.DB, { ...m, mode }, new Date(now).toISOString());
  if (delivery.status !== "pending") {
    msg.ack();
    return;
  }
  const attempt =
    m.type === LEDGER_STATUS_EVENT_TYPE
      ? await attemptLedger(env.DB, delivery, "automatic", options)
      : await attemptPartner(env.DB, m, mode, delivery, options);
  if (typeof attempt === "string") {
    await recordAttempt(env.DB, m.event_id, { status: "skipped" }, null, attempt);
    msg.ack();
    return;
  }
  const { ok: _, ...row } = attempt;
  if (attempt.ok) {
    await recordAttempt(env.DB, m.event_id, { status: "delivered", deliveredAt: row.attempted_at }, row);
    msg.ack();
    return;
  }
  // Ledger answers 405 for a swap already final there and 422 for a status it cannot map: no
  // retry can change either.
  const refusedForGood =
    m.type === LEDGER_STATUS_EVENT_TYPE && (row.status_code === 405 || row.status_code === 422);
  if (refusedForGood || now - Date.parse(delivery.window_start) >= GIVE_UP_AFTER_MS) {
    await recordAttempt(env.DB, m.event_id, { status: "failed" }, row);
    msg.ack();
    return;
  }
  const delaySeconds = retryDelaySeconds(delivery.attempts + 1);
  await recordAttempt(
    env.DB,
    m.event_id,
    { status: "pending", nextRetryAt: new Date(now + delaySeconds * 1000).toISOString() },
    row,
  );
  msg.retry({ delaySeconds });
}

/** The partner's own endpoint's attempt, or why there is none. */
async function attemptPartner(
  db: D1Database,
  m: WebhookMessage,
  mode: WebhookMode,
  delivery: DeliveryRow,
  options: DeliveryOptions,
): Promise<(Attempt & { ok: boolean }) | string> {
  const endpoint = await getEndpoint(db, m.partner_id, mode);
  const unusable = endpointUnusable(endpoint);
  if (unusable !== null || !endpoint?.url) return unusable ?? "no endpoint";
  return attemptDelivery({ ...endpoint, url: endpoint.url }, delivery, "automatic", options);
}

/**
 * Ledger's status webhook (docs/ledger.md): POST {url}/webhook/{swapId}/status with the key Ledger
 * issued in `x-api-key` and the partner's provider id added to the stored body; or why there is none.
 */
export async function attemptLedger(
  db: D1Database,
  delivery: Pick<DeliveryRow, "partner_id" | "order_id" | "payload">,
  trigger: AttemptTrigger,
  options: DeliveryOptions,
): Promise<(Attempt & { ok: boolean }) | string> {
  const hook = await getLedgerWebhook(db, delivery.partner_id);
  if (!hook) return "the partner has no Ledger webhook";
  const url = `${hook.url.replace(/\/+$/, "")}/webhook/${encodeURIComponent(delivery.order_id ?? "")}/status`;
  const body = JSON.stringify({ providerId: hook.provider_id, ...JSON.parse(delivery.payload) });
  return postAttempt(url, body, async () => ({ "x-api-key": hook.api_key }), trigger, options);
}

export async function deliverBatch(
  batch: MessageBatch<WebhookMessage>,
  env: Env,
  options: DeliveryOptions,
): Promise<void> {
  await Promise.all(
    batch.messages.map((msg) =>
      deliverOne(env, msg, options).catch((err) => {
        // D1 trouble: let the queue bring the message back shortly.
        console.error(
          JSON.stringify({
            level: "error",
            msg: "webhook delivery crashed",
            event: msg.body.event_id,
            error: String(err),
          }),
        );
        msg.retry({ delaySeconds: 30 });
      }),
    ),
  );
}

/** The cron's retention step (docs/webhooks.md, "Retention"). */
export async function expireWebhookHistory(env: Env, config: Config, now: number) {
  const before = new Date(now - config.WEBHOOK_RETENTION_DAYS * 86_400_000).toISOString();
  return purgeWebhookHistory(env.DB, before);
}
