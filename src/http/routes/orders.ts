import { createRoute, z } from "@hono/zod-openapi";
import { HOLD_OUTCOMES } from "../../domain/holds";
import { regionOf } from "../../domain/liquidity";
import { tryParseDecimal } from "../../domain/money";
import type { OrderView } from "../../domain/order";
import { ORDER_STATUSES, STATUS_REASONS } from "../../domain/order-state";
import { createOrder, indexCreated, listPartnerOrders, readOrder } from "../../services/orders";
import type { PartnerEnv } from "../app-env";
import {
  assetParam,
  chainIdParam,
  EndUserCountryHeader,
  endUserCountry,
  requireNamedSides,
  tokenParam,
} from "../asset-params";
import { benchRoutesOn } from "../bench-switch";
import { BOOKMARK_HEADER, createdBookmark, readsAfterCreate } from "../middleware/d1-session";
import { keyedOperation } from "../middleware/scopes";
import { createRouter } from "../router";
import {
  AmountToMinSchema,
  decimalAmount,
  EtaSchema,
  EtaSourceSchema,
  errorResponses,
  FeesSchema,
  HEADERS,
  MaxSlippageParam,
  numberAmount,
  okResponse,
  orderRef,
  out,
  pageLimit,
  ticker,
  timestamp,
  withHeaders,
} from "../schemas";
import { serialisedJson } from "../tagged-json";
import { OrderActionsSchema } from "./order-actions-schema";

/** The bench's "screening off" reference row (scripts/bench.mjs): only where the bench routes are on. */
export const BENCH_NO_SCREENING = "x-bench-no-screening";

const tags = ["Orders"];

/** Optional string fields also accept null (many clients send null for "not set"). */
export const optionalText = (max: number, description: string) =>
  z
    .string()
    .min(1)
    .max(max)
    .nullish()
    .transform((v) => v ?? undefined)
    .openapi({ description });

const PartnerOrderId = z.string().min(1).max(64);

const amountFrom = z
  .union([numberAmount(), decimalAmount('must be a decimal string such as "0.5"')])
  .refine((v) => {
    const d = tryParseDecimal(String(v));
    return d?.gt(0) === true;
  }, "must be a positive amount")
  .openapi({
    description:
      "Amount to send, in coin_from units; must be > 0. A JSON number, or a decimal string for exactness.",
    example: 0.1,
  });

const sideNote = (side: "from" | "to") =>
  `Give network_${side} (or, on EVM networks, chain_id_${side}), and coin_${side} or token_${side} (neither = the network's native coin); or asset_${side}.`;

const CreateOrderBody = z
  .strictObject({
    coin_from: ticker
      .optional()
      .openapi({ example: "BTC", description: `Source coin ticker. ${sideNote("from")}` }),
    network_from: ticker
      .optional()
      .openapi({ example: "BTC", description: `Source network. ${sideNote("from")}` }),
    coin_to: ticker
      .optional()
      .openapi({ example: "USDT", description: `Destination coin ticker. ${sideNote("to")}` }),
    network_to: ticker
      .optional()
      .openapi({ example: "TRX", description: `Destination network. ${sideNote("to")}` }),
    token_from: tokenParam("from").nullish(),
    token_to: tokenParam("to").nullish(),
    asset_from: assetParam("from").optional(),
    asset_to: assetParam("to").optional(),
    chain_id_from: chainIdParam("from").optional(),
    chain_id_to: chainIdParam("to").optional(),
    amount_from: amountFrom,
    rate_type: z.enum(["float", "fixed"]),
    max_slippage_bps: MaxSlippageParam,
    recipient_address: z.string().min(1).max(128).openapi({
      example: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
      description:
        'Where the payout goes, validated for network_to. Live XRP/XLM/TON payouts: an account that does not exist yet is checked with the chain (422 `recipient_not_activated` below the amount that creates it; docs/integrate.md, "Recipient activation").',
    }),
    recipient_address_tag: optionalText(
      128,
      "Memo / destination tag, only for networks that use them (is_memo).",
    ),
    refund_address: optionalText(
      128,
      "Where to refund if the exchange cannot complete; validated for network_from.",
    ),
    refund_address_tag: optionalText(
      128,
      "Beyond the contract: memo for the refund address on memo networks.",
    ),
    quote_id: z
      .string()
      .max(1200)
      .regex(/^[A-Za-z0-9._-]+$/, "quote_id is a token from GET /partner/rates (A-Za-z0-9._- only)")
      .nullish()
      .transform((v) => v ?? undefined)
      .openapi({
        description:
          "Beyond the contract: a fixed quote from GET /partner/rates to lock exactly (rate_type fixed).",
      }),
    partner_order_id: PartnerOrderId.optional().openapi({
      description:
        "Beyond the contract: your own reference, ≤ 64 characters, unique per partner and mode: another order with the same one → 409 `duplicate_partner_order_id` (the same Idempotency-Key and body return the first order). Returned on reads, lists (filter `partner_order_id`), webhooks, the cabinet and its CSV.",
    }),
    metadata: z
      .record(z.string().min(1).max(500), z.string().max(500))
      .refine((m) => Object.keys(m).length <= 20, "at most 20 keys")
      .optional()
      .openapi({
        example: { user_ref: "u-8412" },
        description:
          "Beyond the contract: up to 20 string keys and values (≤ 500 characters each), returned as given wherever the order is.",
      }),
  })
  .superRefine(requireNamedSides("order"))
  .openapi("CreateOrder");

