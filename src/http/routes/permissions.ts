import { createRoute, z } from "@hono/zod-openapi";
import { permissionsFor } from "../../domain/region-restrictions";
import { loadRegionRestrictions } from "../../storage/region-restrictions";
import { EndUserCountryHeader, endUserCountry } from "../asset-params";
import { keyedOperation } from "../middleware/scopes";
import { createRouter } from "../router";
import { errorResponses, okResponse, out, withCors } from "../schemas";

const PermissionsSchema = z
  .object({
    country: z.string().length(2).nullable().openapi({
      example: "DE",
      description:
        "The end user's country as the service sees it (`X-End-User-Country`, else the caller's); null when unknown (nothing is then refused).",
    }),
    allowed: z.boolean().openapi({ description: "false: the service is not available there at all." }),
    restricted_coins: z
      .array(out.ticker())
      .max(1000)
      .openapi({
        example: ["XMR"],
        description: "Coins neither accepted nor paid out there (empty when `allowed` is false: nothing is).",
      }),
  })
  .openapi("Permissions");

const route = createRoute({
  method: "get",
  path: "/partner/permissions",
  ...keyedOperation("getPermissions", "optional"),
  tags: ["Public"],
  summary: "Whether the end user's region may swap, and which coins not",
  description:
    "Public (a key is accepted and changes nothing). Lets a wallet hide the swap, or some coins, before the user starts; quotes and orders refuse the same with 451 `region_restricted`.",
  request: { headers: z.object(EndUserCountryHeader) },
  responses: withCors({
    200: okResponse("limited", "What a user in that country may do.", PermissionsSchema),
    ...errorResponses(400, 401, 403, 429),
  }),
});

export const permissionsRouter = createRouter().openapi(route, async (c) => {
  const restrictions = await loadRegionRestrictions(c.env.DB);
  c.header("Cache-Control", "private, no-store");
  return c.json(permissionsFor(restrictions, endUserCountry(c)), 200);
});
