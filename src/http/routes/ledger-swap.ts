// Ledger's Partner Swap Service v2 under /ledger/v2 (docs/ledger.md): the paths, fields and error
// shape of Ledger's document (integrations/ledger/ledger-swap-provider-openapi.yml), not of ours,
// so these routes stay out of /api/v1/openapi.json. Ledger's backend authenticates with the
// partner's API key in `x-api-key`, the scheme its document declares.
import { z } from "@hono/zod-openapi";
import { type Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { DomainError } from "../../domain/errors";
import { parseNonce } from "../../domain/ledger-payload";
import { ledgerErrorKey } from "../../domain/ledger-swap";
import { regionOf } from "../../domain/liquidity";
import {
  ledgerCurrencies,
  ledgerPairs,
  ledgerQuote,
  ledgerSigningPublicKey,
  ledgerSwap,
  ledgerSwapStatus,
} from "../../services/ledger-swap";
import type { PartnerEnv } from "../app-env";
import { endUserCountry } from "../asset-params";
import { ApiError, badRequest } from "../errors";
import { partnerAuth, publicRateLimit } from "../middleware/auth";
import { statusOf } from "../middleware/errors";
import { describeFieldErrors, fieldErrors } from "../router";
import { decimalAmount } from "../schemas";

const amount = decimalAmount('must be a decimal string such as "0.5"');
const text = (max: number) => z.string().min(1).max(max);
const optionalText = (max: number) => text(max).optional();

const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  cursor: z.string().max(200).optional(),
});

const QuoteBody = z.object({
  from: text(64),
  to: text(64),
  amount,
  tradeMethod: z.enum(["fixed", "float"]).optional(),
});

const SwapFields = {
  refundAddress: text(128),
  refundAddressExtraId: optionalText(128),
  payoutAddress: text(128),
  payoutAddressExtraId: optionalText(128),
  currencyFrom: text(64),
  currencyTo: text(64),
  payloadCurrencyFrom: text(64),
  payloadCurrencyTo: text(64),
  nonce: z.string().transform((v, ctx) => {
    const bytes = parseNonce(v);
    if (!bytes) ctx.addIssue({ code: "custom", message: "must be 1–64 bytes in hex" });
    return bytes ?? new Uint8Array();
  }),
  slippage: z
    .string()
    .regex(/^(0(\.[0-9]+)?|1(\.0+)?)$/, "must be a ratio from 0 to 1")
    .optional(),
};
const FixedBody = z.object({ quoteId: text(1200), ...SwapFields });
const FloatBody = z.object({ amount, ...SwapFields });

function parsed<S extends z.ZodType>(schema: S, input: unknown, target: string): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) {
    const errors = fieldErrors(result.error.issues);
    throw badRequest(describeFieldErrors(target, errors), errors);
  }
  return result.data;
}

async function jsonBody(c: Context): Promise<unknown> {
  try {
    return await c.req.json();
  } catch {
    throw badRequest("Malformed JSON in request body.");
  }
}

/** Every failure in Ledger's `{messageKey, message, additionalFields}`, with its document's statuses. */
function ledgerError(err: Error, c: Context<PartnerEnv>): Response {
  let code: string;
  let status: ContentfulStatusCode;
  let reasons: DomainError["reasons"];
  if (err instanceof DomainError) {
    ({ code, reasons } = err);
    status = statusOf(err.code);
  } else if (err instanceof ApiError) {
    ({ code, status } = err);
    for (const [k, v] of Object.entries(err.options.headers ?? {})) c.header(k, v);
  } else if (err instanceof HTTPException && err.status < 500) {
    code = "invalid_request";
    status = err.status;
  } else {
    console.error(JSON.stringify({ level: "error", requestId: c.get("requestId"), error: String(err) }));
    code = "internal_error";
    status = 500;
  }
  const key = ledgerErrorKey(code, reasons);
  c.header("Cache-Control", "no-store");
  return c.json(
    { messageKey: key.messageKey, message: err.message, additionalFields: key.additionalFields },
    key.status ?? status,
  );
}

const origin = (c: Context<PartnerEnv>) => ({
  region: regionOf(c.req.raw.cf?.continent),
  country: endUserCountry(c),
  keyId: c.get("apiKeyId"),
});

/** A swap's answer; its new order is named to the request log, as a partner API creation's is. */
function swapAnswer(c: Context<PartnerEnv>, swap: Awaited<ReturnType<typeof ledgerSwap>>) {
  c.set("createdOrderId", swap.swapId);
  c.header("Cache-Control", "no-store");
  return c.json(swap);
}

export const ledgerRouter = new Hono<PartnerEnv>()
  .get("/currencies", partnerAuth("optional", "getRate"), async (c) =>
    c.json(await ledgerCurrencies(c.env.DB, parsed(PageQuery, c.req.query(), "query"))),
  )
  .get("/pairs", partnerAuth("optional", "getRate"), async (c) =>
    c.json(await ledgerPairs(c.env.DB, parsed(PageQuery, c.req.query(), "query"))),
  )
  .get("/public-key", publicRateLimit, (c) => c.json(ledgerSigningPublicKey(c.env)))
  .post("/quote", partnerAuth("required", "getRate"), async (c) => {
    const body = parsed(QuoteBody, await jsonBody(c), "body");
    c.header("Cache-Control", "no-store");
    return c.json(
      await ledgerQuote(c.env, c.get("config"), c.get("partner"), body, Date.now(), {
        country: endUserCountry(c),
        region: () => regionOf(c.req.raw.cf?.continent),
        background: (p) => c.executionCtx.waitUntil(p),
      }),
    );
  })
  .post("/swap/fixed", partnerAuth("required", "createOrder"), async (c) => {
    const body = parsed(FixedBody, await jsonBody(c), "body");
    return swapAnswer(
      c,
      await ledgerSwap(c.env, c.get("config"), c.get("partner"), body, Date.now(), origin(c)),
    );
  })
  .post("/swap/float", partnerAuth("required", "createOrder"), async (c) => {
    const body = parsed(FloatBody, await jsonBody(c), "body");
    return swapAnswer(
      c,
      await ledgerSwap(c.env, c.get("config"), c.get("partner"), body, Date.now(), origin(c)),
    );
  })
  .get("/status", partnerAuth("required", "getOrder"), async (c) => {
    const { swapId } = parsed(z.object({ swapId: text(64) }), c.req.query(), "query");
    c.header("Cache-Control", "no-store");
    return c.json(await ledgerSwapStatus(c.env, c.get("partner"), swapId));
  })
  .onError(ledgerError);