const LivemodeSchema = z.boolean().openapi({
  description:
    "Beyond the contract: false for a test order (created with a `pk_test_` key; nothing real moves, see docs/test-mode.md).",
});

const sideName = (side: "from" | "to") => (side === "from" ? "source" : "destination");

/** Each side's asset as a wallet names it, on orders and list rows alike. */
const AssetIdFields = {
  token_from: out.address().nullable().openapi({
    description: "Beyond the contract: the source token's contract address; null for a native coin.",
  }),
  token_to: out.address().nullable().openapi({
    description: "Beyond the contract: the destination token's contract address; null for a native coin.",
  }),
  chain_id_from: z
    .int()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .nullable()
    .openapi({
      format: "int64",
      description: `Beyond the contract: the EIP-155 chain id of network_from (the ${sideName("from")} side); null off EVM networks.`,
    }),
  chain_id_to: z
    .int()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .nullable()
    .openapi({
      format: "int64",
      description: `Beyond the contract: the EIP-155 chain id of network_to (the ${sideName("to")} side); null off EVM networks.`,
    }),
};

/** An order's keyless links, on every order the API, webhooks and lists return. */
const OrderLinkFields = {
  tracking_url: z.url().max(2000).openapi({
    description:
      "Beyond the contract: the order's tracking page for the person who swaps — no key, no sign-in. Hand out this link (or `status_url`); never build one from the id, which alone does not open an order (docs/widget.md).",
    example:
      "https://api.example.com/track/0193f2a4-7c1e-8b2d-9f00-3c5a7e1d2b44.9c1f3e7a2b5d4c6e8f0a1b2c3d4e5f60",
  }),
  status_url: z.url().max(2000).openapi({
    description:
      "Beyond the contract: the order's status without a key (`GET /api/v1/orders/{order_id}/status` with what opens the order), for a wallet's \"view transaction\" screen.",
    example:
      "https://api.example.com/api/v1/orders/0193f2a4-7c1e-8b2d-9f00-3c5a7e1d2b44.9c1f3e7a2b5d4c6e8f0a1b2c3d4e5f60/status",
  }),
};

export const HoldSchema = z
  .object({
    category: out
      .text(32)
      .openapi({ example: "sanctions", description: "The screening category that matched." }),
    reason: out.text(500),
    since: timestamp("When the hold began."),
    deadline_at: timestamp("When the hold ends (`at_deadline` says how); the operator may move it once."),
    at_deadline: z.enum(HOLD_OUTCOMES).openapi({
      description:
        "`refund`: the deposit goes back (to the refund address, or the sender on account chains); `operator_review`: an operator decides and records it.",
    }),
    extended: z
      .object({ reason: out.text(500), at: timestamp("When the deadline was moved.") })
      .nullable()
      .openapi({
        description: "The operator's one extension of the deadline, with its reason; null if none.",
      }),
  })
  .openapi("Hold");

