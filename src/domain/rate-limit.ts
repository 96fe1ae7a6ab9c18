export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until a slot frees up (the Retry-After when denied). */
  resetSeconds: number;
}

export const WINDOW_MS = 60_000;

/**
 * Ascending timestamps of allowed requests, oldest first. Expiring from the front only moves a
 * head index; the array is compacted once the dead prefix is more than half of it, so a hit costs
 * amortised O(1) even with a limit of a million a minute (Array#splice(0, k) moved every entry).
 */
export class HitLog {
  #times: number[] = [];
  #head = 0;

  get size(): number {
    return this.#times.length - this.#head;
  }

  /** The i-th live timestamp, oldest first. */
  at(i: number): number | undefined {
    return this.#times[this.#head + i];
  }

  push(t: number): void {
    this.#times.push(t);
  }

  /** Drops every timestamp at or before `cutoff`. */
  expire(cutoff: number): void {
    const times = this.#times;
    let head = this.#head;
    while (head < times.length && (times[head] ?? 0) <= cutoff) head++;
    if (head > 1024 && head * 2 > times.length) {
      this.#times = times.slice(head);
      head = 0;
    } else if (head === times.length) {
      this.#times = [];
      head = 0;
    }
    this.#head = head;
  }
}

/**
 * Exact sliding-window log: a request is allowed when fewer than `limit` requests were allowed in
 * the last `windowMs`. `hits` is updated in place and never holds more than the largest limit used
 * with it.
 */
export function slidingWindowHit(
  hits: HitLog,
  limit: number,
  now: number,
  windowMs = WINDOW_MS,
): RateLimitDecision {
  hits.expire(now - windowMs);
  if (hits.size >= limit) {
    // The slot that frees first is the one that would bring the count below the limit.
    const freesAt = (hits.at(hits.size - limit) ?? now) + windowMs;
    return {
      allowed: false,
      limit,
      remaining: 0,
      resetSeconds: Math.max(1, Math.ceil((freesAt - now) / 1000)),
    };
  }
  hits.push(now);
  const oldest = hits.at(0) ?? now;
  return {
    allowed: true,
    limit,
    remaining: limit - hits.size,
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
