import { hmacSha256Hex } from "./hmac.js";

export interface RetryPolicy {
  /** Retries after the first attempt (default 3). */
  maxRetries: number;
  /**
   * Longest single wait, in ms (default 60 s, the rate limit's window). A backoff is capped at it;
   * a Retry-After longer than it is never cut short: the answer is returned instead of retried.
   */
  maxDelayMs: number;
  /** First backoff when the server gives no Retry-After (default 500 ms, doubling). */
  baseDelayMs: number;
  /** How to wait (tests replace it). */
  sleep: (ms: number) => Promise<void>;
}

export const defaultRetryPolicy: RetryPolicy = {
  maxRetries: 3,
  maxDelayMs: 60_000,
  baseDelayMs: 500,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

const RETRYABLE_STATUS = new Set([429, 503]);

/**
 * A request may be sent again only when a repeat cannot do anything twice: reads, and writes that
 * carry an Idempotency-Key (the server answers a repeat with the first result).
 */
function safeToRepeat(request: Request): boolean {
  return request.method === "GET" || request.method === "HEAD" || request.headers.has("idempotency-key");
}

/**
 * How long to wait before the next attempt: the server's Retry-After when it gives one (a retry
 * sooner would only meet the same answer), else the doubling backoff within maxDelayMs. null: the
 * server asks for longer than the policy waits, so there is no retry.
 */
function delayMs(policy: RetryPolicy, attempt: number, response: Response | null): number | null {
  const retryAfter = response?.headers.get("retry-after");
  const seconds = retryAfter !== null && retryAfter !== undefined ? Number(retryAfter) : Number.NaN;
  if (Number.isFinite(seconds) && seconds >= 0) {
    const ms = seconds * 1000;
    return ms <= policy.maxDelayMs ? ms : null;
  }
  return Math.min(policy.baseDelayMs * 2 ** attempt, policy.maxDelayMs);
}

/**
 * The server's read position: each answer that read the order index carries one, and a create's
 * names its new order. The next request sends the last one back, so a list right after a create
 * or a change reads at least what this client saw or wrote (docs/architecture.md, "Reads from
 * replicas").
 */
const BOOKMARK = "x-d1-bookmark";

/**
 * The fetch the client sends through: signs bodies when asked (X-Signature), repeats the server's
 * last bookmark, and retries 429, 503 and network errors within the policy, the same request
 * (same Idempotency-Key) every time.
 */
export function partnerFetch(
  base: typeof fetch,
  policy: RetryPolicy,
  signingSecret: string | null,
): (request: Request) => Promise<Response> {
  let bookmark: string | null = null;
  return async (input: Request) => {
    const headers = new Headers(input.headers);
    if (bookmark !== null && !headers.has(BOOKMARK)) headers.set(BOOKMARK, bookmark);
    // Bodies are small JSON: read once, so the rebuilt request never carries a one-shot stream.
    const body = input.body === null ? null : new Uint8Array(await input.arrayBuffer());
    if (signingSecret && body) headers.set("x-signature", await hmacSha256Hex(signingSecret, body));
    const request = new Request(input, { headers, body });
    const repeatable = safeToRepeat(request);
    for (let attempt = 0; ; attempt++) {
      const last = !repeatable || attempt >= policy.maxRetries;
      let response: Response;
      try {
        response = await base(last ? request : request.clone());
      } catch (err) {
        if (last) throw err;
        await policy.sleep(delayMs(policy, attempt, null) ?? 0);
        continue;
      }
      bookmark = response.headers.get(BOOKMARK) ?? bookmark;
      if (last || !RETRYABLE_STATUS.has(response.status)) return response;
      const wait = delayMs(policy, attempt, response);
      if (wait === null) return response;
      await response.body?.cancel();
      await policy.sleep(wait);
    }
  };
}
