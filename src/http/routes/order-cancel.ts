import { createRoute } from "@hono/zod-openapi";
import { cancelPartnerOrder } from "../../services/order-cancellation";
import type { PartnerEnv } from "../app-env";
import { keyedOperation } from "../middleware/scopes";
import { createRouter } from "../router";
import { errorResponses, okResponse } from "../schemas";
import { ActionParams } from "./order-actions";
import { OrderSchema } from "./orders";

const cancelRoute = createRoute({
  method: "post",
  path: "/partner/orders/{order_id}/cancel",
  ...keyedOperation("cancelOrder"),
  tags: ["Orders"],
  summary: "Cancel an order nobody has paid",
  description:
    'Beyond the contract. A `waiting_deposit` order becomes `expired` with `status_reason: "cancelled"` at once: its deposit watch ends and `expires_at` becomes now. A deposit sent to it anyway is handled as after any expiry (seen within the late-deposit watch, then refunded, or held with actions). Idempotent: cancelling a cancelled order answers it again (200). Any other status → 409 `action_not_available`. Cancel what your user abandons, so an order made at quote time costs nothing. No body.',
  request: { params: ActionParams },
  responses: {
    200: okResponse(
      "limited",
      "The order, cancelled (or as it already was, when cancelled before).",
      OrderSchema,
    ),
    ...errorResponses(400, 401, 403, 404, 409, 429),
  },
});

export const orderCancelRouter = createRouter<PartnerEnv>();
orderCancelRouter.openapi(cancelRoute, async (c) => {
  const order = await cancelPartnerOrder(c.env, c.get("partner"), c.req.valid("param").order_id);
  c.header("Cache-Control", "no-store");
  return c.json(order, 200);
});
