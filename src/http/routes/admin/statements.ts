import { createRoute, z } from "@hono/zod-openapi";
import { MONTH_PATTERN } from "../../../domain/statements";
import {
  addAdjustment,
  holdPayout,
  owed,
  releasePayout,
  rerunMonth,
  resolvePayout,
} from "../../../services/statement-operator";
import { listStatements } from "../../../storage/statements";
import { createRouter } from "../../router";
import { errorResponses, out, pageLimit } from "../../schemas";
import { StatementSchema, statementView } from "../statements";

const tags = ["Admin: statements"];
const security: Record<string, string[]>[] = [{ AdminBearer: [] }, { CloudflareAccess: [] }];
const json = <S extends z.ZodType>(schema: S) => ({ "application/json": { schema } });
const COUNT = z.number().int().min(0).max(1_000_000_000).openapi({ format: "int32" });
const month = z.string().max(7).regex(MONTH_PATTERN, "YYYY-MM").openapi({ example: "2026-10" });
const idParam = z.object({
  id: z
    .string()
    .min(1)
    .max(128)
    .openapi({ param: { name: "id", in: "path" } }),
});
const AdminStatement = StatementSchema.extend({ partner_id: out.text(64), round: out.count(1000) }).openapi(
  "AdminStatement",
);
const actorOf = (c: { get(k: "operator" | "requestId"): string }) => ({
  operator: c.get("operator"),
  requestId: c.get("requestId"),
});

