import { createRoute, z } from "@hono/zod-openapi";
import { feeSplit, storedFees } from "../../domain/fees";
import { regionOf } from "../../domain/liquidity";
import { parseDecimal, toJsonNumber } from "../../domain/money";
import { feesView } from "../../domain/order";
import { issueQuoteFor } from "../../services/fixed-quotes";
import { quotedMaximum } from "../../services/liquidity-cap";
import { feeTermsOf, priceQuote, quoteFloor } from "../../services/quoting";
import {
  assetParam,
  chainIdParam,
  EndUserCountryHeader,
  endUserCountry,
  requireNamedSides,
  tokenParam,
} from "../asset-params";
import { badRequest } from "../errors";
import { keyedOperation } from "../middleware/scopes";
import { createRouter, repeatableHeaders, repeatableQuery } from "../router";
import {
  AmountToMinSchema,
  decimalAmount,
  EtaSchema,
  EtaSourceSchema,
  errorResponses,
  FeesSchema,
  MaxSlippageParam,
  okResponse,
  out,
  ticker,
  withCors,
} from "../schemas";

const decimalParam = (description: string) =>
  decimalAmount("must be a positive decimal number such as 0.5").optional().openapi({ description });

const RatesQuery = repeatableQuery(
  z
    .object({
      coin_from: ticker.optional().openapi({
        example: "BTC",
        description:
          "Source coin ticker. Required unless the asset is named by network_from (or chain_id_from) and token_from.",
      }),
      coin_to: ticker.optional().openapi({
        example: "ETH",
        description:
          "Destination coin ticker. Required unless the asset is named by network_to (or chain_id_to) and token_to.",
      }),
      token_from: tokenParam("from").optional(),
      token_to: tokenParam("to").optional(),
      asset_from: assetParam("from").optional(),
      asset_to: assetParam("to").optional(),
      chain_id_from: chainIdParam("from").optional(),
      chain_id_to: chainIdParam("to").optional(),
      network_from: ticker
        .optional()
        .openapi({ example: "BTC", description: "Source network; required when the coin is on several." }),
      network_to: ticker.optional().openapi({
        example: "ETH",
        description: "Destination network; required when the coin is on several.",
      }),
      amount: decimalParam("Amount to exchange, in coin_from units. Default: the pair's min_amount."),
      amount_to: decimalParam(
        "Beyond the contract: amount to receive, in coin_to units, for a reverse quote (how much must be sent). Exclusive with `amount`.",
      ),
      rate_type: z
        .enum(["float", "fixed"])
        .default("float")
        .openapi({ description: "`float` (default) or `fixed`." }),
      max_slippage_bps: MaxSlippageParam,
    })
    .superRefine(requireNamedSides("quote")),
);

export const RateQuoteSchema = z
  .object({
    coin_from: out.ticker(),
    coin_to: out.ticker(),
    network_from: out.ticker().openapi({ description: "Beyond the contract: the resolved source network." }),
    network_to: out
      .ticker()
      .openapi({ description: "Beyond the contract: the resolved destination network." }),
    rate_type: z.enum(["float", "fixed"]),
    rate: z.number().openapi({
      description:
        "Effective rate: amount_to / amount_from after spread, markup and payout fee (≤ 12 significant digits).",
    }),
    amount_from: z
      .number()
      .openapi({ description: "Beyond the contract: the amount quoted, in coin_from units." }),
    amount_to: z.number().openapi({
      description:
        "Beyond the contract: what the recipient gets, in coin_to units, after the payout fee (float: at the rate now, indicative; fixed: firm).",
    }),
    amount_to_min: AmountToMinSchema,
    min_amount: z.number().openapi({ description: "Minimum amount_from for this pair (rounded up)." }),
    max_amount: z.number().openapi({
      description:
        "Maximum amount_from for this pair (rounded down), capped by what the service can pay out of coin_to in the caller's region now (docs/liquidity.md); it may then fall below min_amount, and no order can be placed until liquidity returns.",
    }),
    fees: FeesSchema.openapi({
      description:
        "Beyond the contract: the fees of amount_to, named: amount_to = gross − service − partner − network.",
    }),
    eta_seconds: EtaSchema,
    eta_source: EtaSourceSchema,
    expires_in: out.count(86_400).nullable().openapi({
      description:
        "Seconds the quote stays valid: for a fixed quote requested with an API key, the seconds left to lock it with `quote_id`; null for float quotes and for keyless fixed quotes (nothing to lock).",
    }),
    quote_id: out.text(1200).optional().openapi({
      example: "q1.WyJwYXJ0bmVyIiwiQlRDIl0.3q2-7wAAAAAAAAAAAAAAAA",
      description:
        "Fixed quotes requested with an API key only (a keyless fixed quote has none: only a partner can lock a quote): pass as `quote_id` to POST /partner/orders to lock exactly this quote, with the same partner's key. An opaque, signed token (up to about 400 characters of `A-Za-z0-9._-`).",
    }),
  })
  .openapi("RateQuote");

