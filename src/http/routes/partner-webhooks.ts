// The partner's own webhook endpoint, secret and delivery log (docs/webhooks.md) — what the cabinet
// does, automated with an API key. The endpoint is the key's mode's (live keys: live).
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { parseOrderRef } from "../../domain/order-id";
import {
  DELIVERY_STATUSES,
  MAX_SECRET_OVERLAP_S,
  RESPONSE_BODY_LIMIT,
  WEBHOOK_EVENT_TYPES,
} from "../../domain/webhooks";
import type { Actor } from "../../services/cabinet-auth";
import { deliveryOptions } from "../../services/webhook-delivery";
import {
  configureWebhook,
  deliveryPage,
  resendDelivery,
  rotateWebhookSecret,
  sendTestEvent,
  type WebhookScope,
  webhookEndpoint,
} from "../../services/webhooks";
import type { PartnerEnv } from "../app-env";
import { badRequest } from "../errors";
import { clientIp } from "../middleware/rate-limit";
import { keyedOperation } from "../middleware/scopes";
import { createRouter } from "../router";
import { errorResponses, okResponse, orderRef, out, pageLimit, timestamp } from "../schemas";
import { acceptWebhookUrl } from "../webhook-url";
import { SignatureHeader } from "./orders";

const tags = ["Webhooks"];
const KeyHeaders = z.object(SignatureHeader);

const nullableTime = (description: string) => timestamp(description).nullable();

export const WebhookEndpointSchema = z
  .object({
    url: out
      .text(2048)
      .nullable()
      .openapi({ format: "uri", description: "Where events are POSTed; null: none." }),
    enabled: z
      .boolean()
      .openapi({ description: "Whether events are sent (off: they are logged `skipped`)." }),
    secret_set: z.boolean().openapi({ description: "Whether a signing secret exists (shown only once)." }),
    previous_secret_expires_at: nullableTime(
      "While a rotation overlaps: until when the previous secret also signs (a second `v1=`).",
    ),
    created_at: nullableTime("When the endpoint was first set; null before."),
    updated_at: nullableTime("Last change; null before the endpoint was first set."),
  })
  .openapi("WebhookEndpoint");

const AttemptSchema = z
  .object({
    attempted_at: timestamp("When the POST started."),
    trigger: z.enum(["automatic", "resend", "test"]),
    status_code: out
      .count(999)
      .nullable()
      .openapi({ description: "Your endpoint's HTTP status; null: none." }),
    error: out.text(500).nullable().openapi({ description: "Why it failed (status, timeout, refused URL)." }),
    duration_ms: out.count(600_000),
    request_headers: z
      .record(out.text(64), out.text(512))
      .nullable()
      .openapi({
        description:
          "The headers we sent, `X-Webhook-Signature` cut after its first 8 characters; null: nothing was sent (refused URL) or the attempt predates recording.",
        maxProperties: 16,
        example: {
          "content-type": "application/json",
          "user-agent": "swap-partner-api-webhooks/1",
          "x-webhook-signature": "t=176415…",
          "x-webhook-id": "evt_0c5e3f5b8d2a4e1f9a7b6c5d4e3f2a1b",
        },
      }),
    response_body: out
      .text(RESPONSE_BODY_LIMIT)
      .nullable()
      .openapi({ description: "Your endpoint's answer, its first 2 KB (UTF-8); null: no answer." }),
    response_body_truncated: z
      .boolean()
      .openapi({ description: "Whether your endpoint's answer was longer than `response_body`." }),
  })
  .openapi("WebhookAttempt");

