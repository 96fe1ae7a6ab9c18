// Monthly statements and their payouts (docs/earnings.md): the partner's accounting fetches them
// with a key (the key's mode), and a test key can close the current month at once.
import { createRoute, z } from "@hono/zod-openapi";
import { STATEMENT_STATUSES } from "../../domain/statements";
import { closeTestMonth } from "../../services/statements";
import { listStatements, parseStatement, type StatementRow } from "../../storage/statements";
import type { PartnerEnv } from "../app-env";
import { keyedOperation } from "../middleware/scopes";
import { createRouter } from "../router";
import { errorResponses, okResponse, out, pageLimit, timestamp } from "../schemas";
import { SignatureHeader } from "./orders";

const usd = (description: string) => out.text(32).openapi({ description, example: "123.456789" });
const nullable = (description: string) => out.text(128).nullable().openapi({ description });

export const StatementSchema = z
  .object({
    id: out.text(128),
    month: out.text(7).openapi({ description: "The UTC calendar month, `YYYY-MM`.", example: "2026-10" }),
    livemode: z.boolean(),
    issued_at: timestamp("When the month was closed; the statement never changes after."),
    orders: out.count(100_000_000).openapi({ description: "Orders completed in the month." }),
    lines: z
      .array(
        z.object({
          coin: out.ticker(),
          orders: out.count(100_000_000),
          markup: out.text(64).openapi({ description: "Earned, in the coin (coin_from of the orders)." }),
          markup_usd: usd("In USD as fixed at each completion."),
          unpriced_orders: out.count(100_000_000).openapi({
            description: "Orders without a USD price at completion: not in markup_usd, so not paid.",
          }),
        }),
      )
      .max(1000)
      .openapi({ description: "Earnings per coin." }),
    adjustments: z
      .array(z.object({ id: out.text(64), amount_usd: usd("Signed."), reason: out.text(500) }))
      .max(1000)
      .openapi({ description: "Operator corrections taken by this statement, each with its reason." }),
    earnings_usd: usd("Σ lines.markup_usd."),
    adjustments_usd: usd("Σ adjustments (signed)."),
    carry_in_usd: usd("The previous statement's total when it was carried over; else 0."),
    total_usd: usd("earnings + adjustments + carry-in."),
    minimum_usd: usd("The payout minimum when the statement was issued."),
    payout: z.object({
      status: z.enum(STATEMENT_STATUSES).openapi({
        description:
          "`pending` (to be paid), `paid` (see txid), `held` (by the operator, see hold_reason), `carried_over` (below the minimum: the total starts next month's statement).",
      }),
      hold_reason: out.text(500).nullable(),
      coin: out.ticker().nullable(),
      network: out.ticker().nullable(),
      address: out.address().nullable(),
      tag: out.tag().nullable(),
      price_usd: nullable(
        "The asset's USD price the total was converted at (recorded when the payout started).",
      ),
      amount: nullable("total_usd ÷ price_usd, rounded down to the asset's decimals."),
      due_at: timestamp("Not paid before this (at most 24 h after the month close)."),
      txid: out.txid().nullable(),
      paid_at: timestamp("When the payout gateway confirmed it.").nullable(),
    }),
  })
  .openapi("Statement");

export type StatementView = z.infer<typeof StatementSchema>;

export function statementView(row: StatementRow): StatementView {
  const s = parseStatement(row);
  return {
    id: s.id,
    month: s.month,
    livemode: s.livemode === 1,
    issued_at: s.issued_at,
    orders: s.orders,
    lines: s.lines.map((l) => ({
      coin: l.coin,
      orders: l.orders,
      markup: l.markup,
      markup_usd: l.markup_usd,
      unpriced_orders: l.unpriced,
    })),
    adjustments: s.adjustments,
    earnings_usd: s.earnings_usd,
    adjustments_usd: s.adjustments_usd,
    carry_in_usd: s.carry_in_usd,
    total_usd: s.total_usd,
    minimum_usd: s.minimum_usd,
    payout: {
      status: s.status,
      hold_reason: s.hold_reason,
      coin: s.coin,
      network: s.network,
      address: s.address,
      tag: s.tag,
      price_usd: s.price_usd,
      amount: s.amount,
      due_at: s.due_at,
      txid: s.txid,
      paid_at: s.paid_at,
    },
  };
}

const ListQuery = z.object({
  limit: pageLimit(120, 24, "How many months, newest first (1–120, default 24)."),
});

export const statementsRouter = createRouter<PartnerEnv>()
  .openapi(
    createRoute({
      method: "get",
      path: "/partner/statements",
      ...keyedOperation("listStatements"),
      tags: ["Statements"],
      summary: "Your monthly statements and their payouts",
      description:
        "The key's mode's statements (live keys: live), newest month first, each with its lines, totals, payout status and txid (docs/earnings.md). Key scope: `read`.",
      request: { query: ListQuery, headers: z.object(SignatureHeader) },
      responses: {
        200: okResponse("limited", "Statements.", z.object({ data: z.array(StatementSchema).max(120) })),
        ...errorResponses(400, 401, 403, 429),
      },
    }),
    async (c) => {
      const partner = c.get("partner");
      const rows = await listStatements(c.env.DB, {
        partnerId: partner.id,
        livemode: partner.livemode,
        limit: c.req.valid("query").limit,
      });
      c.header("Cache-Control", "no-store");
      return c.json({ data: rows.map(statementView) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/partner/test/month-close",
      ...keyedOperation("testMonthClose"),
      tags: ["Test mode"],
      summary: "Close the current month for test mode now",
      description:
        "Beyond the contract; test keys only (a live key gets 403 `test_mode_only`). Issues the test statement of the current UTC month from your test orders completed until now and pays it at once through the simulated gateway (to your newest payout address: test mode has no cooling period), then answers the statement. A second call in the same month answers the same statement (docs/test-mode.md).",
      request: { headers: z.object(SignatureHeader) },
      responses: {
        200: okResponse("limited", "The test statement after its payout.", StatementSchema),
        ...errorResponses(401, 403, 429),
      },
    }),
    async (c) => {
      const row = await closeTestMonth(c.env, c.get("config"), c.get("partner"), Date.now());
      c.header("Cache-Control", "no-store");
      return c.json(statementView(row), 200);
    },
  );