export const OrderSchema = z
  .object({
    id: out.uuid(),
    short_id: out.text(10).openapi({
      example: "7K3M9QX2TB",
      description: "10 chars Crockford base32; accepted wherever id is, any case.",
    }),
    status: z.enum(ORDER_STATUSES),
    status_reason: z.enum(STATUS_REASONS).nullable().openapi({
      description:
        "Beyond the contract: why an order was refunded, failed or expired after a dropped deposit.",
    }),
    created_at: timestamp("When the order was created."),
    updated_at: timestamp("Beyond the contract: last change."),
    expires_at: timestamp("Deposit deadline."),
    coin_from: out.ticker(),
    network_from: out.ticker(),
    coin_to: out.ticker(),
    network_to: out.ticker(),
    amount_from_expected: z.number(),
    amount_to_expected: z.number().openapi({
      description:
        "Float orders: an estimate at the current rate. Fixed: guaranteed for the expected deposit.",
    }),
    amount_to_min: AmountToMinSchema.nullable().openapi({
      description:
        "Beyond the contract: the least the recipient gets for the expected deposit (float: the floor from `max_slippage_bps`; fixed: amount_to_expected); null on orders from before it.",
    }),
    amount_from_received: z
      .number()
      .nullable()
      .openapi({ description: "Beyond the contract: amount of the detected deposit." }),
    amount_to_actual: z.number().nullable().openapi({
      description:
        "Beyond the contract: the amount paid out (fixed at exchange time), once the payout is sent (`payout_txid`); null before, also on a held (`failed`) order, whose `actions` show what it would pay.",
    }),
    rate_type: z.enum(["float", "fixed"]),
    rate_quoted: z.number(),
    deposit_address: out.address(),
    deposit_address_tag: out.tag().nullable(),
    recipient_address: out.address(),
    recipient_address_tag: out
      .tag()
      .nullable()
      .openapi({ description: "Beyond the contract: the recipient memo, if any." }),
    refund_address: out.address().nullable().openapi({ description: "Beyond the contract." }),
    refund_address_tag: out.tag().nullable().openapi({ description: "Beyond the contract." }),
    deposit_txid: out.txid().nullable(),
    deposit_confirmations: out.count(1_000_000).nullable(),
    deposit_confirmations_required: out.count(10_000),
    payout_txid: out.txid().nullable(),
    refund_txid: out
      .txid()
      .nullable()
      .openapi({ description: "Beyond the contract: the refund transaction." }),
    actions: OrderActionsSchema.nullable().openapi({
      description:
        "Beyond the contract: what can be done with the money a `failed` order holds (refund, continue, or payout to another recipient); null when nothing waits for a decision. See POST …/refund, …/continue, …/payout.",
    }),
    livemode: LivemodeSchema,
    source: z.enum(["api", "widget"]).openapi({
      description:
        "Beyond the contract: `widget` when the order was created through one of your widgets or referral links (docs/widget.md), else `api`.",
    }),
    widget_id: z
      .string()
      .max(40)
      .nullable()
      .openapi({ description: "Beyond the contract: the widget (`wid_…`) the order came through, or null." }),
    fees: FeesSchema.nullable().openapi({
      description:
        "Beyond the contract: the fees of amount_to_expected, named: amount_to_expected = gross − service − partner − network. Null on orders from before fees were named.",
    }),
    completed_at: z.iso.datetime().max(40).nullable().openapi({
      description: "Beyond the contract: when the order became `completed`; null until then.",
    }),
    partner_order_id: out
      .text(64)
      .nullable()
      .openapi({ description: "Beyond the contract: your reference, if given." }),
    metadata: z
      .record(z.string().max(500), z.string().max(500))
      .nullable()
      .openapi({ description: "Beyond the contract: your metadata as given; null if none." }),
    eta_seconds: EtaSchema.nullable().openapi({
      description:
        "Beyond the contract: how long the swap was quoted to take at creation, deposit seen to payout sent; null on orders from before.",
    }),
    eta_source: EtaSourceSchema.nullable(),
    deposit_confirmation_seconds: out.count(31_536_000).nullable().openapi({
      description:
        "Beyond the contract: seconds from the deposit first seen to its confirmation; null until confirmed.",
    }),
    payout_seconds: out.count(31_536_000).nullable().openapi({
      description:
        "Beyond the contract: seconds from the deposit's confirmation to the payout sent (the exchange included); null until sent.",
    }),
    hold: HoldSchema.nullable().openapi({
      description:
        'Beyond the contract: while a deposit from a screened source holds the order (its status stays where it was), the hold and how it ends; null otherwise (docs/lifecycle.md, "Holds").',
    }),
    ...AssetIdFields,
    ...OrderLinkFields,
  })
  .openapi("Order");

