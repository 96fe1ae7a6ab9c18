import {
  GIVE_UP_AFTER_MS,
  retryDelaySeconds,
  signatureHeader,
  type WebhookMessage,
} from "../domain/webhooks";
import { type DeliveryOutcome, deliveryFor, recordAttempt, webhookTarget } from "../storage/webhooks";

export interface DeliveryOptions {
  timeoutMs: number;
  /** Outbound HTTP; the runtime's fetch unless a test injects one. */
  fetch?: typeof fetch;
}

/**
 * Delivers one webhook event: POST the exact body with `X-Webhook-Signature`; a 2xx within the
 * timeout is success. Otherwise the message is retried after about a minute, doubling, at most 12 h
 * apart, until the event is 3 days old, then marked failed. Each message is acked or retried on its
 * own, so one partner's failing endpoint never holds up another's events. A message that arrives
 * again after its event was delivered (queues are at-least-once) is acked without a second POST.
 */
export async function deliverOne(
  env: Env,
  msg: Message<WebhookMessage>,
  options: DeliveryOptions,
): Promise<void> {
  const m = msg.body;
  const now = Date.now();
  const delivery = await deliveryFor(env.DB, m, new Date(now).toISOString());
  if (delivery.status !== "pending") {
    msg.ack();
    return;
  }
  const target = await webhookTarget(env.DB, m.partner_id);
  if (!target) {
    await recordAttempt(
      env.DB,
      m.event_id,
      { status: "skipped", error: "the partner has no webhook URL and secret" },
      false,
    );
    msg.ack();
    return;
  }
  let code: number | null = null;
  let error = "";
  try {
    const res = await (options.fetch ?? fetch)(target.url, {
      method: "POST",
      body: m.body,
      headers: {
        "content-type": "application/json",
        "user-agent": "swap-partner-api-webhooks/1",
        "x-webhook-signature": await signatureHeader(target.secret, m.body, Math.floor(now / 1000)),
        "x-webhook-id": m.event_id,
      },
      signal: AbortSignal.timeout(options.timeoutMs),
      redirect: "manual",
    });
    code = res.status;
    await res.body?.cancel();
    if (res.status >= 200 && res.status < 300) {
      await recordAttempt(
        env.DB,
        m.event_id,
        { status: "delivered", code, at: new Date(now).toISOString() },
        true,
      );
      msg.ack();
      return;
    }
    error = `HTTP ${res.status}`;
  } catch (err) {
    error =
      err instanceof Error && err.name === "TimeoutError"
        ? `no answer within ${options.timeoutMs} ms`
        : String(err);
  }
  const failedAttempts = delivery.attempts + 1;
  let outcome: DeliveryOutcome;
  if (now - Date.parse(delivery.window_start) >= GIVE_UP_AFTER_MS) {
    outcome = { status: "failed", code, error };
    msg.ack();
  } else {
    const delaySeconds = retryDelaySeconds(failedAttempts);
    outcome = {
      status: "pending",
      code,
      error,
      nextRetryAt: new Date(now + delaySeconds * 1000).toISOString(),
    };
    msg.retry({ delaySeconds });
  }
  await recordAttempt(env.DB, m.event_id, outcome, true);
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
