import { z } from "zod";
import { hmacSha256Hex } from "../../domain/credentials";
import { runtimeFetch } from "../http-client";
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

/**
 * PAYOUT_MODE `http` (the contract is docs/lifecycle.md, "The payout gateway contract"):
 * `POST {base}/payouts` and `GET {base}/payouts/{key}`, both signed. The gateway's final answers —
 * "refused for good" and "never received this key" — count only when they carry the gateway's
 * signature over the response body: a proxy's 404, an error page or a wrong path prefix is no
 * answer at all, so the order keeps asking instead of failing (or paying twice).
 */
export function createHttpPayout(options: HttpPayoutOptions): PayoutGateway & BalanceSource {
  const base = options.baseUrl.replace(/\/+$/, "");
  // The gateway verifies the request line it received: with a base such as https://gw.example/gw
  // that path starts with the prefix, so the prefix is signed too.
  const basePath = new URL(base).pathname.replace(/\/+$/, "");
  const doFetch = options.fetch ?? runtimeFetch;
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const sign = (text: string) => hmacSha256Hex(options.secret, new TextEncoder().encode(text));

  async function signedHeaders(body: string, key?: string): Promise<Record<string, string>> {
    return {
      "content-type": "application/json",
      ...(key === undefined ? {} : { "idempotency-key": key }),
      "x-signature": await sign(body),
    };
  }

  /** The gateway's own signed statement in a response, or null when it is not one. */
  async function statement(res: Response, text: string): Promise<Record<string, unknown> | null> {
    const signature = res.headers.get("x-signature")?.trim().toLowerCase();
    if (!signature || signature !== (await sign(text))) return null;
    try {
      const parsed: unknown = JSON.parse(text);
      return parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>) : null;
    } catch {
      return null;
    }
  }

  /** A signed GET of `path` (the request line is what is signed). */
  async function signedGet(path: string, key?: string): Promise<{ res: Response; text: string }> {
    const res = await doFetch(`${base}${path}`, {
      headers: await signedHeaders(`GET ${basePath}${path}`, key),
      signal: AbortSignal.timeout(timeout),
    });
    return { res, text: await res.text() };
  }

  const txidOf = (text: string): string | null => {
    try {
      const parsed: unknown = JSON.parse(text);
      return parsed && typeof parsed === "object" && "txid" in parsed && typeof parsed.txid === "string"
        ? parsed.txid
        : null;
    } catch {
      return null;
    }
  };

  return {
    async send(req: PayoutRequest): Promise<PayoutResult> {
      const body = JSON.stringify(req);
      let res: Response;
      try {
        res = await doFetch(`${base}/payouts`, {
          method: "POST",
          body,
          headers: await signedHeaders(body, req.idempotencyKey),
          signal: AbortSignal.timeout(timeout),
        });
      } catch (err) {
        return { status: "unknown", error: `payout gateway unreachable: ${String(err)}` };
      }
      const text = await res.text();
      if (res.ok) {
        const txid = txidOf(text);
        if (txid) return { status: "sent", txid };
        // Accepted but unreadable: the outcome is unknown, so the next attempt asks first.
        return { status: "unknown", error: "payout gateway answered without a txid" };
      }
      const said = await statement(res, text);
      if (said?.status === "refused")
        return { status: "refused", error: `payout gateway refused: ${String(said.reason ?? "no reason")}` };
      const error = `payout gateway ${res.status}${said ? "" : " (unsigned)"}: ${text.slice(0, 200)}`;
      return CONFIG_STATUS.has(res.status)
        ? { status: "unknown", error, config: true }
        : { status: "unknown", error };
    },
    async lookup(idempotencyKey: string): Promise<PayoutLookup> {
      // No body to sign: the request line is, so a signature is good for this key only.
      const { res, text } = await signedGet(`/payouts/${encodeURIComponent(idempotencyKey)}`, idempotencyKey);
      if (res.ok) {
        const txid = txidOf(text);
        if (txid) return { status: "sent", txid };
        throw new Error("payout gateway lookup answered without a txid (still in progress?)");
      }
      const said = await statement(res, text);
      if (said?.status === "unknown_key") return { status: "unknown_key" };
      if (said?.status === "refused") return { status: "refused", error: String(said.reason ?? "refused") };
      throw new Error(
        `payout gateway lookup ${res.status}${said ? "" : " (unsigned)"}: ${text.slice(0, 200)}`,
      );
    },
    async balances(): Promise<GatewayBalance[]> {
      const { res, text } = await signedGet("/balances");
      // A balance decides how much may be promised: only the gateway's signed word counts.
      const said = res.ok ? await statement(res, text) : null;
      if (!said) throw new Error(`payout gateway balances ${res.status} not signed: ${text.slice(0, 200)}`);
      const parsed = BalancesBody.safeParse(said);
      if (!parsed.success) throw new Error("payout gateway balances: unexpected body");
      return parsed.data.balances;
    },
  };
}
