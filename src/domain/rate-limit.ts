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

/**
 * Whose budget a client address spends: an IPv4 address is one client; an IPv6 address counts by
 * its /64, the block one subscriber line is given, so rotating addresses inside it buys nothing.
 * Anything that does not parse is its own bucket.
 */
export function ipRateLimitSubject(ip: string): string {
  if (!ip.includes(":")) return ip;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped?.[1]) return mapped[1];
  const halves = ip.toLowerCase().split("::");
  if (halves.length > 2) return ip;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - tail.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return ip;
  const groups = [...head, ...Array<string>(missing).fill("0"), ...tail];
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return ip;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}