/**
 * The order's public view as its list rows carry it: the Order's own fields, null on rows indexed
 * before they were (until the order next changes).
 */
const o = OrderSchema.shape;
const ListedViewFields = {
  status_reason: o.status_reason,
  rate_type: o.rate_type.nullable(),
  amount_from_expected: o.amount_from_expected.nullable(),
  amount_to_expected: o.amount_to_expected.nullable(),
  amount_from_received: o.amount_from_received,
  amount_to_actual: o.amount_to_actual,
  rate_quoted: o.rate_quoted.nullable(),
  recipient_address: o.recipient_address.nullable(),
  recipient_address_tag: o.recipient_address_tag,
  refund_address: o.refund_address,
  refund_address_tag: o.refund_address_tag,
  deposit_txid: o.deposit_txid,
  payout_txid: o.payout_txid,
  refund_txid: o.refund_txid,
  hold: o.hold,
  ...AssetIdFields,
};

export const SignatureHeader = {
  "x-signature": z.string().max(256).optional().openapi({
    description:
      "Optional: hex HMAC-SHA256 of the raw request body keyed by the key's secret (either case). When present it is verified; a mismatch is 401 `invalid_signature`.",
  }),
};

const KeyHeaders = z.object(SignatureHeader);

/** The signed request's headers plus an optional Idempotency-Key, whose replay rule `description` gives. */
export function idempotentHeaders(description: string) {
  return z.object({
    ...SignatureHeader,
    "idempotency-key": z
      .string()
      .min(1)
      .max(255)
      .regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces")
      .optional()
      .openapi({ description }),
  });
}

const IdempotencyHeaders = idempotentHeaders(
  "Same partner + key within 24 h returns the first order (201, same body); a different body → 422.",
);

export const OrderSummarySchema = z
  .object({
    id: out.uuid(),
    short_id: out.text(10),
    status: z.enum(ORDER_STATUSES),
    coin_from: out.ticker(),
    network_from: out.ticker(),
    coin_to: out.ticker(),
    network_to: out.ticker(),
    deposit_address: out.address(),
    deposit_address_tag: out.tag().nullable(),
    created_at: timestamp("When the order was created."),
    updated_at: timestamp("Last change."),
    expires_at: timestamp("Deposit deadline."),
    livemode: LivemodeSchema,
    completed_at: z.iso.datetime().max(40).nullable().openapi({
      description:
        "When the order became `completed` (null until then, and shortly after while the index catches up).",
    }),
    partner_order_id: out.text(64).nullable().openapi({ description: "Your reference, if given." }),
    ...ListedViewFields,
    ...OrderLinkFields,
  })
  .openapi("OrderSummary");

const isoDate = z.iso.datetime({ offset: true }).max(40).optional();

