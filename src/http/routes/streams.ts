import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  EVENT_ID_RE,
  isStreamEvent,
  lastEventId,
  STREAM_EVENT_TYPES,
  type StreamView,
} from "../../domain/streams";
import { WEBHOOK_EVENT_TYPE } from "../../domain/webhooks";
import { releaseConnections } from "../../objects/rate-limiter";
import {
  openStream,
  partnerEventStream,
  partnerOrderStream,
  publicOrderStream,
  type StreamTarget,
} from "../../services/streams";
import type { AppEnv } from "../app-env";
import { ApiError } from "../errors";
import { publicRateLimit } from "../middleware/auth";
import { keyedOperation } from "../middleware/scopes";
import { takeStreamSlots } from "../middleware/stream-slots";
import { createRouter } from "../router";
import { errorResponses, HEADERS, orderRef, withCors } from "../schemas";
import { OrderStatusSchema } from "./order-status";
import { WebhookEventSchema } from "./webhook-events";

const eventId = z.string().max(64).regex(EVENT_ID_RE, "must be an event id `evt_…`");

const ResumeQuery = {
  last_event_id: eventId.optional().openapi({
    description:
      "Resume after this event: every later event is replayed first, then live ones follow, none missing and none twice. `Last-Event-ID` (which `EventSource` sends by itself on reconnect) wins when both are given.",
  }),
};

const ResumeHeaders = z.object({
  "last-event-id": eventId.optional().openapi({ description: "The `id:` of the last event received." }),
});

const WIRE =
  'Server-Sent Events (`text/event-stream`): each event is `id:` (the webhook event id), `event:` (the webhook event type) and one `data:` line of JSON; a `: heartbeat` comment every 15 s. With `Upgrade: websocket` the same path is a WebSocket whose text frames are `{"id","event","data"}` (`last_event_id` in the query to resume). The server closes a connection after 15 minutes at most: reconnect with the last event id (docs/events.md).';

const sseResponse = (description: string, data: z.ZodType) => ({
  description,
  headers: { ...HEADERS.requestId, ...HEADERS.rateLimit },
  content: {
    "text/event-stream": {
      schema: z
        .object({
          id: eventId,
          event: z.enum(STREAM_EVENT_TYPES),
          data,
        })
        .openapi({ description: "One event as its three SSE fields (`data` is one line of JSON)." }),
    },
  },
});

/** Opens the stream on the object that holds it, with the connection slots it takes. */
async function stream(
  c: Context<AppEnv>,
  target: () => Promise<StreamTarget>,
  view: StreamView,
  types: string[] | null,
  query: string | undefined,
): Promise<Response> {
  const to = await target();
  const leases = await takeStreamSlots(c);
  const open = {
    view,
    types,
    lastEventId: lastEventId(c.req.header("last-event-id"), query),
    leases,
    websocket: c.req.header("upgrade")?.toLowerCase() === "websocket",
  };
  let res: Response;
  try {
    res = await openStream(to, open);
  } catch (err) {
    c.executionCtx.waitUntil(releaseConnections(c.env, leases));
    throw err;
  }
  // The object's answer, with headers the middleware may still add to; the request id is set here
  // because a streamed answer is not rebuilt by the middleware that sets it on the others.
  const headers = new Headers(res.headers);
  headers.set("X-Request-Id", c.get("requestId"));
  return new Response(res.body, { status: res.status, headers, webSocket: res.webSocket });
}

const orderEvents = createRoute({
  method: "get",
  path: "/partner/orders/{order_id}/events",
  ...keyedOperation("orderEvents"),
  tags: ["Events"],
  summary: "An order's events, live",
  description: `Every event of the order — the same id, type and JSON as its webhook — then each new one as it happens; when the order is finished (completed or refunded) the stream ends after its last event. An app key may stream the orders it created. ${WIRE}`,
  request: {
    params: z.object({ order_id: orderRef.path() }),
    query: z.object(ResumeQuery),
    headers: ResumeHeaders,
  },
  responses: {
    200: sseResponse("The order's events.", WebhookEventSchema),
    ...errorResponses(400, 401, 403, 404, 429),
  },
});