const DeliverySchema = z
  .object({
    event_id: out.text(64),
    type: out.text(64).openapi({ description: "`order.status_changed`, or `ping` for a test event." }),
    order_id: out.uuid().nullable().openapi({ description: "Null for a test event." }),
    sequence: out.count(1_000_000),
    status: z.enum(DELIVERY_STATUSES),
    created_at: timestamp("When the event happened."),
    delivered_at: nullableTime("When an attempt got a 2xx."),
    next_retry_at: nullableTime("When the next automatic attempt is due (pending events)."),
    last_error: out.text(500).nullable(),
    attempts: z.array(AttemptSchema).max(1000).openapi({ description: "Every attempt, oldest first." }),
    payload: out.text(65_536).openapi({ description: "The exact body delivered and signed." }),
  })
  .openapi("WebhookEventDelivery");

const UpdateBody = z
  .strictObject({
    url: z.string().max(2048).nullable().optional().openapi({
      format: "uri",
      description:
        "https on port 443 to a public host name: no IP literals, no local or internal names (docs/webhooks.md). null removes it.",
    }),
    enabled: z.boolean().optional(),
  })
  .refine((b) => b.url !== undefined || b.enabled !== undefined, { message: "give url and/or enabled" })
  // What the refine says, in the document: `{}` is refused.
  .openapi("UpdateWebhookEndpoint", { minProperties: 1 });

const RotateBody = z
  .strictObject({
    overlap_seconds: z.number().int().min(0).max(MAX_SECRET_OVERLAP_S).default(0).openapi({
      description: "How long the previous secret keeps signing too (0–86400; default 0).",
      format: "int32",
    }),
  })
  .openapi("RotateWebhookSecret");

const DeliveriesQuery = z.object({
  status: z.enum(DELIVERY_STATUSES).optional(),
  type: z.enum(WEBHOOK_EVENT_TYPES).optional().openapi({ description: "Only events of this type." }),
  order_id: orderRef.filter("Only this order's events: its `id` (UUID) or its `short_id`."),
  cursor: z.string().max(512).optional().openapi({ description: "`next_cursor` of the previous page." }),
  limit: pageLimit(100, 20),
});

const EventParams = z.object({
  event_id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "event_id", in: "path" } }),
});

/** The key's mode: its own endpoint and log (live keys, and keys from before modes, are live). */
function scopeOf(c: Context<PartnerEnv>): WebhookScope {
  const partner = c.get("partner");
  return { partnerId: partner.id, mode: partner.livemode ? "live" : "test" };
}

const actorOf = (c: Context<PartnerEnv>): Actor => ({
  partnerId: c.get("partner").id,
  label: `api key ${c.get("apiKeyId")}`,
  ip: clientIp(c),
});

const okJson = <S>(description: string, schema: S, status = 200) =>
  okResponse("limited", description, schema, status);

