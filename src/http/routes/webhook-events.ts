import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { ORDER_STATUSES } from "../../domain/order-state";
import { PAYOUT_SENT_EVENT } from "../../domain/payout-events";
import { PING_EVENT_TYPE, WEBHOOK_EVENT_TYPE } from "../../domain/webhooks";
import { out, timestamp } from "../schemas";
import { OrderSchema } from "./orders";

export const WebhookEventSchema = z
  .object({
    id: out
      .text(64)
      .openapi({ description: "Unique per event; deduplicate on it (delivery is at-least-once)." }),
    type: z.literal(WEBHOOK_EVENT_TYPE),
    created_at: timestamp("When the transition happened."),
    sequence: out.count(1_000_000).openapi({
      description:
        "Per order 1, 2, 3, … in transition order; ignore one not higher than the last you processed.",
    }),
    data: z.object({
      order: OrderSchema,
      previous_status: z.enum(ORDER_STATUSES),
    }),
  })
  .openapi("WebhookEvent");

export const PingEventSchema = z
  .object({
    id: out.text(64),
    type: z.literal(PING_EVENT_TYPE),
    created_at: timestamp("When the test event was sent."),
    data: z.object({}),
  })
  .openapi("WebhookPingEvent");

export const PayoutSentEventSchema = z
  .object({
    id: out.text(64).openapi({ description: "The same for every delivery of this payout's event." }),
    type: z.literal(PAYOUT_SENT_EVENT),
    created_at: timestamp("When the payout gateway confirmed the payout."),
    data: z.object({
      statement_id: out.text(128),
      month: out.text(7),
      livemode: z.boolean(),
      txid: out.txid(),
      coin: out.ticker(),
      network: out.ticker(),
      amount: out.text(64),
      address: out.address(),
      tag: out.tag().nullable(),
    }),
  })
  .openapi("PayoutSentEvent");

const SignatureHeaders = z.object({
  "x-webhook-signature": out.text(400).openapi({
    description:
      '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, keyed by your webhook secret; during a secret rotation with overlap one `v1=` per secret (any one matching is enough).',
  }),
  "x-webhook-id": out.text(64).openapi({ description: "The event id, as in the body." }),
});

/** The events the service POSTs to a partner's endpoint (OpenAPI 3.1 `webhooks`; docs/webhooks.md). */
export function registerWebhookEvents(registry: OpenAPIHono["openAPIRegistry"]): void {
  registry.registerWebhook({
    method: "post",
    path: PING_EVENT_TYPE,
    operationId: "webhookPing",
    tags: ["Webhooks"],
    security: [],
    summary: "A test event",
    description:
      "Sent by `POST /api/v1/partner/webhook/test` (or the cabinet's *Send test event*), signed like every event.",
    request: {
      headers: SignatureHeaders,
      body: { content: { "application/json": { schema: PingEventSchema } }, required: true },
    },
    responses: { 200: { description: "Any 2xx acknowledges it; a test event is not retried." } },
  });
  registry.registerWebhook({
    method: "post",
    path: PAYOUT_SENT_EVENT,
    operationId: "payoutSent",
    tags: ["Statements"],
    security: [],
    summary: "A monthly statement was paid",
    description:
      'Sent once the payout of a statement is confirmed by the payout gateway, with the statement id and txid (docs/earnings.md, "Statements"). Signed like every event.',
    request: {
      headers: SignatureHeaders,
      body: { content: { "application/json": { schema: PayoutSentEventSchema } }, required: true },
    },
    responses: {
      200: {
        description: "Any 2xx acknowledges the event; anything else is retried with backoff for 3 days.",
      },
    },
  });
  registry.registerWebhook({
    method: "post",
    path: WEBHOOK_EVENT_TYPE,
    operationId: "orderStatusChanged",
    tags: ["Orders"],
    // Sent by the service, signed with the webhook secret (not an API key).
    security: [],
    summary: "An order changed status",
    description:
      "Sent to your webhook endpoint after every status change. Verify `X-Webhook-Signature` over the raw body before parsing (docs/webhooks.md; the SDK's `verifyWebhook`).",
    request: {
      headers: SignatureHeaders,
      body: { content: { "application/json": { schema: WebhookEventSchema } }, required: true },
    },
    responses: {
      200: {
        description: "Any 2xx acknowledges the event; anything else is retried with backoff for 3 days.",
      },
    },
  });
}
