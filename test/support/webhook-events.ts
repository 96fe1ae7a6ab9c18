// An order's webhook event through the queue consumer, as the order object sends it: the delivery
// row, the POST to the partner's endpoint and the attempt, with outbound HTTP mocked.
import { createExecutionContext, createMessageBatch } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { WebhookMessage } from "../../src/domain/webhooks";
import { deliverBatch } from "../../src/services/webhook-delivery";

export async function queueOrderEvent(
  partnerId: string,
  fetchImpl: typeof fetch,
  orderId: string = crypto.randomUUID(),
): Promise<string> {
  const id = `evt_${crypto.randomUUID().replaceAll("-", "")}`;
  const m: WebhookMessage = {
    event_id: id,
    partner_id: partnerId,
    order_id: orderId,
    sequence: 1,
    type: "order.status_changed",
    created_at: new Date().toISOString(),
    body: JSON.stringify({ id, type: "order.status_changed", sequence: 1, data: {} }),
  };
  const batch = createMessageBatch<WebhookMessage>("swap-partner-api-webhooks", [
    { id: "m0", timestamp: new Date(), attempts: 1, body: m },
  ]);
  createExecutionContext();
  await deliverBatch(batch, env, { fetch: fetchImpl, timeoutMs: 1000, rules: { allowHttpLocal: false } });
  return id;
}
