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
 * A lease's settlement finds its place by binary search: a linear scan from the head read the
 * whole minute (360,000 entries at 6,000 requests a second) on every refill.
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

  /** Adds `count` copies of `t` in order (a lease is stamped ahead of later single hits). */
  add(t: number, count: number): void {
    const i = this.#firstAbove(t, true);
    if (count === 1) this.#times.splice(i, 0, t);
    else this.#times.splice(i, 0, ...Array<number>(count).fill(t));
  }

  /** Removes up to `count` copies of `t` (lent slots that went unused); returns how many. */
  release(t: number, count: number): number {
    const times = this.#times;
    const first = this.#firstAbove(t, false);
    let n = 0;
    while (n < count && first + n < times.length && times[first + n] === t) n++;
    times.splice(first, n);
    return n;
  }

  /** The first live index past every timestamp below `t` (and, if `afterEqual`, those equal to it). */
  #firstAbove(t: number, afterEqual: boolean): number {
    const times = this.#times;
    let lo = this.#head;
    let hi = times.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const v = times[mid] as number;
      if (v < t || (afterEqual && v === t)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
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
 * How long an isolate may spend slots lent to it, and how far ahead of the lending the object
 * records them: a lent slot stands in the log no earlier than it can be spent (the extra quarter
 * second absorbs clock skew between the isolate and the object), so the window never undercounts.
 * The isolate later reports when it actually spent each one (Release.spentAt), which moves the
 * record back to the truth, so lending costs no capacity either.
 */
export const LEASE_USE_MS = 10_000;
export const LEASE_STAMP_MS = LEASE_USE_MS + 250;
const MAX_LEASE = 50;

/**
 * Slots lent to one isolate besides the one it spends now: an eighth of what stays free above the
 * last tenth of the limit, and none inside that last tenth, where every request asks the object.
 * Lending a fraction of what is left keeps many isolates from draining the budget between them.
 */
export function leaseSize(free: number, limit: number): number {
  const nearZone = Math.max(1, Math.ceil(limit / 10));
  return Math.max(0, Math.min(MAX_LEASE, Math.floor((free - nearZone) / 8)));
}

/** A lease done with (spent or lapsed): its `count` records at `stampedAt` become `spentAt`. */
export interface Release {
  stampedAt: number;
  count: number;
  /** When the isolate spent its slots, ascending; the rest lapsed unspent and are freed. */
  spentAt: number[];
}

/** What an isolate asks of a bucket's object. */
export interface SlotRequest {
  /** One slot for the request waiting on this answer. */
  immediate: boolean;
  /** Also lend slots for requests to come. */
  lease: boolean;
  release?: Release[];
}

export interface SlotGrant {
  /** For the request that asked now (`immediate`); a refill's decision only reports the bucket. */
  decision: RateLimitDecision;
  /** Slots lent for later, all recorded at `stampedAt`. */
  leased: number;
  stampedAt: number;
}

/**
 * Exact sliding-window log: a request is allowed when fewer than `limit` slots were recorded in
 * the last `windowMs`. `immediate` records one slot now for the asking request; `lease` also lends
 * a few slots (leaseSize), recorded LEASE_STAMP_MS ahead; `release` settles past leases first. `hits`
 * is updated in place and never holds more than the largest limit used with it.
 */
export function grantSlots(
  hits: HitLog,
  limit: number,
  now: number,
  want: SlotRequest,
  windowMs = WINDOW_MS,
): SlotGrant {
  for (const r of want.release ?? []) {
    hits.release(r.stampedAt, r.count);
    for (const t of r.spentAt) if (t > now - windowMs) hits.add(t, 1);
  }
  hits.expire(now - windowMs);
  const denied = want.immediate && hits.size >= limit;
  if (denied) {
    // The slot that frees first is the one that would bring the count below the limit.
    const freesAt = (hits.at(hits.size - limit) ?? now) + windowMs;
    const resetSeconds = Math.max(1, Math.ceil((freesAt - now) / 1000));
    return { decision: { allowed: false, limit, remaining: 0, resetSeconds }, leased: 0, stampedAt: now };
  }
  if (want.immediate) hits.add(now, 1);
  const stampedAt = now + LEASE_STAMP_MS;
  const leased = want.lease ? leaseSize(limit - hits.size, limit) : 0;
  if (leased > 0) hits.add(stampedAt, leased);
  const oldest = hits.at(0) ?? now;
  return {
    decision: {
      allowed: want.immediate,
      limit,
      remaining: Math.max(0, limit - hits.size),
      resetSeconds: Math.max(1, Math.ceil((oldest + windowMs - now) / 1000)),
    },
    leased,
    stampedAt,
  };
}

/** One request, no lending: the object's exact answer. */
export function slidingWindowHit(
  hits: HitLog,
  limit: number,
  now: number,
  windowMs = WINDOW_MS,
): RateLimitDecision {
  return grantSlots(hits, limit, now, { immediate: true, lease: false }, windowMs).decision;
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