export const adminStatementsRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/statements",
      operationId: "adminListStatements",
      tags,
      security,
      summary: "Statements, newest month first",
      request: {
        query: z.object({
          partner_id: z.string().max(64).optional(),
          month: month.optional(),
          mode: z.enum(["live", "test"]).optional().openapi({ description: "Default: both." }),
          limit: pageLimit(500, 100),
        }),
      },
      responses: {
        200: {
          description: "Statements.",
          content: json(z.object({ data: z.array(AdminStatement).max(500) })),
        },
        ...errorResponses(400, 401),
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const rows = await listStatements(c.env.DB, {
        partnerId: q.partner_id,
        month: q.month,
        livemode: q.mode === undefined ? undefined : q.mode === "live",
        limit: q.limit,
      });
      return c.json(
        { data: rows.map((r) => ({ ...statementView(r), partner_id: r.partner_id, round: r.round })) },
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/statements/owed",
      operationId: "adminStatementsOwed",
      tags,
      security,
      summary: "What unpaid live statements add up to per payout asset (liquidity planning)",
      responses: {
        200: {
          description: "Per asset; coin null: partners that chose no asset yet.",
          content: json(
            z.object({
              data: z
                .array(
                  z.object({
                    coin: z.string().max(20).nullable(),
                    network: z.string().max(20).nullable(),
                    statements: z.number().int().min(0).max(1_000_000_000).openapi({ format: "int32" }),
                    total_usd: z.string().max(40),
                    amount_converted: z.string().max(40),
                    unconverted_usd: z.string().max(40),
                  }),
                )
                .max(1000),
            }),
          ),
        },
        ...errorResponses(401),
      },
    }),
    async (c) => c.json({ data: await owed(c.env) }, 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/statements/close",
      operationId: "adminCloseMonth",
      tags,
      security,
      summary: "Re-run a month's statement generation (idempotent)",
      description:
        "Issues the live statements still missing for `month` and hands over its due payouts. Run again, it creates no second statement and pays nothing twice (each payout has one ledger key). Audited (statement.rerun).",
      request: { body: { content: json(z.strictObject({ month })), required: true } },
      responses: {
        200: {
          description: "What the run did.",
          content: json(z.object({ month: z.string().max(7), issued: COUNT, dispatched: COUNT })),
        },
        ...errorResponses(400, 401, 409),
      },
    }),
    async (c) =>
      c.json(
        await rerunMonth(c.env, c.get("config"), actorOf(c), c.req.valid("json").month, Date.now()),
        200,
      ),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/statements/{id}/hold",
      operationId: "adminHoldPayout",
      tags,
      security,
      summary: "Hold a statement's payout (before it has started)",
      description: "Audited (statement.hold). 409 `action_not_available` once the payout is on the ledger.",
      request: {
        params: idParam,
        body: {
          content: json(z.strictObject({ reason: z.string().trim().min(1).max(500) })),
          required: true,
        },
      },
      responses: {
        200: { description: "The statement.", content: json(AdminStatement) },
        ...errorResponses(400, 401, 404, 409),
      },
    }),
    async (c) => {
      const s = await holdPayout(c.env, actorOf(c), c.req.valid("param").id, c.req.valid("json").reason);
      return c.json({ ...statementView(s), partner_id: s.partner_id, round: s.round }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/statements/{id}/release",
      operationId: "adminReleasePayout",
      tags,
      security,
      summary: "Release a held payout",
      description:
        "Audited (statement.release). Paid at once when due. A payout the gateway refused is converted again and sent under a new ledger key (a new round).",
      request: { params: idParam },
      responses: {
        200: { description: "The statement.", content: json(AdminStatement) },
        ...errorResponses(401, 404, 409),
      },
    }),
    async (c) => {
      const s = await releasePayout(c.env, c.get("config"), actorOf(c), c.req.valid("param").id, Date.now());
      return c.json({ ...statementView(s), partner_id: s.partner_id, round: s.round }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/statements/{id}/resolve",
      operationId: "adminResolvePayout",
      tags,
      security,
      summary: "Record a held payout as paid by hand, outside the service",
      description:
        "For a held payout (on hold, or refused by the gateway) the operator paid by hand: the statement becomes `paid` with the txid, so it can no longer be released and paid again. Audited (statement.resolve, with the note). 409 `action_not_available` unless the payout is held; repeating it with the same txid answers the statement. No `payout.sent` webhook is sent.",
      request: {
        params: idParam,
        body: {
          content: json(
            z.strictObject({
              txid: z.string().trim().min(1).max(200),
              note: z.string().trim().min(1).max(500),
            }),
          ),
          required: true,
        },
      },
      responses: {
        200: { description: "The statement, paid.", content: json(AdminStatement) },
        ...errorResponses(400, 401, 404, 409),
      },
    }),
    async (c) => {
      const s = await resolvePayout(
        c.env,
        actorOf(c),
        c.req.valid("param").id,
        c.req.valid("json"),
        Date.now(),
      );
      return c.json({ ...statementView(s), partner_id: s.partner_id, round: s.round }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/partners/{id}/statement-adjustments",
      operationId: "adminAddStatementAdjustment",
      tags,
      security,
      summary: "Add an adjustment to the partner's next statement",
      description:
        "Signed USD (a refund after completion is negative), with a reason; taken by the next statement of that mode. Issued statements never change. Audited (statement.adjustment).",
      request: {
        params: idParam,
        body: {
          content: json(
            z.strictObject({
              amount_usd: z
                .string()
                .max(20)
                .regex(/^-?\d{1,12}(\.\d{1,6})?$/, "signed decimal, at most 6 decimals"),
              reason: z.string().trim().min(1).max(500),
              mode: z.enum(["live", "test"]).default("live"),
            }),
          ),
          required: true,
        },
      },
      responses: {
        201: {
          description: "The adjustment.",
          content: json(
            z.object({
              id: z.string().max(64),
              partner_id: z.string().max(64),
              livemode: z.boolean(),
              amount_usd: z.string().max(20),
              reason: z.string().max(500),
              created_at: z.string().max(40),
            }),
          ),
        },
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const b = c.req.valid("json");
      const a = await addAdjustment(c.env, actorOf(c), c.req.valid("param").id, {
        livemode: b.mode === "live",
        amount_usd: b.amount_usd,
        reason: b.reason,
      });
      return c.json(a, 201);
    },
  );
