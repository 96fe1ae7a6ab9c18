import type { Config } from "../config";
import { checkWebhookUrl, type WebhookUrlRules } from "../domain/webhook-url";
import {
  GIVE_UP_AFTER_MS,
  retryDelaySeconds,
  signatureHeader,
  signingSecrets,
  type WebhookMessage,
} from "../domain/webhooks";
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
 * One HTTP attempt: POST the exact body, signed now (with every secret that currently signs), and
 * report status or error and duration. Redirects are not followed (`manual`): a 3xx is a failure,
 * so an endpoint cannot bounce the service into another network.
 */
export async function attemptDelivery(
  endpoint: EndpointRow & { url: string },
  delivery: Pick<DeliveryRow, "event_id" | "payload">,
  trigger: AttemptTrigger,
  options: DeliveryOptions,
): Promise<Attempt & { ok: boolean }> {
  const started = Date.now();
  const base = { attempted_at: new Date(started).toISOString(), trigger };
  const checked = checkWebhookUrl(endpoint.url, options.rules);
  if (!checked.ok)
    return {
      ...base,
      ok: false,
      status_code: null,
      error: `URL refused: it ${checked.reason}`,
      duration_ms: 0,
    };
  let status_code: number | null = null;
  let error: string | null = null;
  try {
    const res = await (options.fetch ?? fetch)(checked.url, {
      method: "POST",
      body: delivery.payload,
      headers: {
        "content-type": "application/json",
        "user-agent": "swap-partner-api-webhooks/1",
        "x-webhook-signature": await signatureHeader(
          signingSecrets(endpoint, started),
          delivery.payload,
          Math.floor(started / 1000),
        ),
        "x-webhook-id": delivery.event_id,
      },
      signal: AbortSignal.timeout(options.timeoutMs),
      redirect: "manual",
    });
    status_code = res.status;
    await res.body?.cancel();
    if (res.status < 200 || res.status >= 300) error = `HTTP ${res.status}`;
  } catch (err) {
    error =
      err instanceof Error && err.name === "TimeoutError"
        ? `no answer within ${options.timeoutMs} ms`
        : String(err);
  }
  return { ...base, ok: error === null, status_code, error, duration_ms: Date.now() - started };
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
  const endpoint = await getEndpoint(env.DB, m.partner_id, mode);
  const unusable = endpointUnusable(endpoint);
  if (unusable !== null || !endpoint?.url) {
    await recordAttempt(env.DB, m.event_id, { status: "skipped" }, null, unusable);
    msg.ack();
    return;
  }
  const attempt = await attemptDelivery({ ...endpoint, url: endpoint.url }, delivery, "automatic", options);
  const { ok: _, ...row } = attempt;
  if (attempt.ok) {
    await recordAttempt(env.DB, m.event_id, { status: "delivered", deliveredAt: row.attempted_at }, row);
    msg.ack();
    return;
  }
  if (now - Date.parse(delivery.window_start) >= GIVE_UP_AFTER_MS) {
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
