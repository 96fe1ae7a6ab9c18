import { z } from "@hono/zod-openapi";
import { STATUS_REASONS } from "../../domain/order-state";
import { out } from "../schemas";

const why = out
  .text(300)
  .nullable()
  .openapi({ description: "Why the action is not available now; null when it is." });

const RefundActionSchema = z.object({
  available: z.boolean(),
  amount: z
    .number()
    .nullable()
    .openapi({ description: "What the refund would send now: the deposit less the network fee." }),
  coin: out.ticker(),
  network: out.ticker(),
  address: out.address().nullable().openapi({ description: "The refund address the order has, if any." }),
  requires_address: z.boolean().openapi({ description: "The refund call must carry refund_address." }),
  unavailable_reason: why,
});

const ExtraDepositActionSchema = z
  .object({
    deposit: out
      .text(200)
      .openapi({ description: "`<txid>:<index>`: pass it as `deposit` to the refund call." }),
    txid: out.txid(),
    index: out
      .count(1_000_000_000)
      .openapi({ description: "Output / log index of the deposit in its transaction." }),
    amount_received: z.number(),
    refund: RefundActionSchema,
  })
  .openapi("ExtraDepositAction");

const WrongNetworkDepositActionSchema = ExtraDepositActionSchema.extend({
  deposit: out.text(200).openapi({
    description: "`<network>:<txid>:<index>`: pass it as `deposit` to the refund call.",
  }),
  reason: z.enum(["wrong_network_deposit"]).openapi({
    description: "Sent to this order's address on another EVM network: not credited to the order.",
  }),
  coin: out.ticker(),
  network: out.ticker().openapi({ description: "The network it arrived on, where its refund is sent." }),
}).openapi("WrongNetworkDepositAction");

/** The `actions` of an order (src/domain/order-actions.ts), as partners and webhooks see it. */
export const OrderActionsSchema = z
  .object({
    reason: z.enum(STATUS_REASONS).nullable().openapi({
      description:
        "The order's status_reason: why it waits; null when only extra or wrong-network deposits wait.",
    }),
    refund: RefundActionSchema,
    continue: z.object({
      available: z.boolean(),
      amount_to_estimate: z
        .number()
        .nullable()
        .openapi({ description: "What the exchange would pay out now, at the float rate with your markup." }),
      rate: z.number().nullable(),
      valid_until: z.string().max(40).nullable().openapi({
        description: "Always null: a continued order is exchanged at the float rate of its exchange.",
      }),
      unavailable_reason: why,
    }),
    payout: z
      .object({
        available: z.boolean(),
        amount: z.number().nullable(),
        coin: out.ticker(),
        network: out.ticker(),
        unavailable_reason: why,
      })
      .nullable()
      .openapi({
        description: "Only after payout_failed: send the exchanged amount to another recipient address.",
      }),
    extra_deposits: z.array(ExtraDepositActionSchema).max(1000).openapi({
      description:
        "Deposits to this order's address beyond the one it runs on, each waiting for its own refund (POST …/refund with `deposit`).",
    }),
    wrong_network_deposits: z.array(WrongNetworkDepositActionSchema).max(1000).openapi({
      description:
        "Deposits to this order's address on another EVM network (the same address exists on each): never credited to the order, each refunded on the network it arrived on (POST …/refund with `deposit` and `refund_address`), once.",
    }),
  })
  .openapi("OrderActions");
