import { createRoute, z } from "@hono/zod-openapi";
import { auditOperatorAction } from "../../../services/operator-audit";
import { decideOrderHold, holdOrder, resolveOrder } from "../../../services/order-actions";
import { reviewQueuePage } from "../../../services/review-queue";
import type { AppEnv } from "../../app-env";
import { operatorOf } from "../../middleware/admin-auth";
import { createRouter } from "../../router";
import { errorResponses, pageLimit } from "../../schemas";
import { OrderSchema, OrderSummarySchema } from "../orders";
import { OrderParam } from "./orders";

const security = [{ AdminBearer: [] }];
const tags = ["Admin: orders"];

const ReviewQuery = z.object({
  needs_action: z.enum(["true"]).openapi({
    description:
      "Required, `true`: the review queue (orders whose `actions` is not null) is the listing offered.",
  }),
  limit: pageLimit(100, 50),
  cursor: z
    .string()
    .max(512)
    .optional()
    .openapi({ description: "`next_cursor` of the previous page; opaque." }),
});

const ResolveBody = z
  .strictObject({
    kind: z.enum(["payout", "refund"]).openapi({
      description: "`payout`: the recipient was paid by hand; `refund`: the deposit was sent back by hand.",
    }),
    txid: z
      .string()
      .min(1)
      .max(128)
      .regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces")
      .openapi({ description: "The transaction id of the transfer made by hand." }),
    note: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .openapi({ description: "Why and how: goes into the order's log." }),
  })
  .openapi("ResolveOrder");

const HoldBody = z
  .strictObject({
    note: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .openapi({ description: "Why: goes into the order's log and the operator audit log." }),
  })
  .openapi("OrderHold");

const HoldReason = z
  .string()
  .trim()
  .min(1)
  .max(500)
  .openapi({ description: "Why: goes into the order's log and the operator audit log." });

const ExtendHoldBody = z
  .strictObject({
    hours: z
      .number()
      .int()
      .min(1)
      .max(24 * 90)
      .openapi({ format: "int32", description: "Hours the deadline moves by, from where it is now." }),
    reason: HoldReason,
  })
  .openapi("ExtendHold");

const HoldRefundBody = z.strictObject({ reason: HoldReason }).openapi("HoldRefund");

