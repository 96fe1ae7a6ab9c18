import { z } from "zod";
import { hmacSha256Hex, signatureValid } from "../../domain/credentials";
import { parseDecimal } from "../../domain/money";
import { runtimeFetch, withTimeout } from "../http-client";
import type {
  BalanceSource,
  GatewayBalance,
  PayoutGateway,
  PayoutLookup,
  PayoutRequest,
  PayoutResult,
} from "./types";

export interface HttpPayoutOptions {
  /** The operator's signer service, e.g. https://signer.internal.example. */
  baseUrl: string;
  /** Shared secret: requests and the gateway's final answers are signed with HMAC-SHA256. */
  secret: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 15_000;
/** Statuses that mean this service is set up wrong (credentials, URL): the operator must act. */
const CONFIG_STATUS = new Set([401, 403, 404]);

const decimalString = z.string().regex(/^\d+(\.\d+)?$/);
const BalancesBody = z.object({
  balances: z.array(
    z.object({
      coin: z
        .string()
        .min(1)
        .transform((c) => c.toUpperCase()),
      network: z
        .string()
        .min(1)
        .transform((n) => n.toUpperCase()),
      available: decimalString,
    }),
  ),
});

/** How far a signed answer's `at` may be from our clock: older (or newer) is a replay, not an answer. */
export const ANSWER_MAX_SKEW_MS = 5 * 60_000;

const Statement = z.discriminatedUnion("status", [
  z.object({
    status: z.literal("sent"),
    key: z.string(),
    txid: z.string().min(1),
    amount: decimalString,
    at: z.string(),
  }),
  z.object({ status: z.literal("refused"), key: z.string(), reason: z.string().optional(), at: z.string() }),
  z.object({ status: z.literal("unknown_key"), key: z.string(), at: z.string() }),
]);
type Statement = z.infer<typeof Statement>;

/**
 * A signed answer's verdict on the request it answers: the statement, or why it is none. It counts
 * only for the key asked about, the amount sent under it, and now (contract v2).
 */
export function statementFor(
  said: Statement,
  req: Pick<PayoutRequest, "idempotencyKey" | "amount">,
  now: number,
): Statement | string {
  if (said.key !== req.idempotencyKey) return `signed for another key (${said.key.slice(0, 80)})`;
  const at = Date.parse(said.at);
  if (!Number.isFinite(at) || Math.abs(now - at) > ANSWER_MAX_SKEW_MS)
    return `stale (signed at ${said.at.slice(0, 40)})`;
  if (said.status === "sent" && !parseDecimal(said.amount).eq(parseDecimal(req.amount)))
    return `paid ${said.amount}, not the ${req.amount} sent under the key`;
  return said;
}

/**
 * PAYOUT_MODE `http`, gateway contract v2 (docs/adapters.md, "The payout gateway contract"):
 * `POST {base}/payouts` and `GET {base}/payouts/{key}`, both signed. Every answer the order acts on
 * — paid, refused for good, never received — is the gateway's signed statement naming the key, the
 * outcome, the txid and amount of a payment, and when it was made. Anything else (unsigned, for
 * another key, stale, another amount, a proxy's page) is no answer at all: the order asks again
 * instead of completing, failing or paying twice.
 */
export function createHttpPayout(options: HttpPayoutOptions): PayoutGateway & BalanceSource {
  const base = options.baseUrl.replace(/\/+$/, "");
  // The gateway verifies the request line it received: with a base such as https://gw.example/gw
  // that path starts with the prefix, so the prefix is signed too.
  const basePath = new URL(base).pathname.replace(/\/+$/, "");
  const doFetch = options.fetch ?? runtimeFetch;
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const encoder = new TextEncoder();
  const sign = (text: string) => hmacSha256Hex(options.secret, encoder.encode(text));

  async function signedHeaders(body: string, key?: string): Promise<Record<string, string>> {
    return {
      "content-type": "application/json",
      ...(key === undefined ? {} : { "idempotency-key": key }),
      "x-signature": await sign(body),
    };
  }

  /** The response body as the gateway signed it (constant-time check), or null when it is not. */
  async function signedJson(res: Response, text: string): Promise<unknown> {
    const signature = res.headers.get("x-signature")?.trim() ?? "";
    if (!(await signatureValid(options.secret, encoder.encode(text), signature))) return null;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return null;
    }
  }

