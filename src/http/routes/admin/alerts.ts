import { createRoute, z } from "@hono/zod-openapi";
import { listAlerts } from "../../../services/alerts";
import type { AppEnv } from "../../app-env";
import { createRouter } from "../../router";
import { errorResponses, pageLimit } from "../../schemas";

const security: Record<string, string[]>[] = [{ AdminBearer: [] }, { CloudflareAccess: [] }];

const AlertSchema = z
  .object({
    order_id: z.string().max(128).openapi({
      description:
        "What the alert is about: the order; for a partner payout, the statement; for a service alert, its subject (`address-pool:<network>`, `after-watch-sweep`).",
    }),
    kind: z.string().max(200).openapi({
      description:
        "The problem: `payout_outcome_unknown`, `refund_gateway_config`, `extra_refund_outcome_unknown`, … or the venue's; one alert per order, kind and ledger key while it lasts.",
    }),
    ledger_key: z.string().max(300).nullable().openapi({
      description:
        "The send the alert is about: its ledger key (a payout, a refund, one extra deposit's refund, one statement's payout round); null for the order as a whole.",
    }),
    message: z.string().max(500),
    data: z.record(z.string(), z.unknown()).openapi({ description: "What it is about (ledger key, …)." }),
    state: z.enum(["open", "cleared"]),
    opened_at: z.string().max(40),
    last_at: z
      .string()
      .max(40)
      .openapi({ description: "When it was last written: opened, reminded or cleared." }),
    reminders: z.number().int().min(0).max(1_000_000).openapi({
      format: "int32",
      description: "Reminders logged while it stayed open.",
    }),
    cleared_at: z.string().max(40).nullable(),
  })
  .openapi("Alert");

/** The operator's alerts (docs/lifecycle.md, "Alerts"). */
export const adminAlertsRouter = createRouter<AppEnv>().openapi(
  createRoute({
    method: "get",
    path: "/alerts",
    operationId: "adminListAlerts",
    tags: ["Admin: orders"],
    security,
    summary: "Orders' and the service's alerts: open ones first",
    description:
      "One alert per problem of an order (per kind): opened when it starts, reminded on a backoff while it lasts, cleared once when it ends or when the order completes or is refunded. Open alerts first, newest first within open and cleared. Projected from the order objects by their alarms, so a new one shows within seconds. Service alerts (a deposit-address pool running low, the slow sweep after the watch a day behind) are raised and cleared by the cron each minute.",
    request: {
      query: z.object({
        state: z
          .enum(["open", "all"])
          .default("all")
          .openapi({ description: "`open`: only open alerts; `all` (default): open ones, then cleared." }),
        limit: pageLimit(500, 100, "At most this many, 1–500 (default 100)."),
      }),
    },
    responses: {
      200: {
        description: "The alerts.",
        content: { "application/json": { schema: z.object({ data: z.array(AlertSchema).max(500) }) } },
      },
      ...errorResponses(400, 401),
    },
  }),
  async (c) => {
    const q = c.req.valid("query");
    c.header("Cache-Control", "no-store");
    return c.json({ data: await listAlerts(c.env, q) }, 200);
  },
);
