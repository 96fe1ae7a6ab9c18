import { DurableObject } from "cloudflare:workers";
import type { ObjectGrant } from "../domain/bucket-view";
import {
  grantSlots,
  HitLog,
  type RateLimitDecision,
  type SlotRequest,
  slidingWindowHit,
} from "../domain/rate-limit";
import { type ConnectionLease, type ConnectionSlots, takeConnectionSlot } from "../domain/streams";

/**
 * One object per bucket (a client IP or a partner): requests to it are serialised, so the count
 * is exact. Isolates ask it for one slot at a time near the limit and for a few lent slots below
 * it (src/domain/bucket-view.ts). The log lives in memory: an object is only evicted after it has
 * been idle, and by then every entry of a one-minute window has expired anyway.
 */
export class RateLimiter extends DurableObject<Env> {
  #hits = new HitLog();
  #epoch = crypto.randomUUID();
  #seq = 0;

  acquire(limit: number, request: SlotRequest): ObjectGrant {
    const grant = grantSlots(this.#hits, limit, Date.now(), request);
    return { ...grant, epoch: this.#epoch, seq: ++this.#seq };
  }

  /**
   * One hit on a slow window (widget order creation per hour, docs/widget.md), exact and without
   * lending. Its log is kept in storage: an object idle for a minute may be evicted, and an hour's
   * hits must outlive that.
   */
  hitWindow(limit: number, windowMs: number): RateLimitDecision {
    const log = new HitLog();
    for (const t of this.ctx.storage.kv.get<number[]>(WINDOW_LOG) ?? []) log.add(t, 1);
    const decision = slidingWindowHit(log, limit, Date.now(), windowMs);
    this.ctx.storage.kv.put(WINDOW_LOG, log.values());
    return decision;
  }

  /**
   * One of `limit` concurrent stream connections (docs/events.md, "Limits"), held until
   * `closeConnection` or for `ttlMs` at most. Kept in storage: the object sits idle while its
   * connections stay open. Refused: when the next slot frees up at the latest.
   */
  openConnection(limit: number, ttlMs: number): { id: string } | { retryAt: number } {
    const kv = this.ctx.storage.kv;
    const id = crypto.randomUUID();
    const taken = takeConnectionSlot(
      kv.get<ConnectionSlots>(CONNECTIONS) ?? {},
      limit,
      Date.now(),
      ttlMs,
      id,
    );
    kv.put(CONNECTIONS, taken.slots);
    return taken.ok ? { id } : { retryAt: taken.retryAt };
  }

  closeConnection(id: string): void {
    const kv = this.ctx.storage.kv;
    const { [id]: _closed, ...rest } = kv.get<ConnectionSlots>(CONNECTIONS) ?? {};
    kv.put(CONNECTIONS, rest);
  }
}

const WINDOW_LOG = "window_log";
const CONNECTIONS = "connections";

/** Gives back stream connection slots (RateLimiter.openConnection) to their buckets. */
export async function releaseConnections(env: Env, leases: readonly ConnectionLease[]): Promise<void> {
  await Promise.all(leases.map((l) => env.RATE_LIMITER.getByName(l.bucket).closeConnection(l.id)));
}
