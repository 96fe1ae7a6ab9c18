import { createRoute, z } from "@hono/zod-openapi";
import { DomainError } from "../../domain/errors";
import { ORDER_STATUSES, STATUS_REASONS } from "../../domain/order-state";
import { publicOrderStatus } from "../../domain/order-status";
import { trackOrder } from "../../services/order-status";
import { publicRateLimit } from "../middleware/auth";
import { createRouter } from "../router";
import {
  AmountToMinSchema,
  EtaSchema,
  EtaSourceSchema,
  errorResponses,
  okResponse,
  out,
  timestamp,
  withCors,
} from "../schemas";
import { HoldSchema } from "./orders";

const masked = (what: string) =>
  z
    .string()
    .max(128)
    .openapi({
      description: `The ${what} with its middle hidden (first 6 and last 4 characters), so the person who swaps can recognise it and nobody else can read it.`,
      example: "TR7NHq…Lj6t",
    });

export const OrderStatusSchema = z
  .object({
    id: out.uuid(),
    status: z.enum(ORDER_STATUSES),
    status_reason: z.enum(STATUS_REASONS).nullable(),
    coin_from: out.ticker(),
    network_from: out.ticker(),
    coin_to: out.ticker(),
    network_to: out.ticker(),
    rate_type: z.enum(["float", "fixed"]),
    amount_from_expected: z.number(),
    amount_from_received: z.number().nullable(),
    amount_to_expected: z.number(),
    amount_to_actual: z.number().nullable(),
    deposit_address: out.address(),
    deposit_address_tag: out.tag().nullable(),
    deposit_confirmations: out.count(1_000_000).nullable(),
    deposit_confirmations_required: out.count(10_000),
    recipient_address: masked("payout address"),
    refund_address: masked("refund address").nullable(),
    deposit_txid: out.txid().nullable(),
    payout_txid: out.txid().nullable(),
    refund_txid: out.txid().nullable(),
    expires_at: timestamp("Deposit deadline."),
    updated_at: timestamp("Last change."),
    livemode: z.boolean().openapi({ description: "False for a test order: nothing real moves." }),
    eta_seconds: EtaSchema.nullable().openapi({
      description:
        "How long the swap was quoted to take, deposit seen to payout sent (see the Order's `eta_seconds`); null on orders from before.",
    }),
    eta_source: EtaSourceSchema.nullable(),
    amount_to_min: AmountToMinSchema.nullable().openapi({
      description:
        "The least the recipient gets (see the Order's `amount_to_min`); null on orders from before.",
    }),
    wrong_network_deposits: z
      .array(z.object({ coin: out.ticker(), network: out.ticker(), amount: z.number() }))
      .max(1000)
      .openapi({
        description:
          "Deposits that reached this order's address on another EVM network: not part of the swap, each waiting to be sent back on the network it arrived on.",
      }),
    hold: HoldSchema.nullable().openapi({
      description:
        "While a deposit from a screened source holds the order: why, until when, and what happens then (see the Order's `hold`); null otherwise.",
    }),
  })
  .openapi("OrderStatus");

/** Seconds a status may be reused: a poll every few seconds costs one object read per window. */
export const STATUS_MAX_AGE_SECONDS = 5;

export const notTracked = () => new DomainError("order_not_found", "Order not found.");

const route = createRoute({
  method: "get",
  path: "/orders/{order_id}/status",
  operationId: "getOrderStatus",
  tags: ["Public"],
  security: [],
  middleware: publicRateLimit,
  summary: "An order's status, without a key",
  description:
    "For the person who swaps and a wallet's \"view transaction\" screen: the order without the partner, with the payout and refund addresses masked. The URL is the order's `status_url` as its Order gives it: the order's UUID followed by a secret token, so neither the short_id nor the UUID alone opens an order (orders created before tokens open by their UUID alone; docs/widget.md). Rate-limited per IP like every public route; cacheable for a few seconds.",
  request: {
    params: z.object({
      // Any other string is simply not found; past the bound (Cloudflare's own URL limit) it is a 400.
      order_id: z.string().min(1).max(16_384).openapi({
        description:
          "What opens the order: `<uuid>.<token>`, the segment of its `status_url` (any case). Anything else is 404.",
        example: "0193f2a4-7c1e-8b2d-9f00-3c5a7e1d2b44.9c1f3e7a2b5d4c6e8f0a1b2c3d4e5f60",
      }),
    }),
  },
  responses: withCors({
    200: okResponse("limited", "The order's status.", OrderStatusSchema),
    ...errorResponses(400, 404, 429),
  }),
});

export const orderStatusRouter = createRouter().openapi(route, async (c) => {
  const found = await trackOrder(c.env, c.req.valid("param").order_id);
  if (!found) throw notTracked();
  c.header("Cache-Control", `public, max-age=${STATUS_MAX_AGE_SECONDS}`);
  return c.json(publicOrderStatus(found.order), 200);
});
