import { DurableObject } from "cloudflare:workers";
import type { ObjectGrant } from "../domain/bucket-view";
import { grantSlots, HitLog, type SlotRequest } from "../domain/rate-limit";

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
}