/** The operator's review queue and the record of transfers made by hand (docs/operators.md). */
export const adminOrderReviewRouter = createRouter<AppEnv>()
  .openapi(
    createRoute({
      method: "get",
      path: "/orders",
      operationId: "adminListOrdersNeedingAction",
      tags,
      security,
      summary: "The review queue: orders waiting for a decision on money they hold, oldest first",
      description:
        "Every order whose `actions` is not null (a failed order holding a deposit, or an extra deposit waiting for its refund), or that a deposit from a screened source holds (its row's `hold`: the category, the deadline and what happens then), from the order index, oldest `created_at` first. Follow `next_cursor` until it is null; fetch one order for its `actions` and log.",
      request: { query: ReviewQuery },
      responses: {
        200: {
          description: "A page of the queue.",
          content: {
            "application/json": {
              schema: z.object({
                data: z.array(OrderSummarySchema.extend({ partner_id: z.string().max(128) })).max(100),
                next_cursor: z.string().max(512).nullable(),
              }),
            },
          },
        },
        ...errorResponses(400, 401),
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      c.header("Cache-Control", "no-store");
      return c.json(await reviewQueuePage(c.env, { limit: q.limit, cursor: q.cursor }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/orders/{id}/resolve",
      operationId: "adminResolveOrder",
      tags,
      security,
      summary: "Record a payout or refund made by hand, outside the service",
      description:
        "For an order waiting for a decision, or stuck in `exchanging`, on hold (`POST /orders/{id}/hold`), whose money an operator moved by hand: it ends `completed` (payout) or `refunded` (refund; `status_reason` `exchange_failed` from `exchanging`) with the txid, the note and the operator in its log, and no action or venue leg can start another transfer. Refused with 409 `send_pending` while a send of that kind is pending or of unknown outcome at the gateway, and with 409 `action_not_available` when the order is not on hold. Repeating the same kind and txid returns the order.",
      request: {
        params: OrderParam,
        body: { content: { "application/json": { schema: ResolveBody } }, required: true },
      },
      responses: {
        200: {
          description: "The order after the record.",
          content: { "application/json": { schema: OrderSchema } },
        },
        ...errorResponses(400, 401, 404, 409),
      },
    }),
    async (c) => {
      const order = await resolveOrder(
        c.env,
        c.get("operator"),
        c.req.valid("param").id,
        c.req.valid("json"),
      );
      await auditOperatorAction(c.env.DB, operatorOf(c), {
        action: "order.resolve",
        entity: { type: "order", id: order.id },
        before: null,
        after: { ...c.req.valid("json"), status: order.status },
      });
      c.header("Cache-Control", "no-store");
      return c.json(order, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/orders/{id}/hold",
      operationId: "adminHoldOrder",
      tags,
      security,
      summary: "Put an order waiting for a decision, or exchanging, on hold",
      description:
        "While the hold stands, the partner's (and the partner cabinet's) decisions on the order answer 409 `action_not_available`, so the operator can move the money by hand and record it with `resolve`, which requires the hold. The operator's own decisions still go, and end the hold (`X-Operator-Hold`). On an `exchanging` order the hold also stops the exchange: no venue leg is placed or looked up until it is released (the answer waits for a step under way). Logged on the order and in the operator audit log (`order.hold`). Holding a held order changes nothing. 409 `action_not_available` when the order waits for no decision and is not exchanging.",
      request: {
        params: OrderParam,
        body: { content: { "application/json": { schema: HoldBody } }, required: true },
      },
      responses: {
        200: {
          description: "The order, on hold.",
          content: { "application/json": { schema: OrderSchema } },
        },
        ...errorResponses(400, 401, 404, 409),
      },
    }),
    async (c) => {
      const actor = { operator: c.get("operator"), requestId: c.get("requestId") };
      const order = await holdOrder(c.env, actor, c.req.valid("param").id, true, c.req.valid("json").note);
      c.header("Cache-Control", "no-store");
      return c.json(order, 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/orders/{id}/hold",
      operationId: "adminReleaseOrder",
      tags,
      security,
      summary: "Release an order's hold: the partner's decisions go again",
      description:
        "A held `exchanging` order's exchange goes on from where it stopped. Logged on the order and in the operator audit log (`order.release`). Releasing an order that is not on hold changes nothing.",
      request: { params: OrderParam },
      responses: {
        200: {
          description: "The order, released.",
          content: { "application/json": { schema: OrderSchema } },
        },
        ...errorResponses(401, 404),
      },
    }),
    async (c) => {
      const actor = { operator: c.get("operator"), requestId: c.get("requestId") };
      const order = await holdOrder(c.env, actor, c.req.valid("param").id, false, "released");
      c.header("Cache-Control", "no-store");
      return c.json(order, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/orders/{id}/hold/extend",
      operationId: "adminExtendHold",
      tags,
      security,
      summary: "Move a screened deposit's hold deadline, once",
      description:
        "The order's `hold.deadline_at` moves `hours` later and `hold.extended` records the reason; the partner sees the new deadline (and an `order.held` webhook). Once only: a second extension answers 409 `action_not_available`. Audited (`order.hold_extend`). 409 when the order has no screening hold.",
      request: {
        params: OrderParam,
        body: { content: { "application/json": { schema: ExtendHoldBody } }, required: true },
      },
      responses: {
        200: {
          description: "The order, its hold extended.",
          content: { "application/json": { schema: OrderSchema } },
        },
        ...errorResponses(400, 401, 404, 409),
      },
    }),
    async (c) => {
      const actor = { operator: c.get("operator"), requestId: c.get("requestId") };
      const order = await decideOrderHold(c.env, actor, c.req.valid("param").id, {
        kind: "extend",
        ...c.req.valid("json"),
      });
      c.header("Cache-Control", "no-store");
      return c.json(order, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/orders/{id}/hold/refund",
      operationId: "adminRefundHold",
      tags,
      security,
      summary: "End a screened deposit's hold in a refund now",
      description:
        "The hold's outcome becomes `refund` and its deadline now: the deposit goes back once confirmed, to the refund address, or the sender on account chains (`status_reason` `source_screened`). 409 `action_not_available` when neither is known (settle it by hand: `resolve`) or the order has no screening hold. Audited (`order.hold_refund`).",
      request: {
        params: OrderParam,
        body: { content: { "application/json": { schema: HoldRefundBody } }, required: true },
      },
      responses: {
        200: {
          description: "The order, its hold ending in a refund.",
          content: { "application/json": { schema: OrderSchema } },
        },
        ...errorResponses(400, 401, 404, 409),
      },
    }),
    async (c) => {
      const actor = { operator: c.get("operator"), requestId: c.get("requestId") };
      const order = await decideOrderHold(c.env, actor, c.req.valid("param").id, {
        kind: "refund",
        reason: c.req.valid("json").reason,
      });
      c.header("Cache-Control", "no-store");
      return c.json(order, 200);
    },
  );
