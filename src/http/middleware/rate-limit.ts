import type { Context } from "hono";
import { ipRateLimitSubject, type RateLimitDecision, WINDOW_MS } from "../../domain/rate-limit";
import { IsolateRateLimiter } from "../../services/rate-limiting";
import type { AppEnv } from "../app-env";
import { ApiError } from "../errors";

const WINDOW_SECONDS = WINDOW_MS / 1000;

/**
 * The IETF draft's fields (draft-ietf-httpapi-ratelimit-headers-10: `RateLimit-Policy` names the
 * quota and its window, `RateLimit` what is left of it and when), and the three separate fields of
 * the earlier drafts that clients read today, deprecated: the design's 429 names them, and partners
 * pace on them, so they go only after an announced release (docs/auth-and-limits.md).
 */
function headers(bucket: string, d: RateLimitDecision): Record<string, string> {
  // The policy is the bucket's kind (`ip` or `partner`), never its subject: no address or id leaks.
  const policy = `"${bucket.slice(0, bucket.indexOf(":"))}"`;
  return {
    "RateLimit-Policy": `${policy};q=${d.limit};w=${WINDOW_SECONDS}`,
    RateLimit: `${policy};r=${d.remaining};t=${d.resetSeconds}`,
    "RateLimit-Limit": String(d.limit),
    "RateLimit-Remaining": String(d.remaining),
    "RateLimit-Reset": String(d.resetSeconds),
  };
}

/** Module scope: shared by every request this isolate serves (see docs/auth-and-limits.md). */
const limiter = new IsolateRateLimiter();

/**
 * Counts one request against `bucket`; throws 429 once the per-minute limit is spent. Returns the
 * headers that tell the client where it stands, for the answer (setAnswerHeaders after `next()`).
 */
export async function enforceRateLimit(
  c: Context<AppEnv>,
  bucket: string,
  limit: number,
): Promise<Record<string, string>> {
  const decision = await limiter.hit(
    bucket,
    limit,
    () => c.env.RATE_LIMITER.getByName(bucket),
    (p) => c.executionCtx.waitUntil(p),
  );
  const h = headers(bucket, decision);
  if (!decision.allowed) {
    throw new ApiError(
      429,
      "rate_limited",
      `Rate limit of ${limit} requests per minute exceeded; retry in ${decision.resetSeconds} s.`,
      { headers: { ...h, "Retry-After": String(decision.resetSeconds) } },
    );
  }
  return h;
}

/** The client's address as Cloudflare reports it; local tools that send none share one bucket. */
export function clientIp(c: Context): string {
  return c.req.header("cf-connecting-ip") ?? "unknown";
}

export const ipBucket = (c: Context) => `ip:${ipRateLimitSubject(clientIp(c))}`;
export const partnerBucket = (partnerId: string) => `partner:${partnerId}`;