const ListQuery = z.object({
  status: z.enum(ORDER_STATUSES).optional(),
  created_from: isoDate.openapi({ description: "Only orders created at or after this time (ISO 8601)." }),
  created_to: isoDate.openapi({ description: "Only orders created before this time (ISO 8601)." }),
  updated_from: isoDate.openapi({
    description:
      "Only orders changed at or after this time (ISO 8601): poll for what moved since your last sync.",
  }),
  partner_order_id: PartnerOrderId.optional().openapi({
    description: "Only the order with this reference of yours.",
  }),
  limit: pageLimit(100, 20),
  cursor: z
    .string()
    .max(512)
    .optional()
    .openapi({ description: "`next_cursor` of the previous page; opaque." }),
});

export const ordersRouter = createRouter<PartnerEnv>()
  .openapi(
    createRoute({
      method: "get",
      path: "/partner/orders",
      ...keyedOperation("listOrders"),
      tags,
      summary: "List your orders, newest first",
      description:
        "Beyond the contract. Rows from the order index carrying the order's public view (amounts, addresses, transaction ids, each side's token and chain id), so one paged call by date range reports a month; `actions`, `fees`, `metadata` and timings need the order itself. Filters combine; follow `next_cursor` until it is null.",
      request: { query: ListQuery, headers: KeyHeaders },
      responses: {
        200: withHeaders(
          okResponse(
            "limited",
            "A page of orders.",
            z.object({
              data: z.array(OrderSummarySchema).max(100),
              next_cursor: z.string().max(512).nullable(),
            }),
          ),
          HEADERS.bookmark,
        ),
        ...errorResponses(400, 401, 403, 429),
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const partner = c.get("partner");
      const db = await readsAfterCreate(c, (id) => indexCreated(c.env, partner, id));
      const page = await listPartnerOrders(c.env, db, partner, {
        status: q.status,
        createdFrom: q.created_from,
        createdTo: q.created_to,
        updatedFrom: q.updated_from,
        partnerOrderId: q.partner_order_id,
        limit: q.limit,
        cursor: q.cursor,
      });
      c.header("Cache-Control", "no-store");
      return c.json(page, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/partner/orders",
      ...keyedOperation("createOrder"),
      tags,
      summary: "Create an exchange order",
      description:
        "Returns the deposit address (and tag on memo networks). The order expires if no deposit arrives within 30 minutes.",
      request: {
        headers: IdempotencyHeaders.extend(EndUserCountryHeader),
        body: { content: { "application/json": { schema: CreateOrderBody } }, required: true },
      },
      responses: {
        201: withHeaders(
          okResponse("limited", "Created (or replayed for a repeated Idempotency-Key).", OrderSchema, 201),
          HEADERS.createdBookmark,
        ),
        ...errorResponses(400, 401, 403, 409, 413, 415, 422, 429, 451, 503),
      },
    }),
    async (c) => {
      const { order } = await createOrder(
        c.env,
        c.get("config"),
        c.get("partner"),
        c.req.valid("json"),
        c.req.valid("header")["idempotency-key"],
        Date.now(),
        {
          region: regionOf(c.req.raw.cf?.continent),
          country: endUserCountry(c),
          keyId: c.get("apiKeyId"),
          unscreened: benchRoutesOn(c.env) && c.req.header(BENCH_NO_SCREENING) !== undefined,
        },
      );
      c.set("createdOrderId", order.id);
      c.header("Cache-Control", "no-store");
      c.header(BOOKMARK_HEADER, createdBookmark(order.id));
      return c.json(order, 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/partner/orders/{order_id}",
      ...keyedOperation("getOrder"),
      tags,
      summary: "Get an order by UUID or short_id",
      request: {
        params: z.object({
          order_id: orderRef.path(
            "Order UUID or short_id (any case), or the order's public capability `<uuid>.<token>`: the last segment of its `tracking_url`.",
          ),
        }),
        headers: KeyHeaders,
      },
      responses: {
        200: okResponse("limited", "The order with its current status.", OrderSchema),
        ...errorResponses(400, 401, 403, 404, 429),
      },
    }),
    async (c) => {
      const own = c.get("keyKind") === "app" ? c.get("apiKeyId") : undefined;
      const body = await readOrder(c.env, c.get("partner"), c.req.valid("param").order_id, own);
      return serialisedJson<OrderView>(c, body, { "Cache-Control": "no-store" });
    },
  );
