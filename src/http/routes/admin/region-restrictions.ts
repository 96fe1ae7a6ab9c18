import { createRoute, z } from "@hono/zod-openapi";
import { setRegionRestrictions } from "../../../services/region-restrictions";
import { invalidateRegionRestrictions, loadRegionRestrictions } from "../../../storage/region-restrictions";
import { createRouter } from "../../router";
import { errorResponses } from "../../schemas";

const tags = ["Admin: region restrictions"];
const security: Record<string, string[]>[] = [{ AdminBearer: [] }, { CloudflareAccess: [] }];
const json = <S extends z.ZodType>(schema: S) => ({ "application/json": { schema } });

const country = z
  .string()
  .max(2)
  .regex(/^[A-Za-z]{2}$/, "an ISO 3166-1 alpha-2 code such as KP");
const coin = z
  .string()
  .max(20)
  .regex(/^[A-Za-z0-9]{1,20}$/, "a coin ticker: letters and digits, 1–20");

const RegionRestrictionsSchema = z
  .strictObject({
    countries: z
      .array(country)
      .max(300)
      .openapi({
        example: ["KP", "IR"],
        description: "Countries served nothing: quotes and order creation answer 451 `region_restricted`.",
      }),
    coins: z.record(coin, z.array(country).max(300)).openapi({
      example: { XMR: ["GB"] },
      description: "Per coin ticker, countries where it is neither accepted nor paid out (451 with `side`).",
    }),
  })
  .refine((r) => Object.keys(r.coins).length <= 1000, "at most 1000 coins")
  .openapi("RegionRestrictions");

export const adminRegionRestrictionsRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/region-restrictions",
      operationId: "adminGetRegionRestrictions",
      tags,
      security,
      summary: "The countries and coins refused by region",
      responses: {
        200: {
          description: "The configuration (empty lists until set).",
          content: json(RegionRestrictionsSchema),
        },
        ...errorResponses(401),
      },
    }),
    async (c) => {
      // What is stored, not this isolate's few-second copy.
      invalidateRegionRestrictions();
      return c.json(await loadRegionRestrictions(c.env.DB), 200);
    },
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/region-restrictions",
      operationId: "adminSetRegionRestrictions",
      tags,
      security,
      summary: "Replace the region restrictions",
      description:
        "Audited (region_restrictions.set). Codes are stored upper case, de-duplicated and sorted. Quotes and orders apply it within a few seconds (an isolate cache, as the catalog's).",
      request: { body: { content: json(RegionRestrictionsSchema), required: true } },
      responses: {
        200: { description: "The configuration as stored.", content: json(RegionRestrictionsSchema) },
        ...errorResponses(400, 401),
      },
    }),
    async (c) => {
      const stored = await setRegionRestrictions(
        c.env,
        { operator: c.get("operator"), requestId: c.get("requestId") },
        c.req.valid("json"),
      );
      return c.json(stored, 200);
    },
  );