  /** The gateway's statement on `req` in a response, or why there is none. */
  async function statement(res: Response, text: string, req: PayoutRequest): Promise<Statement | string> {
    const json = await signedJson(res, text);
    if (json === null) return "unsigned";
    const parsed = Statement.safeParse(json);
    if (!parsed.success) return "signed, but no statement";
    return statementFor(parsed.data, req, Date.now());
  }

  /** A signed GET of `path` (the request line is what is signed). */
  async function signedGet(path: string, key?: string): Promise<{ res: Response; text: string }> {
    const headers = await signedHeaders(`GET ${basePath}${path}`, key);
    return withTimeout(timeout, async (signal) => {
      const res = await doFetch(`${base}${path}`, { headers, signal });
      return { res, text: await res.text() };
    });
  }

  const clip = (text: string) => text.slice(0, 200);

  return {
    async send(req: PayoutRequest): Promise<PayoutResult> {
      const body = JSON.stringify(req);
      let res: Response;
      let text: string;
      try {
        const headers = await signedHeaders(body, req.idempotencyKey);
        ({ res, text } = await withTimeout(timeout, async (signal) => {
          const res = await doFetch(`${base}/payouts`, { method: "POST", body, headers, signal });
          return { res, text: await res.text() };
        }));
      } catch (err) {
        return { status: "unknown", error: `payout gateway unreachable: ${String(err)}` };
      }
      const said = await statement(res, text, req);
      if (typeof said !== "string") {
        if (said.status === "sent" && res.ok) return { status: "sent", txid: said.txid };
        if (said.status === "refused" && !res.ok)
          return { status: "refused", error: `payout gateway refused: ${said.reason ?? "no reason"}` };
      }
      // Not the gateway's word on this send (an unsigned 200 included): unknown, asked about next time.
      const why = typeof said === "string" ? said : `${said.status} with ${res.status}`;
      const error = `payout gateway ${res.status} (${why}): ${clip(text)}`;
      return CONFIG_STATUS.has(res.status) && typeof said === "string"
        ? { status: "unknown", error, config: true }
        : { status: "unknown", error };
    },
    async lookup(req: PayoutRequest): Promise<PayoutLookup> {
      const key = req.idempotencyKey;
      const { res, text } = await signedGet(`/payouts/${encodeURIComponent(key)}`, key);
      const said = await statement(res, text, req);
      if (typeof said !== "string") {
        if (said.status === "sent" && res.ok) return { status: "sent", txid: said.txid };
        if (said.status === "unknown_key" && res.status === 404) return { status: "unknown_key" };
        if (said.status === "refused" && !res.ok)
          return { status: "refused", error: said.reason ?? "refused" };
      }
      const why = typeof said === "string" ? said : `${said.status} with ${res.status}`;
      const error = `payout gateway lookup ${res.status} (${why}): ${clip(text)}`;
      // Our credentials refused. (A 404 is not: on a lookup it is what a proxy answers for a key.)
      return (res.status === 401 || res.status === 403) && typeof said === "string"
        ? { status: "error", error, config: true }
        : { status: "error", error };
    },
    async balances(): Promise<GatewayBalance[]> {
      const { res, text } = await signedGet("/balances");
      // A balance decides how much may be promised: only the gateway's signed word counts.
      const said = res.ok ? await signedJson(res, text) : null;
      if (!said) throw new Error(`payout gateway balances ${res.status} not signed: ${clip(text)}`);
      const parsed = BalancesBody.safeParse(said);
      if (!parsed.success) throw new Error("payout gateway balances: unexpected body");
      return parsed.data.balances;
    },
  };
}