const route = createRoute({
  method: "get",
  path: "/partner/rates",
  // Empty requirement first: the key is optional.
  ...keyedOperation("getRate", "optional"),
  tags: ["Public"],
  summary: "Quote a rate and the pair's limits",
  description:
    "Public. With `X-API-Key` (or `Authorization: Bearer`), the quote reflects the partner's pricing. `min_amount`/`max_amount` are the pair's limits; validate user input against them before creating an order.",
  request: { query: RatesQuery, headers: repeatableHeaders(z.object(EndUserCountryHeader)) },
  responses: withCors({
    200: okResponse("limited", "The quote.", RateQuoteSchema),
    ...errorResponses(400, 401, 403, 422, 429, 451, 503),
  }),
});

export const ratesRouter = createRouter().openapi(route, async (c) => {
  const q = c.req.valid("query");
  if (q.amount !== undefined && q.amount_to !== undefined)
    throw badRequest("Pass either amount or amount_to, not both.");
  const config = c.get("config");
  const partner = c.get("partner");
  const now = Date.now();
  const livemode = partner?.livemode ?? true;
  const priced = await priceQuote(
    c.env,
    config,
    {
      from: {
        coin: q.coin_from,
        network: q.network_from,
        chainId: q.chain_id_from,
        token: q.token_from,
        asset: q.asset_from,
      },
      to: {
        coin: q.coin_to,
        network: q.network_to,
        chainId: q.chain_id_to,
        token: q.token_to,
        asset: q.asset_to,
      },
      amountFrom: q.amount === undefined ? undefined : parseDecimal(q.amount),
      amountTo: q.amount_to === undefined ? undefined : parseDecimal(q.amount_to),
      rateType: q.rate_type,
    },
    partner?.markupBps ?? 0,
    now,
    livemode,
    () => endUserCountry(c),
  );
  const { pair, quote } = priced;
  const maxAmount = await quotedMaximum(
    c.env,
    config,
    priced,
    () => regionOf(c.req.raw.cf?.continent),
    livemode,
    (p) => c.executionCtx.waitUntil(p),
  );
  // Only a partner can lock a fixed quote (POST /partner/orders takes a key): a keyless caller
  // gets the fixed price as an indication, without a quote_id it could never use.
  const quoteId =
    q.rate_type === "fixed" && partner
      ? await issueQuoteFor(c.env.DB, partner.id, priced, now + config.FIXED_QUOTE_TTL_SECONDS * 1000)
      : undefined;
  c.header("Cache-Control", "no-store");
  return c.json(
    {
      coin_from: pair.from.coin,
      coin_to: pair.to.coin,
      network_from: pair.from.network,
      network_to: pair.to.network,
      rate_type: q.rate_type,
      rate: toJsonNumber(quote.rate),
      amount_from: toJsonNumber(quote.amountFrom),
      amount_to: toJsonNumber(quote.amountTo),
      amount_to_min: toJsonNumber(quoteFloor(priced, quote.amountTo, q.max_slippage_bps)),
      min_amount: toJsonNumber(quote.min),
      max_amount: toJsonNumber(maxAmount),
      fees: feesView(storedFees(feeSplit(quote.amountTo, feeTermsOf(priced.input))), pair.to.coin),
      eta_seconds: priced.eta.range,
      eta_source: priced.eta.source,
      expires_in: quoteId ? config.FIXED_QUOTE_TTL_SECONDS : null,
      ...(quoteId ? { quote_id: quoteId } : {}),
    },
    200,
  );
});
