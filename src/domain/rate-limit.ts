export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until a slot frees up (the Retry-After when denied). */
  resetSeconds: number;
}

export const WINDOW_MS = 60_000;

/**
 * Exact sliding-window log: a request is allowed when fewer than `limit` requests were allowed in
 * the last `windowMs`. `hits` (ascending timestamps of allowed requests) is updated in place and
 * never grows beyond the largest limit used with it.
 */
export function slidingWindowHit(
  hits: number[],
  limit: number,
  now: number,
  windowMs = WINDOW_MS,
): RateLimitDecision {
  let expired = 0;
  while (expired < hits.length && (hits[expired] ?? 0) <= now - windowMs) expired++;
  if (expired > 0) hits.splice(0, expired);
  if (hits.length >= limit) {
    // The slot that frees first is the one that would bring the count below the limit.
    const freesAt = (hits[hits.length - limit] ?? now) + windowMs;
    return {
      allowed: false,
      limit,
      remaining: 0,
      resetSeconds: Math.max(1, Math.ceil((freesAt - now) / 1000)),
    };
  }
  hits.push(now);
  const oldest = hits[0] ?? now;
  return {
    allowed: true,
    limit,
    remaining: limit - hits.length,
    resetSeconds: Math.max(1, Math.ceil((oldest + windowMs - now) / 1000)),
  };
}
