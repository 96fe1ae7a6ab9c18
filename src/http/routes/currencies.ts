import { createRoute, z } from "@hono/zod-openapi";
import { publicCurrencies } from "../../domain/currency";
import { ICONS } from "../../generated/icons";
import { loadCatalog } from "../../storage/catalog";
import { createRouter } from "../router";
import { errorResponses } from "../schemas";

export const CurrencySchema = z
  .object({
    id: z.uuid().openapi({ description: "Internal currency row id." }),
    coin: z.string().openapi({ example: "USDT", description: "Ticker symbol." }),
    network: z.string().openapi({ example: "TRX", description: "Network code (see docs/networks.md)." }),
    name: z.string().openapi({ example: "Tether USD (TRC-20)" }),
    is_active: z.boolean(),
    is_deposit_enabled: z.boolean().openapi({ description: "Deposits accepted (usable as coin_from)." }),
    is_withdraw_enabled: z.boolean().openapi({ description: "Withdrawals accepted (usable as coin_to)." }),
    min_amount: z.number().openapi({ description: "Minimum amount per order, in the coin's units." }),
    max_amount: z.number().openapi({ description: "Maximum amount per order, in the coin's units." }),
    min_confirmations: z.number().int(),
    decimals: z.number().int().openapi({ description: "Decimal precision for display and rounding." }),
    is_memo: z.boolean().openapi({ description: "The network needs a memo / destination tag." }),
    explorer_tx_url: z.string().nullable().openapi({ example: "https://tronscan.org/#/transaction/{txid}" }),
    explorer_address_url: z
      .string()
      .nullable()
      .openapi({ example: "https://tronscan.org/#/address/{address}" }),
    icon_url: z.string().nullable().openapi({
      example: "/api/v1/icons/usdt.svg?v=3f2a9c1b0d4e",
      description: "Relative path of the icon on this API.",
    }),
  })
  .openapi("Currency");

const route = createRoute({
  method: "get",
  path: "/currencies",
  tags: ["Public"],
  summary: "List active currencies and their networks",
  responses: {
    200: {
      description: "All active currencies, in a stable order.",
      content: { "application/json": { schema: z.array(CurrencySchema) } },
    },
    ...errorResponses(429),
  },
});

// The catalog changes rarely; CDNs and clients may reuse it for a minute.
const CACHE_CONTROL = "public, max-age=60, stale-while-revalidate=300";

export const currenciesRouter = createRouter().openapi(route, async (c) => {
  const rows = await loadCatalog(c.env.DB);
  c.header("Cache-Control", CACHE_CONTROL);
  return c.json(publicCurrencies(rows, ICONS), 200);
});