const partnerEvents = createRoute({
  method: "get",
  path: "/partner/events",
  ...keyedOperation("events"),
  tags: ["Events"],
  summary: "All your orders' events, live",
  description: `The events of all your orders in the key's mode (a test key: test orders), as they happen, in the order they were recorded. Resumable from any event id of the last 7 days at least; without one the stream starts with the next event. ${WIRE}`,
  request: {
    query: z.object({
      ...ResumeQuery,
      type: z
        .string()
        .max(200)
        .optional()
        .openapi({
          description: `Only these event types, comma-separated (${STREAM_EVENT_TYPES.join(", ")}).`,
          example: WEBHOOK_EVENT_TYPE,
        }),
      mode: z.enum(["live", "test"]).optional().openapi({
        description:
          "The key's own mode, which the stream follows: a live key streams live orders, a test key test orders; the other mode is a 400.",
      }),
    }),
    headers: ResumeHeaders,
  },
  responses: {
    200: sseResponse("Your orders' events.", WebhookEventSchema),
    ...errorResponses(400, 401, 403, 429),
  },
});

const publicEvents = createRoute({
  method: "get",
  path: "/orders/{order_id}/events",
  operationId: "orderStatusEvents",
  tags: ["Public"],
  security: [],
  middleware: publicRateLimit,
  summary: "An order's status, live, without a key",
  description: `The order's status API, as a stream a browser's \`EventSource\` can open: addressed as the order's \`status_url\` with \`/status\` replaced by \`/events\`, and each event's \`data\` is the status API's body after that change (addresses masked, nothing of the partner's). Rate-limited and connection-limited per IP. ${WIRE}`,
  request: {
    params: z.object({
      order_id: z.string().min(1).max(16_384).openapi({
        description: "What opens the order: `<uuid>.<token>`, the segment of its `status_url`.",
      }),
    }),
    query: z.object(ResumeQuery),
    headers: ResumeHeaders,
  },
  responses: withCors({
    200: sseResponse("The order's status after each change.", OrderStatusSchema),
    ...errorResponses(400, 404, 429),
  }),
});

/** A `type` filter: known event types, each once; null for all. */
function typeFilter(raw: string | undefined): string[] | null {
  if (raw === undefined) return null;
  const types = [...new Set(raw.split(",").map((t) => t.trim()))];
  const unknown = types.filter((t) => !isStreamEvent(t));
  if (unknown.length)
    throw new ApiError(
      400,
      "invalid_request",
      `Unknown event type ${unknown.map((t) => `\`${t}\``).join(", ")}; known: ${STREAM_EVENT_TYPES.join(", ")}.`,
    );
  return types;
}

export const streamsRouter = createRouter<AppEnv>()
  .openapi(orderEvents, async (c) => {
    const own = c.get("keyKind") === "app" ? c.get("apiKeyId") : undefined;
    const partner = c.get("partner");
    if (!partner) throw new Error("partnerAuth sets the partner");
    const { order_id } = c.req.valid("param");
    return stream(
      c,
      () => partnerOrderStream(c.env, partner, order_id, own),
      "partner",
      null,
      c.req.valid("query").last_event_id,
    );
  })
  .openapi(partnerEvents, async (c) => {
    const partner = c.get("partner");
    if (!partner) throw new Error("partnerAuth sets the partner");
    const q = c.req.valid("query");
    const keyMode = partner.livemode ? "live" : "test";
    if (q.mode !== undefined && q.mode !== keyMode)
      throw new ApiError(
        400,
        "invalid_request",
        `This is a ${keyMode} key: its stream carries ${keyMode} orders' events only; use a ${q.mode} key for ${q.mode} orders.`,
      );
    return stream(
      c,
      async () => partnerEventStream(c.env, partner),
      "partner",
      typeFilter(q.type),
      q.last_event_id,
    );
  })
  .openapi(publicEvents, async (c) => {
    const { order_id } = c.req.valid("param");
    return stream(
      c,
      () => publicOrderStream(c.env, order_id),
      "public",
      null,
      c.req.valid("query").last_event_id,
    );
  });
