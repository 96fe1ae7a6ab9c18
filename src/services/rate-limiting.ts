import { BucketView, type ObjectGrant } from "../domain/bucket-view";
import type { RateLimitDecision, SlotRequest } from "../domain/rate-limit";

/** A bucket's object (src/objects/rate-limiter.ts), or a stand-in for it in tests. */
export interface SlotSource {
  acquire(limit: number, request: SlotRequest): Promise<ObjectGrant>;
}

/** Views kept per isolate; past this, the oldest is forgotten (its lent slots lapse unspent). */
const MAX_VIEWS = 10_000;

/**
 * The isolate's rate limiter: one BucketView per bucket, in isolate memory. A request under its
 * limit spends a slot the bucket's object lent this isolate and tops the lease up in the
 * background (`background`, i.e. executionCtx.waitUntil); only a request that finds no lent slot
 * (the first one, or any near the limit, where the object lends none) waits for the object.
 */
export class IsolateRateLimiter {
  readonly #views = new Map<string, BucketView>();
  readonly #clock: () => number;

  constructor(clock: () => number = Date.now) {
    this.#clock = clock;
  }

  async hit(
    bucket: string,
    limit: number,
    source: () => SlotSource,
    background: (p: Promise<unknown>) => void,
  ): Promise<RateLimitDecision> {
    const view = this.#view(bucket);
    const local = view.take(limit, this.#clock());
    if (local) {
      const refill = view.refillRequest(this.#clock());
      if (refill) background(this.#ask(view, source(), limit, refill).catch(() => undefined));
      return local;
    }
    const request = view.syncRequest(this.#clock());
    const grant = await this.#ask(view, source(), limit, request);
    if (grant.decision.allowed) return view.decision(limit, this.#clock());
    // A lease that landed while this request waited still has room for it.
    return view.take(limit, this.#clock()) ?? grant.decision;
  }

  async #ask(
    view: BucketView,
    source: SlotSource,
    limit: number,
    request: SlotRequest,
  ): Promise<ObjectGrant> {
    const sentAt = this.#clock();
    try {
      const grant = await source.acquire(limit, request);
      view.absorb(request, grant, sentAt);
      return grant;
    } catch (err) {
      view.failed(request);
      throw err;
    }
  }

  #view(bucket: string): BucketView {
    let view = this.#views.get(bucket);
    if (!view) {
      if (this.#views.size >= MAX_VIEWS) {
        const oldest = this.#views.keys().next().value;
        if (oldest !== undefined) this.#views.delete(oldest);
      }
      view = new BucketView();
      this.#views.set(bucket, view);
    }
    return view;
  }
}
