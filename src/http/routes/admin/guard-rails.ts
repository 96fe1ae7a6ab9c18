import { createRoute, z } from "@hono/zod-openapi";
import { liveModeProblems } from "../../../domain/live-modes";
import { SANCTIONS_STALE_HOURS, sanctionsStatus } from "../../../services/screening";
import type { AppEnv } from "../../app-env";
import { createRouter } from "../../router";
import { errorResponses } from "../../schemas";

const security: Record<string, string[]>[] = [{ AdminBearer: [] }, { CloudflareAccess: [] }];

const GuardRailsSchema = z
  .object({
    chain_mode: z.string().max(2000).openapi({ description: "CHAIN_MODE as configured." }),
    exchange_mode: z.enum(["simulated", "binance"]),
    payout_mode: z.enum(["simulated", "http"]),
    cabinet_origin: z.string().max(2000).openapi({
      description: "CABINET_ORIGIN as configured: with real payouts it must be the public https origin.",
    }),
    live_orders: z.boolean().openapi({
      description: "Whether live keys may quote and create orders: false while any problem is listed.",
    }),
    problems: z.array(z.string().max(500)).max(20).openapi({
      description:
        "Why these modes must not run live money together; live quotes and order creation answer 503 `service_misconfigured` until it is empty.",
    }),
    sanctions_list: z
      .object({
        version: z.string().max(64).nullable(),
        fetched_at: z.string().max(40).nullable().openapi({
          description: "The oldest asset file's last good download; null before the first.",
        }),
        age_seconds: z.number().int().min(0).max(2_147_483_647).nullable().openapi({ format: "int32" }),
        addresses: z.number().int().min(0).max(2_147_483_647).openapi({ format: "int32" }),
        stale: z.boolean().openapi({
          description: `Older than ${SANCTIONS_STALE_HOURS} h (or never loaded after a download was tried): the operator is alerted.`,
        }),
        last_attempt_at: z.string().max(40).nullable(),
        last_error: z.string().max(4000).nullable().openapi({
          description: "What the last download could not use (those files kept their addresses from before).",
        }),
      })
      .openapi({
        description:
          'The sanctions list order addresses are screened against (docs/operators.md, "Screening").',
      }),
  })
  .openapi("GuardRails");

/** The operator's view of the guard rails (docs/operators.md, "Guard rails"). */
export const adminGuardRailsRouter = createRouter<AppEnv>().openapi(
  createRoute({
    method: "get",
    path: "/guard-rails",
    operationId: "adminGuardRails",
    tags: ["Admin: orders"],
    security,
    summary: "Whether the configured modes (and the cabinet's origin) may run live money",
    responses: {
      200: {
        description: "The modes and their problems.",
        content: { "application/json": { schema: GuardRailsSchema } },
      },
      ...errorResponses(401),
    },
  }),
  async (c) => {
    const config = c.get("config");
    const problems = liveModeProblems(config);
    return c.json(
      {
        chain_mode: config.CHAIN_MODE,
        exchange_mode: config.EXCHANGE_MODE,
        payout_mode: config.PAYOUT_MODE,
        cabinet_origin: config.CABINET_ORIGIN,
        live_orders: problems.length === 0,
        problems,
        sanctions_list: await sanctionsStatus(c.env.DB, Date.now()),
      },
      200,
    );
  },
);
