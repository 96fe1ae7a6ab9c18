import { createRoute, z } from "@hono/zod-openapi";
import { SCREENING_CATEGORIES } from "../../../domain/screening";
import { addScreeningEntry, removeScreeningEntry } from "../../../services/screening";
import { listScreeningEntries } from "../../../storage/screening";
import { ApiError } from "../../errors";
import { createRouter } from "../../router";
import { errorResponses, ticker } from "../../schemas";

const tags = ["Admin: screening"];
const security: Record<string, string[]>[] = [{ AdminBearer: [] }, { CloudflareAccess: [] }];
const json = <S extends z.ZodType>(schema: S) => ({ "application/json": { schema } });

const NewEntrySchema = z
  .strictObject({
    network: ticker.openapi({
      example: "ETH",
      description: "Listed on every network of its address family.",
    }),
    address: z.string().trim().min(1).max(128),
    category: z.enum(SCREENING_CATEGORIES).default("operator"),
    note: z.string().trim().min(1).max(500).openapi({ description: "Why: kept in the audit log too." }),
  })
  .openapi("NewScreeningEntry");

const EntrySchema = z
  .object({
    id: z.string().max(40).openapi({ example: "scr_0f8c2a…" }),
    network: z.string().max(20),
    address: z.string().max(128),
    category: z.enum(SCREENING_CATEGORIES),
    note: z.string().max(500),
    created_at: z.string().max(40),
    created_by: z.string().max(200),
  })
  .openapi("ScreeningEntry");

const IdParam = z.object({
  id: z
    .string()
    .max(40)
    .openapi({ param: { name: "id", in: "path" } }),
});

/** The operator's own listed addresses (docs/operators.md, "Screening"). */
export const adminScreeningRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/screening/entries",
      operationId: "adminListScreeningEntries",
      tags,
      security,
      summary: "The operator's listed addresses",
      responses: {
        200: {
          description: "Every entry, oldest first.",
          content: json(z.object({ entries: z.array(EntrySchema).max(100_000) })),
        },
        ...errorResponses(401),
      },
    }),
    async (c) => c.json({ entries: await listScreeningEntries(c.env.DB) }, 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/screening/entries",
      operationId: "adminAddScreeningEntry",
      tags,
      security,
      summary: "List an address",
      description:
        "Audited (screening_entry.create). Applies to live and test orders, on every network of the address's family, within a few seconds: order creation, payout-address changes and payouts refuse it with 422 `address_screened`.",
      request: { body: { content: json(NewEntrySchema), required: true } },
      responses: {
        201: { description: "The entry.", content: json(EntrySchema) },
        ...errorResponses(400, 401, 422),
      },
    }),
    async (c) => {
      const entry = await addScreeningEntry(
        c.env,
        { operator: c.get("operator"), requestId: c.get("requestId") },
        c.req.valid("json"),
      );
      return c.json(entry, 201);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/screening/entries/{id}",
      operationId: "adminRemoveScreeningEntry",
      tags,
      security,
      summary: "Remove a listed address",
      description: "Audited (screening_entry.delete), with the entry as it was.",
      request: { params: IdParam },
      responses: {
        204: { description: "Removed." },
        ...errorResponses(401, 404),
      },
    }),
    async (c) => {
      const removed = await removeScreeningEntry(
        c.env,
        { operator: c.get("operator"), requestId: c.get("requestId") },
        c.req.valid("param").id,
      );
      if (!removed) throw new ApiError(404, "not_found", "No such screening entry.");
      return c.body(null, 204);
    },
  );
