import { hmacSha256Hex } from "../../domain/credentials";
import { runtimeFetch } from "../http-client";
import type { PayoutGateway, PayoutRequest, PayoutResult } from "./types";

export interface HttpPayoutOptions {
  /** The operator's signer service, e.g. https://signer.internal.example. */
  baseUrl: string;
  /** Shared secret; every request body is signed with HMAC-SHA256 in `X-Signature`. */
  secret: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 15_000;
/** Timeout, conflict (the same key in progress), too early, too many requests. */
const RETRYABLE_4XX = new Set([408, 409, 425, 429]);

/**
 * PAYOUT_MODE `http`: `POST {base}/payouts` with the order id as `Idempotency-Key`, body signed
 * like partner requests (hex HMAC-SHA256 of the raw body). 2xx `{txid}` → sent; 4xx → rejected
 * for good, except those that say "not now" (408, 409 — the key is being processed —, 425, 429);
 * those, 5xx, timeouts and network errors → retryable: the lifecycle then asks
 * `GET {base}/payouts/{key}` (signed over `GET /payouts/{key}`) before trying again, so an unknown
 * outcome never pays twice. The gateway must answer that lookup with 404 only for a key it never
 * received and 410 for one it received and refused (nothing sent); a key still in progress
 * answers anything else (2xx without txid, 409, ...), which keeps the order waiting.
 */
export function createHttpPayout(options: HttpPayoutOptions): PayoutGateway {
  const base = options.baseUrl.replace(/\/+$/, "");
  const doFetch = options.fetch ?? runtimeFetch;
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  async function signedHeaders(body: string, key: string): Promise<Record<string, string>> {
    const signature = await hmacSha256Hex(options.secret, new TextEncoder().encode(body));
    return { "content-type": "application/json", "idempotency-key": key, "x-signature": signature };
  }

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
        return { status: "failed", retryable: true, error: `payout gateway unreachable: ${String(err)}` };
      }
      const text = await res.text();
      if (res.ok) {
        const txid = (() => {
          try {
            const parsed: unknown = JSON.parse(text);
            return parsed && typeof parsed === "object" && "txid" in parsed && typeof parsed.txid === "string"
              ? parsed.txid
              : null;
          } catch {
            return null;
          }
        })();
        if (txid) return { status: "sent", txid };
        // Accepted but unreadable: the outcome is unknown, so the next attempt asks first.
        return { status: "failed", retryable: true, error: "payout gateway answered without a txid" };
      }
      return {
        status: "failed",
        retryable: res.status >= 500 || RETRYABLE_4XX.has(res.status),
        error: `payout gateway ${res.status}: ${text.slice(0, 200)}`,
      };
    },
    async lookup(idempotencyKey: string): Promise<{ txid: string } | null> {
      const path = `/payouts/${encodeURIComponent(idempotencyKey)}`;
      const res = await doFetch(`${base}${path}`, {
        // No body to sign: the request line is, so a signature is good for this key only.
        headers: await signedHeaders(`GET ${path}`, idempotencyKey),
        signal: AbortSignal.timeout(timeout),
      });
      // 404: never received; 410: received and refused for good. Either way nothing was sent.
      if (res.status === 404 || res.status === 410) return null;
      if (!res.ok) throw new Error(`payout gateway lookup ${res.status}`);
      const parsed = (await res.json()) as { txid?: unknown };
      if (typeof parsed.txid !== "string") throw new Error("payout gateway lookup answered without a txid");
      return { txid: parsed.txid };
    },
  };
}