export const partnerWebhooksRouter = createRouter<PartnerEnv>()
  .openapi(
    createRoute({
      method: "get",
      path: "/partner/webhook",
      ...keyedOperation("getWebhookEndpoint"),
      tags,
      summary: "Your webhook endpoint",
      request: { headers: KeyHeaders },
      responses: { 200: okJson("The endpoint.", WebhookEndpointSchema), ...errorResponses(401, 403, 429) },
    }),
    async (c) => {
      c.header("Cache-Control", "no-store");
      return c.json(await webhookEndpoint(c.env.DB, scopeOf(c)), 200);
    },
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/partner/webhook",
      ...keyedOperation("updateWebhookEndpoint"),
      tags,
      summary: "Set your webhook URL and/or switch delivery on or off",
      request: {
        headers: KeyHeaders,
        body: { content: { "application/json": { schema: UpdateBody } }, required: true },
      },
      responses: {
        200: okJson("The endpoint after the change.", WebhookEndpointSchema),
        ...errorResponses(400, 401, 403, 413, 415, 429),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const url = body.url === undefined ? undefined : acceptWebhookUrl(c.get("config"), body.url, "url");
      const changes = {
        ...(url !== undefined ? { url } : {}),
        ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
      };
      c.header("Cache-Control", "no-store");
      return c.json(await configureWebhook(c.env.DB, actorOf(c), scopeOf(c), changes), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/partner/webhook/secret",
      ...keyedOperation("rotateWebhookSecret"),
      tags,
      summary: "Create or rotate the signing secret (shown only in this response)",
      description:
        "With `overlap_seconds`, deliveries carry a second `v1=` signature made with the previous secret until the overlap ends.",
      request: {
        headers: KeyHeaders,
        body: { content: { "application/json": { schema: RotateBody } }, required: false },
      },
      responses: {
        201: okJson(
          "The new secret.",
          z.object({ secret: out.text(64).openapi({ example: "whsec_…" }), endpoint: WebhookEndpointSchema }),
          201,
        ),
        ...errorResponses(400, 401, 403, 413, 415, 429),
      },
    }),
    async (c) => {
      // The body is optional: none rotates without overlap.
      const raw = (await c.req.text()).trim();
      let body: unknown = {};
      try {
        if (raw !== "") body = JSON.parse(raw);
      } catch {
        throw badRequest("Malformed JSON in request body.");
      }
      const parsed = RotateBody.safeParse(body);
      if (!parsed.success)
        throw badRequest(`overlap_seconds must be a whole number of seconds, 0–${MAX_SECRET_OVERLAP_S}.`, [
          { field: "overlap_seconds", message: "0–86400" },
        ]);
      const scope = scopeOf(c);
      const rotated = await rotateWebhookSecret(c.env.DB, actorOf(c), scope, parsed.data.overlap_seconds);
      c.header("Cache-Control", "no-store");
      return c.json(rotated, 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/partner/webhook/deliveries",
      ...keyedOperation("listWebhookDeliveries"),
      tags,
      summary: "Your webhook events with every delivery attempt, newest first",
      request: { query: DeliveriesQuery, headers: KeyHeaders },
      responses: {
        200: okJson(
          "A page of events; follow `next_cursor` until it is null.",
          z.object({ data: z.array(DeliverySchema).max(100), next_cursor: z.string().max(512).nullable() }),
        ),
        ...errorResponses(400, 401, 403, 429),
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const order = q.order_id === undefined ? undefined : parseOrderRef(q.order_id.trim());
      if (order === null)
        throw badRequest("order_id must be an order id (UUID) or short_id.", [
          { field: "order_id", message: "an order id or short_id" },
        ]);
      const page = await deliveryPage(c.env.DB, scopeOf(c), {
        status: q.status,
        type: q.type,
        orderId: order?.id,
        cursor: q.cursor,
        limit: q.limit,
      });
      c.header("Cache-Control", "no-store");
      return c.json(page, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/partner/webhook/deliveries/{event_id}/resend",
      ...keyedOperation("resendWebhookEvent"),
      tags,
      summary: "Send an event again now: same body and event id, a fresh signature",
      request: { params: EventParams, headers: KeyHeaders },
      responses: {
        200: okJson("The event with the new attempt (whatever your endpoint answered).", DeliverySchema),
        ...errorResponses(400, 401, 403, 404, 409, 429),
      },
    }),
    async (c) => {
      const view = await resendDelivery(
        c.env.DB,
        deliveryOptions(c.get("config")),
        actorOf(c),
        scopeOf(c),
        c.req.valid("param").event_id,
      );
      c.header("Cache-Control", "no-store");
      return c.json(view, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/partner/webhook/test",
      ...keyedOperation("sendWebhookTestEvent"),
      tags,
      summary: "Send a `ping` test event now, signed and logged like the others",
      request: { headers: KeyHeaders },
      responses: {
        201: okJson("The test event with its attempt.", DeliverySchema, 201),
        ...errorResponses(401, 403, 409, 429),
      },
    }),
    async (c) => {
      const view = await sendTestEvent(c.env.DB, deliveryOptions(c.get("config")), actorOf(c), scopeOf(c));
      c.header("Cache-Control", "no-store");
      return c.json(view, 201);
    },
  );
