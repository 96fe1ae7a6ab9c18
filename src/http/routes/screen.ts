// POST /partner/screen (docs/integrate.md, "Screening"): a wallet pre-checks addresses before it
// shows a quote; nothing is created.
import { createRoute, z } from "@hono/zod-openapi";
import { SCREENING_CATEGORIES } from "../../domain/screening";
import { screenAddresses } from "../../storage/screening";
import type { PartnerEnv } from "../app-env";
import { keyedOperation } from "../middleware/scopes";
import { createRouter } from "../router";
import { errorResponses, okResponse, ticker } from "../schemas";
import { SignatureHeader } from "./orders";

export const MAX_SCREEN_ADDRESSES = 50;

const ItemSchema = z.object({
  network: ticker.openapi({ example: "TRX", description: "A network code of GET /currencies." }),
  address: z.string().trim().min(1).max(128).openapi({ example: "TJPZp3h26cfFoz7mzyxNofcNR7GGenKf8V" }),
});

const ScreenBody = z
  .object({ addresses: z.array(ItemSchema).min(1).max(MAX_SCREEN_ADDRESSES) })
  .openapi("ScreenRequest");

const ResultSchema = z
  .object({
    network: z.string().max(20),
    address: z.string().max(128),
    result: z.enum(["clear", "listed", "unknown"]).openapi({
      description:
        "`listed`: orders to or refunds to this address are refused (422 `address_screened`). `unknown`: a source could not answer in time (the risk vendor, or no sanctions list loaded yet); orders are not refused for it.",
    }),
    categories: z
      .array(z.enum(SCREENING_CATEGORIES))
      .max(SCREENING_CATEGORIES.length)
      .openapi({ description: "Why it is listed; empty unless `listed`." }),
    list_version: z.string().max(64).nullable().openapi({
      description:
        "The sanctions list's version the answer used (`test` with a test key); null when none is loaded.",
    }),
    checked_at: z.string().max(40).openapi({ format: "date-time" }),
  })
  .openapi("ScreenResult");

const ScreenAnswer = z
  .object({ results: z.array(ResultSchema).max(MAX_SCREEN_ADDRESSES) })
  .openapi("ScreenResults");

export const screenRouter = createRouter<PartnerEnv>().openapi(
  createRoute({
    method: "post",
    path: "/partner/screen",
    ...keyedOperation("screenAddresses"),
    tags: ["Orders"],
    summary: "Screen addresses before an order",
    description: `Up to ${MAX_SCREEN_ADDRESSES} addresses, answered in the order given, against what order creation screens: the sanctions list, the operator's entries and, when configured, a risk vendor (test keys: test mode's listed addresses, docs/test-mode.md). Stablecoin issuers' blocklists depend on the coin and are asked at order creation. Nothing is created.`,
    request: {
      headers: z.object(SignatureHeader),
      body: { content: { "application/json": { schema: ScreenBody } }, required: true },
    },
    responses: {
      200: okResponse("limited", "One result per address.", ScreenAnswer),
      ...errorResponses(400, 401, 403, 413, 415, 429),
    },
  }),
  async (c) => {
    const { addresses } = c.req.valid("json");
    const partner = c.get("partner");
    const results = await screenAddresses(c.env, partner.livemode ? "live" : "test", addresses, Date.now());
    c.header("Cache-Control", "no-store");
    return c.json({ results }, 200);
  },
);
