import { createRoute, z } from "@hono/zod-openapi";
import type { PriceQuote } from "../../../domain/prices";
import { parsePositivePrice, priceString } from "../../../domain/prices";
import { loadPrices, upsertPrices } from "../../../storage/prices";
import { ApiError, badRequest } from "../../errors";
import { createRouter } from "../../router";
import { errorResponses } from "../../schemas";

const PriceSchema = z
  .object({
    coin: z.string().max(20),
    usd: z.string().max(64),
    source: z.string().max(1024),
    updated_at: z.string().max(40),
    age_seconds: z.int32(),
  })
  .openapi("Price");

const SetPrices = z.strictObject({
  prices: z
    .record(
      z
        .string()
        .max(1024)
        .regex(/^[A-Z0-9]{1,20}$/, "coin tickers are upper case"),
      z.string().max(1024),
    )
    .openapi({ example: { BTC: "64000.5", ETH: "3100" } }),
});

const tags = ["Admin: prices"];
const security = [{ AdminBearer: [] }];

export const adminPricesRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/prices",
      operationId: "adminGetPrices",
      tags,
      security,
      summary: "Stored market prices with their age",
      responses: {
        200: {
          description: "Prices.",
          content: { "application/json": { schema: z.object({ data: z.array(PriceSchema).max(1000) }) } },
        },
        ...errorResponses(401),
      },
    }),
    async (c) => {
      const now = Date.now();
      const rows = [...(await loadPrices(c.env.DB)).values()].sort((a, b) => a.coin.localeCompare(b.coin));
      const data = rows.map((r) => ({
        ...r,
        age_seconds: Math.floor((now - Date.parse(r.updated_at)) / 1000),
      }));
      return c.json({ data }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/prices",
      operationId: "adminSetPrices",
      tags,
      security,
      summary: "Set prices (PRICE_SOURCE=static only)",
      description:
        "USD prices as decimal strings. Like feed prices, they go stale after PRICE_MAX_AGE_SECONDS.",
      request: { body: { content: { "application/json": { schema: SetPrices } }, required: true } },
      responses: {
        200: {
          description: "Stored.",
          content: { "application/json": { schema: z.object({ data: z.array(PriceSchema).max(1000) }) } },
        },
        ...errorResponses(400, 401),
        409: {
          description: "PRICE_SOURCE is not static.",
          content: {
            "application/json": {
              schema: z.object({ detail: z.string().max(1024), code: z.string().max(1024) }),
            },
          },
        },
      },
    }),
    async (c) => {
      const source = c.get("config").PRICE_SOURCE;
      if (source !== "static") {
        throw new ApiError(
          409,
          "price_source_mismatch",
          `Prices come from the ${source} source; set PRICE_SOURCE=static to set them by hand.`,
        );
      }
      const quotes: PriceQuote[] = [];
      for (const [coin, value] of Object.entries(c.req.valid("json").prices)) {
        const usd = parsePositivePrice(value);
        if (!usd)
          throw badRequest(`Price for ${coin} must be a positive decimal string.`, [
            { field: `prices.${coin}`, message: "must be > 0" },
          ]);
        quotes.push({ coin, usd: priceString(usd) });
      }
      const now = Date.now();
      await upsertPrices(c.env.DB, quotes, "static", now);
      const at = new Date(now).toISOString();
      return c.json(
        { data: quotes.map((q) => ({ ...q, source: "static", updated_at: at, age_seconds: 0 })) },
        200,
      );
    },
  );
