import {
  LEASE_USE_MS,
  type RateLimitDecision,
  type Release,
  type SlotGrant,
  type SlotRequest,
} from "./rate-limit";

/** Lent slots, recorded by the bucket's object at `stampedAt`, spendable here until `usableUntil`. */
interface Lease {
  stampedAt: number;
  size: number;
  spentAt: number[];
  usableUntil: number;
}

/** The object's answer, tagged so an isolate can order answers that crossed in flight. */
export interface ObjectGrant extends SlotGrant {
  /** Changes when the object restarts (eviction), which restarts `seq`. */
  epoch: string;
  seq: number;
}

/** A refill whose answer never came (its request was cancelled) stops blocking the next one. */
const REFILL_STALE_MS = 5_000;

/**
 * One isolate's view of one rate-limit bucket: the slots its object lent it, and the object's
 * count as of the newest answer. A request spends a lent slot without a round trip; only when
 * none is left (near the limit the object lends none) does it wait for the object. Every slot
 * spent here was recorded by the object first, so lending never lets more through than the limit.
 */
export class BucketView {
  #leases: Lease[] = [];
  #releases: Release[] = [];
  #remote: { remaining: number; resetAt: number; epoch: string; seq: number } | null = null;
  #lastLeased = 0;
  #syncInFlight = 0;
  #refillSince: number | null = null;

  /** Spends a lent slot if one is live; null when the request must ask the object. */
  take(limit: number, now: number): RateLimitDecision | null {
    this.#expire(now);
    const lease = this.#leases[0];
    if (!lease) return null;
    lease.spentAt.push(now);
    if (lease.spentAt.length === lease.size) this.#close(this.#leases.shift() as Lease);
    return this.decision(limit, now);
  }

  /** The request for a request that found no lent slot: it lends more only if none is on its way. */
  syncRequest(now: number): SlotRequest {
    this.#expire(now);
    const lease = this.#syncInFlight === 0;
    this.#syncInFlight++;
    return { immediate: true, lease, release: this.#drainReleases() };
  }

  /** A refill request when the lent slots run low and the object still lends; null otherwise. */
  refillRequest(now: number): SlotRequest | null {
    if (this.#lastLeased === 0 || this.#live() * 2 > this.#lastLeased) return null;
    if (this.#refillSince !== null && now - this.#refillSince < REFILL_STALE_MS) return null;
    this.#refillSince = now;
    return { immediate: false, lease: true, release: this.#drainReleases() };
  }

  /** Takes in the object's answer to a request sent at `sentAt`. */
  absorb(request: SlotRequest, grant: ObjectGrant, sentAt: number): void {
    this.#settle(request);
    if (grant.leased > 0) {
      this.#leases.push({
        stampedAt: grant.stampedAt,
        size: grant.leased,
        spentAt: [],
        usableUntil: sentAt + LEASE_USE_MS,
      });
    }
    this.#lastLeased = grant.leased;
    const r = this.#remote;
    if (!r || r.epoch !== grant.epoch || grant.seq > r.seq) {
      this.#remote = {
        remaining: grant.decision.remaining,
        resetAt: sentAt + grant.decision.resetSeconds * 1000,
        epoch: grant.epoch,
        seq: grant.seq,
      };
    }
  }

  /** The request failed: its reports go with the next one. */
  failed(request: SlotRequest): void {
    this.#settle(request);
    this.#releases.push(...(request.release ?? []));
  }

  /** The bucket as this isolate sees it: the object's count plus the slots lent here, unspent. */
  decision(limit: number, now: number): RateLimitDecision {
    const remote = this.#remote;
    return {
      allowed: true,
      limit,
      remaining: Math.min(limit, (remote?.remaining ?? 0) + this.#live()),
      resetSeconds: Math.max(1, Math.ceil(((remote?.resetAt ?? now) - now) / 1000)),
    };
  }

  #settle(request: SlotRequest): void {
    if (request.immediate) this.#syncInFlight--;
    else this.#refillSince = null;
  }

  #live(): number {
    return this.#leases.reduce((n, l) => n + l.size - l.spentAt.length, 0);
  }

  #expire(now: number): void {
    while (this.#leases[0] && this.#leases[0].usableUntil <= now) this.#close(this.#leases.shift() as Lease);
  }

  /** A lease spent or lapsed: reported with the next request, to correct the object's log. */
  #close({ stampedAt, size, spentAt }: Lease): void {
    this.#releases.push({ stampedAt, count: size, spentAt });
  }

  #drainReleases(): Release[] {
    const out = this.#releases;
    this.#releases = [];
    return out;
  }
}
