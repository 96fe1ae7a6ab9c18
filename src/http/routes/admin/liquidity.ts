import { createRoute, z } from "@hono/zod-openapi";
import { listLiquidity, setLiquidityBalance } from "../../../services/liquidity";
import { createRouter } from "../../router";
import { DECIMAL_STRING, errorResponses } from "../../schemas";

const tags = ["Admin: liquidity"];
const security: Record<string, string[]>[] = [{ AdminBearer: [] }, { CloudflareAccess: [] }];
const json = <S extends z.ZodType>(schema: S) => ({ "application/json": { schema } });
const code = z
  .string()
  .max(64)
  .trim()
  .regex(/^[A-Za-z0-9]{1,20}$/, "letters and digits, 1–20")
  .transform((s) => s.toUpperCase());

const LiquiditySchema = z
  .object({
    coin: z.string().max(20),
    network: z.string().max(20),
    balance: z
      .string()
      .max(64)
      .nullable()
      .openapi({ description: "What the service can pay out of this coin; null: not liquidity-limited." }),
    source: z.enum(["operator", "gateway"]).nullable().openapi({
      description:
        "Where the balance comes from: the operator's (this API) wins over the payout gateway's signed GET /balances; null: neither, not limited.",
    }),
    paid: z.string().max(64).openapi({
      description: "Paid out since the balance was set (or since the gateway's figure was read).",
    }),
    granted: z
      .string()
      .max(64)
      .openapi({ description: "Allowance held by regional shards: reserved for open orders or free there." }),
    available: z
      .string()
      .max(64)
      .nullable()
      .openapi({ description: "What the ledger can still hand to shards." }),
    updated_at: z.string().max(40),
  })
  .openapi("Liquidity");

const SetLiquidity = z.strictObject({
  coin: code,
  network: code,
  balance: z.string().max(64).regex(DECIMAL_STRING, 'a plain decimal string, e.g. "2.5"').nullable().openapi({
    description:
      "null lifts the operator's limit: the coin is then limited by the payout gateway's balance when it reports one (PAYOUT_MODE=http), else not at all (the default).",
  }),
});

export const adminLiquidityRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/liquidity",
      operationId: "adminListLiquidity",
      tags,
      security,
      summary: "Coins with a configured balance, and what their ledgers hold",
      description: "A coin that is not listed is not liquidity-limited (docs/liquidity.md).",
      responses: {
        200: {
          description: "Balances.",
          content: json(z.object({ data: z.array(LiquiditySchema).max(1000) })),
        },
        ...errorResponses(401),
      },
    }),
    async (c) => c.json({ data: await listLiquidity(c.env) }, 200),
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/liquidity",
      operationId: "adminSetLiquidity",
      tags,
      security,
      summary: "Set what the service can pay out of a coin",
      description:
        "Audited (liquidity.set). Payouts completed after this are counted against the new balance; reservations of open orders are kept. Orders and quotes see it at once in this deployment's regional shards (docs/liquidity.md).",
      request: { body: { content: json(SetLiquidity), required: true } },
      responses: {
        200: { description: "The coin's liquidity after the change.", content: json(LiquiditySchema) },
        ...errorResponses(400, 401, 422),
      },
    }),
    async (c) => {
      const entry = await setLiquidityBalance(
        c.env,
        { operator: c.get("operator"), requestId: c.get("requestId") },
        c.req.valid("json"),
      );
      return c.json(entry, 200);
    },
  );
