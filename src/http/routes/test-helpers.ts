import { createRoute, z } from "@hono/zod-openapi";
import { tryParseDecimal } from "../../domain/money";
import { MAX_MINE_COUNT } from "../../objects/sim-chain";
import { runTestHelper, type TestHelper } from "../../services/test-helpers";
import type { PartnerEnv } from "../app-env";
import { keyedOperation } from "../middleware/scopes";
import { createRouter } from "../router";
import { errorResponses, numberAmount, okResponse, orderRef, POSITIVE_DECIMAL } from "../schemas";
import { OrderSchema, SignatureHeader } from "./orders";

const tags = ["Test mode"];

const Params = z.object({
  order_id: orderRef.path("A test order's UUID or short_id (any case)."),
});

const blocks = (description: string, min = 0) =>
  z.number().int().min(min).max(MAX_MINE_COUNT).optional().openapi({ description, format: "int32" });

const DepositBody = z
  .strictObject({
    // The document states the rule (a positive decimal string, or a number above 0) that the
    // refine enforces, so a generated client refuses 0 and negatives too.
    amount: z
      .union([z.string().max(64).openapi({ pattern: POSITIVE_DECIMAL.source }), numberAmount()])
      .refine((v) => tryParseDecimal(v)?.gt(0) === true, { message: "must be a positive decimal" })
      .transform(String)
      .optional()
      .openapi({
        example: "0.01",
        description:
          "Coin units; default exactly `amount_from_expected`. Send less or more to test wrong amounts.",
      }),
    confirmations: blocks("Blocks mined on top at once; default 0 (the deposit waits in the mempool)."),
    from: z.string().trim().min(1).max(128).optional().openapi({
      example: "0x5C12ee0000000000000000000000000000005c12",
      description:
        "The sender the deposit comes from (on BTC, BCH, LTC and DOGE: the address its one input spends from); default none. Send from a listed test address (docs/test-mode.md) to see the deposit's source screened and the order held.",
    }),
  })
  .openapi("TestDeposit");

const ConfirmBody = z
  .strictObject({
    blocks: blocks("Blocks to mine; default: enough for `deposit_confirmations_required`.", 1),
  })
  .openapi("TestConfirm");

const FailBody = z
  .strictObject({
    step: z.enum(["exchange", "payout", "refund"]).openapi({
      description:
        "`exchange`: the venue refuses → `exchange_failed`. `payout` → `payout_failed`. `refund` → `refund_failed`.",
    }),
  })
  .openapi("TestFail");

const Empty = z.strictObject({}).openapi("TestNoBody");

const HELPERS = [
  {
    path: "deposit",
    operationId: "testDeposit",
    bodyRequired: false,
    schema: DepositBody,
    summary: "Send a deposit to a test order",
    description:
      "Sends a deposit to the order's address (and tag) on its test chain: by default exactly `amount_from_expected` with 0 confirmations, from no named sender. On an expired order it is a late deposit; a second one is an extra deposit.",
    toHelper: (b: z.infer<typeof DepositBody>): TestHelper => ({
      kind: "deposit",
      amount: b.amount,
      confirmations: b.confirmations,
      from: b.from,
    }),
  },
  {
    path: "confirm",
    operationId: "testConfirm",
    bodyRequired: false,
    schema: ConfirmBody,
    summary: "Mine blocks on a test order's chain",
    description:
      "Mines `blocks` on the order's test chain (default: enough for `deposit_confirmations_required`). A confirmed deposit is then judged, exchanged and paid out (or refunded) at once.",
    toHelper: (b: z.infer<typeof ConfirmBody>): TestHelper => ({ kind: "confirm", blocks: b.blocks }),
  },
  {
    path: "drop-deposit",
    operationId: "testDropDeposit",
    bodyRequired: false,
    schema: Empty,
    summary: "Make a test order's deposit disappear",
    description:
      "The deposit is dropped (from the mempool) or reorged out (with its block and those above it): a confirming order goes back to `waiting_deposit`, or to `expired` with `deposit_dropped` after its deadline. 409 `action_not_available` without a deposit.",
    toHelper: (): TestHelper => ({ kind: "drop_deposit" }),
  },
  {
    path: "expire",
    operationId: "testExpire",
    bodyRequired: false,
    schema: Empty,
    summary: "Move a test order's clock past its deadline",
    description:
      "The order's own clock (only this order's; the rest of the system keeps real time) passes its deadline now: `expires_at` (an order waiting for a deposit expires, and the late-deposit watch starts), or, for a fixed-rate order whose deposit is confirming, the end of the fixed rate's confirmation window (confirmed after it, the deposit is refunded with `fixed_rate_expired`).",
    toHelper: (): TestHelper => ({ kind: "expire" }),
  },
  {
    path: "pass-hold-deadline",
    operationId: "testPassHoldDeadline",
    bodyRequired: false,
    schema: Empty,
    summary: "Move a test order's clock past its hold's deadline",
    description:
      "The order's own clock passes `hold.deadline_at` now, and the hold ends as `hold.at_deadline` says: `refund` (once the deposit is confirmed) or `operator_review` (the order waits for the operator; nothing moves by itself). 409 `action_not_available` when the order is not held.",
    toHelper: (): TestHelper => ({ kind: "pass_hold_deadline" }),
  },
  {
    path: "fail",
    operationId: "testFail",
    bodyRequired: true,
    schema: FailBody,
    summary: "Make the next attempt of a step fail for good",
    description:
      "The next attempt of `step` fails permanently: `exchange` → `exchange_failed`, `payout` → `payout_failed`, `refund` → `refund_failed` (then `failed`, with `actions` where money is held).",
    toHelper: (b: z.infer<typeof FailBody>): TestHelper => ({ kind: "fail", step: b.step }),
  },
] as const;

export const testHelpersRouter = createRouter<PartnerEnv>();
for (const h of HELPERS) {
  const route = createRoute({
    method: "post",
    path: `/partner/test/orders/{order_id}/${h.path}`,
    ...keyedOperation(h.operationId),
    tags,
    summary: h.summary,
    description: `Beyond the contract; test keys only (a live key gets 403 \`test_mode_only\`), your own test orders only (404 otherwise). ${h.description} Answers the order after the change (docs/test-mode.md).`,
    request: {
      params: Params,
      headers: z.object(SignatureHeader),
      body: { content: { "application/json": { schema: h.schema } }, required: h.bodyRequired },
    },
    responses: {
      200: okResponse("limited", "The test order after the change.", OrderSchema),
      ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429),
    },
  });
  testHelpersRouter.openapi(route, async (c) => {
    // Where the body is optional, no body means every default.
    const body = (c.req.valid("json") ?? {}) as never;
    const order = await runTestHelper(
      c.env,
      c.get("partner"),
      c.req.valid("param").order_id,
      h.toHelper(body),
    );
    c.header("Cache-Control", "no-store");
    return c.json(order, 200);
  });
}
