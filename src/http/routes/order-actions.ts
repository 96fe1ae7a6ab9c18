import { createRoute, z } from "@hono/zod-openapi";
import { type ActionBody, takeOrderAction } from "../../services/order-actions";
import type { PartnerEnv } from "../app-env";
import { keyedOperation } from "../middleware/scopes";
import { createRouter } from "../router";
import { errorResponses, okResponse, orderRef } from "../schemas";
import { idempotentHeaders, OrderSchema, optionalText } from "./orders";

const tags = ["Orders"];

export const ActionParams = z.object({
  order_id: orderRef.path(),
});

export const ActionHeaders = idempotentHeaders(
  "The same key with the same decision returns the first answer (200, same body); with another decision → 409.",
);

export const RefundBody = z
  .strictObject({
    refund_address: optionalText(
      128,
      "Where to send the deposit back, validated for network_from; required when the order has none.",
    ),
    refund_address_tag: optionalText(128, "Memo for the refund address on memo networks."),
    deposit: z
      .string()
      .max(200)
      .regex(
        /^[\x21-\x7e]+:\d{1,9}$/,
        "must be <txid>:<index> or <network>:<txid>:<index>, as in actions.extra_deposits[].deposit or actions.wrong_network_deposits[].deposit",
      )
      .optional()
      .openapi({
        description:
          "Refund this extra deposit (`actions.extra_deposits[].deposit`, `<txid>:<index>`) or wrong-network deposit (`actions.wrong_network_deposits[].deposit`, `<network>:<txid>:<index>`, sent back on that network) instead of the order's own; without it the order's own deposit is refunded.",
      }),
  })
  .openapi("RefundOrder");

export const ContinueBody = z.strictObject({}).openapi("ContinueOrder");

export const PayoutBody = z
  .strictObject({
    recipient_address: z
      .string()
      .min(1)
      .max(128)
      .openapi({ description: "The new recipient address, validated for network_to." }),
    recipient_address_tag: optionalText(128, "Memo / destination tag, on memo networks."),
  })
  .openapi("PayoutOrder");

/** The three decisions as routes; `prefix` and `operation` name them for each audience. */
export const ACTION_ROUTES = [
  {
    action: "refund",
    schema: RefundBody,
    summary: "Refund the deposit a failed order holds, or an extra deposit",
    description:
      "Sends the deposit, less the network fee, back to `refund_address` (or the order's own). Offered while `actions.refund.available`. With `deposit`, sends that extra deposit back instead, once (offered while its `actions.extra_deposits[].refund.available`, and only once it is confirmed); a wrong-network deposit (`actions.wrong_network_deposits[]`) goes back on the network it arrived on, to the `refund_address` the call must carry.",
  },
  {
    action: "continue",
    schema: ContinueBody,
    summary: "Exchange the deposit a failed order holds after all",
    description:
      "Exchanges the received amount at the float rate of the exchange (your markup included) and pays the recipient. Offered while `actions.continue.available`.",
  },
  {
    action: "payout",
    schema: PayoutBody,
    summary: "Send a failed payout to another recipient address",
    description:
      "After `payout_failed`: pays the exchanged amount to the new address. Offered while `actions.payout.available`.",
  },
] as const;

const operationIds = { refund: "refundOrder", continue: "continueOrder", payout: "payoutOrder" } as const;

/** The validated body of action route `i`, as the service takes it. */
export function actionBody(i: 0 | 1 | 2, json: unknown): ActionBody {
  return { ...(json as object), kind: ACTION_ROUTES[i].action } as ActionBody;
}

function actionRoute(i: 0 | 1 | 2) {
  const a = ACTION_ROUTES[i];
  return createRoute({
    method: "post",
    path: `/partner/orders/{order_id}/${a.action}`,
    ...keyedOperation(operationIds[a.action]),
    tags,
    summary: a.summary,
    description: `Beyond the contract. ${a.description} The answer is the order after the decision; the decision and your key id go into its log and a webhook.`,
    request: {
      params: ActionParams,
      headers: ActionHeaders,
      body: { content: { "application/json": { schema: a.schema } }, required: a.action === "payout" },
    },
    responses: {
      200: okResponse(
        "limited",
        "The order after the decision (or the first answer, replayed).",
        OrderSchema,
      ),
      ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422, 429),
    },
  });
}

export const orderActionsRouter = createRouter<PartnerEnv>();
for (const i of [0, 1, 2] as const) {
  orderActionsRouter.openapi(actionRoute(i), async (c) => {
    const order = await takeOrderAction(
      c.env,
      { kind: "partner", partnerId: c.get("partner").id, keyId: c.get("apiKeyId") },
      c.req.valid("param").order_id,
      actionBody(i, c.req.valid("json")),
      c.req.valid("header")["idempotency-key"],
      c.get("partner").livemode,
    );
    c.header("Cache-Control", "no-store");
    return c.json(order, 200);
  });
}
