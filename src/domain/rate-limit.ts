export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until a slot frees up (the Retry-After when denied). */
  resetSeconds: number;
}

export const WINDOW_MS = 60_000;

/**
 * Allowed requests' timestamps, oldest first, kept as runs: one (time, count) per distinct
 * millisecond. A lease is one run however many slots it lends, and a busy bucket's requests of one
 * millisecond share one, so a spent slot's report, inserted in time order, moves only the runs
 * after it (the leases still out, and the last few milliseconds), not every lent slot: with one
 * entry per slot, 20 isolates holding 50 each moved 1,000 entries per reported slot. Runs are found
 * by binary search (a scan from the head read the whole minute, 360,000 entries at 6,000 requests
 * a second, on every refill). Expiring from the front only moves a head index; the arrays are
 * compacted once the dead prefix is more than half of them, so expiry is amortised O(1).
 */
export class HitLog {
  #times: number[] = [];
  #counts: number[] = [];
  #head = 0;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /**
   * The i-th live timestamp, oldest first. Walks runs from the nearer end: cheap for what it
   * serves, the oldest slot (i = 0) and, on a refusal, the first slot over the limit (i = size -
   * limit: the limit's worth of runs from the newest, or the slots lent and not yet reported from
   * the oldest, whichever is fewer).
   */
  at(i: number): number | undefined {
    if (i < 0 || i >= this.#size) return undefined;
    if (i * 2 < this.#size) {
      let left = i;
      for (let r = this.#head; r < this.#times.length; r++) {
        const count = this.#counts[r] as number;
        if (left < count) return this.#times[r];
        left -= count;
      }
    } else {
      let left = this.#size - 1 - i;
      for (let r = this.#times.length - 1; r >= this.#head; r--) {
        const count = this.#counts[r] as number;
        if (left < count) return this.#times[r];
        left -= count;
      }
    }
    return undefined;
  }

  /** Every live timestamp, oldest first (one per slot). */
  values(): number[] {
    const out: number[] = [];
    for (let r = this.#head; r < this.#times.length; r++) {
      for (let k = 0; k < (this.#counts[r] as number); k++) out.push(this.#times[r] as number);
    }
    return out;
  }

  /** Adds `count` slots at `t`, in time order (a lease is stamped ahead of later single hits). */
  add(t: number, count: number): void {
    const r = this.#firstAtOrAfter(t);
    if (this.#times[r] === t) this.#counts[r] = (this.#counts[r] as number) + count;
    else {
      this.#times.splice(r, 0, t);
      this.#counts.splice(r, 0, count);
    }
    this.#size += count;
  }

  /** Removes up to `count` slots at `t` (lent slots that went unused); returns how many. */
  release(t: number, count: number): number {
    const r = this.#firstAtOrAfter(t);
    if (this.#times[r] !== t) return 0;
    const held = this.#counts[r] as number;
    const n = Math.min(count, held);
    if (n === held) {
      this.#times.splice(r, 1);
      this.#counts.splice(r, 1);
    } else this.#counts[r] = held - n;
    this.#size -= n;
    return n;
  }

  /** Drops every timestamp at or before `cutoff`. */
  expire(cutoff: number): void {
    const times = this.#times;
    let head = this.#head;
    while (head < times.length && (times[head] as number) <= cutoff) {
      this.#size -= this.#counts[head] as number;
      head++;
    }
    if (head === times.length) {
      this.#times = [];
      this.#counts = [];
      head = 0;
    } else if (head > 1024 && head * 2 > times.length) {
      this.#times = times.slice(head);
      this.#counts = this.#counts.slice(head);
      head = 0;
    }
    this.#head = head;
  }

  /** The first live run whose time is `t` or later (the end when none is). */
  #firstAtOrAfter(t: number): number {
    const times = this.#times;
    let lo = this.#head;
    let hi = times.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((times[mid] as number) < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
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

/**
 * The largest lease: 50 slots, or a thousandth of the limit above 50,000 a minute, up to 1,000. An
 * isolate asks again when half its lease is spent, so a fixed 50 made a busy bucket's object answer
 * one call per 25 requests however high its limit (240 calls a second at 6,000 requests a second);
 * what an idle isolate can hold unspent stays a thousandth of the limit there.
 */
function maxLease(limit: number): number {
  return Math.min(1_000, Math.max(50, Math.floor(limit / 1_000)));
}

/**
 * Slots lent to one isolate besides the one it spends now: an eighth of what stays free above the
 * last tenth of the limit, and none inside that last tenth, where every request asks the object.
 * Lending a fraction of what is left keeps many isolates from draining the budget between them.
 */
export function leaseSize(free: number, limit: number): number {
  const nearZone = Math.max(1, Math.ceil(limit / 10));
  return Math.max(0, Math.min(maxLease(limit), Math.floor((free - nearZone) / 8)));
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
