import { createRoute } from "@hono/zod-openapi";
import { auditOperatorAction } from "../../../services/operator-audit";
import { takeOperatorAction } from "../../../services/order-actions";
import { operatorOf } from "../../middleware/admin-auth";
import { createRouter } from "../../router";
import { errorResponses } from "../../schemas";
import { ACTION_ROUTES, ActionHeaders, actionBody } from "../order-actions";
import { OrderSchema } from "../orders";
import { OrderParam } from "./orders";

const security = [{ AdminBearer: [] }];
const operationIds = {
  refund: "adminRefundOrder",
  continue: "adminContinueOrder",
  payout: "adminPayoutOrder",
} as const;

function adminActionRoute(i: 0 | 1 | 2) {
  const a = ACTION_ROUTES[i];
  return createRoute({
    method: "post",
    path: `/orders/{id}/${a.action}`,
    operationId: operationIds[a.action],
    tags: ["Admin: orders"],
    security,
    summary: `${a.summary} (operator)`,
    description: `${a.description} The same decision a partner can take, on any partner's order; logged as decided by the operator.`,
    request: {
      params: OrderParam,
      headers: ActionHeaders,
      body: { content: { "application/json": { schema: a.schema } }, required: a.action === "payout" },
    },
    responses: {
      200: {
        description: "The order after the decision (or the first answer, replayed).",
        headers: {
          "X-Operator-Hold": {
            description:
              "Only when the order was on the operator's hold: `released` (the decision ended it), or `kept: <why>` (something else on the order still waits for a decision).",
            schema: { type: "string", maxLength: 256 },
          },
        },
        content: { "application/json": { schema: OrderSchema } },
      },
      ...errorResponses(400, 401, 404, 409, 422),
    },
  });
}

/** Order actions for operators: the partner's decisions, on any order (docs/lifecycle.md). */
export const adminOrderActionsRouter = createRouter();
for (const i of [0, 1, 2] as const) {
  adminOrderActionsRouter.openapi(adminActionRoute(i), async (c) => {
    const { order, hold } = await takeOperatorAction(
      c.env,
      c.req.valid("param").id,
      actionBody(i, c.req.valid("json")),
      c.req.valid("header")["idempotency-key"],
    );
    await auditOperatorAction(c.env.DB, operatorOf(c), {
      action: `order.${ACTION_ROUTES[i].action}`,
      entity: { type: "order", id: order.id },
      before: null,
      after: {
        request: c.req.valid("json"),
        status: order.status,
        ...(hold && { hold_released: hold.released }),
      },
    });
    if (hold) c.header("X-Operator-Hold", hold.released ? "released" : `kept: ${hold.reason}`);
    c.header("Cache-Control", "no-store");
    return c.json(order, 200);
  });
}
