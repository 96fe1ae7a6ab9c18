import { createRoute, z } from "@hono/zod-openapi";
import { sloReport } from "../../../services/slo";
import { ApiError } from "../../errors";
import { reads } from "../../middleware/d1-session";
import { createRouter } from "../../router";
import { errorResponses, out } from "../../schemas";

const security: Record<string, string[]>[] = [{ AdminBearer: [] }, { CloudflareAccess: [] }];
const json = <S extends z.ZodType>(schema: S) => ({ "application/json": { schema } });
const share = () => z.number().min(0).max(1).nullable().openapi({ format: "double" });
const ms = () => z.number().int().min(0).max(2_147_483_647).nullable().openapi({ format: "int32" });
const big = () => z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).openapi({ format: "int64" });

const SloSchema = z
  .object({
    month: out.text(7),
    requests: big(),
    server_errors: big(),
    availability: share().openapi({ description: "Share of requests not answered 5xx; null with none." }),
    objectives: z
      .array(
        z.object({
          name: z.enum(["availability", "order_read_p95_ms", "create_p95_ms"]),
          target: z.number().openapi({ format: "double" }),
          actual: z.number().nullable().openapi({ format: "double" }),
          met: z.boolean().nullable().openapi({ description: "null: nothing measured this month." }),
        }),
      )
      .max(3),
    routes: z
      .array(
        z.object({
          route: out.text(300).openapi({ description: "`METHOD /pattern`, or `unmatched`." }),
          requests: big(),
          server_errors: big(),
          availability: share(),
          p50_ms: ms(),
          p95_ms: ms(),
          p99_ms: ms(),
        }),
      )
      .max(1000),
    pairs: z
      .array(
        z.object({
          pair: out.text(64).openapi({ description: "`network_from>network_to`." }),
          orders: big(),
          p50: z
            .number()
            .int()
            .min(0)
            .max(2_147_483_647)
            .openapi({ format: "int32", description: "Seconds." }),
          p90: z
            .number()
            .int()
            .min(0)
            .max(2_147_483_647)
            .openapi({ format: "int32", description: "Seconds." }),
        }),
      )
      .max(10_000),
  })
  .openapi("ServiceLevels");

export const adminSloRouter = createRouter().openapi(
  createRoute({
    method: "get",
    path: "/slo",
    operationId: "adminGetServiceLevels",
    tags: ["Admin: service levels"],
    security,
    summary: "A month's service levels against the objectives",
    description:
      'Measured by the Worker itself (docs/operators.md, "Service levels"): every request counted per UTC day, route and latency bucket. Availability is the non-5xx share; p50/p95/p99 per route are the upper bounds of the latency buckets they fall in. `pairs` are the completion times quotes use now (deposit seen → payout sent, the last 30 days\' live orders).',
    request: {
      query: z.object({
        month: z
          .string()
          .max(7)
          .regex(/^\d{4}-(0[1-9]|1[0-2])$/, "a month, YYYY-MM")
          .openapi({ description: "The UTC month, YYYY-MM.", example: "2026-11" }),
      }),
    },
    responses: {
      200: { description: "The month's levels.", content: json(SloSchema) },
      ...errorResponses(400, 401),
    },
  }),
  async (c) => {
    c.header("Cache-Control", "no-store");
    const { month } = c.req.valid("query");
    const report = await sloReport(reads(c), month);
    if (!report) throw new ApiError(400, "invalid_request", "month must be a month, YYYY-MM.");
    return c.json(report, 200);
  },
);
