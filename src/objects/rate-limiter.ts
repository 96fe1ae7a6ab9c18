import { DurableObject } from "cloudflare:workers";
import { HitLog, type RateLimitDecision, slidingWindowHit } from "../domain/rate-limit";

/**
 * One object per bucket (a client IP or a partner): requests to it are serialised, so the count
 * is exact. The log lives in memory: an object is only evicted after it has been idle, and by then
 * every entry of a one-minute window has expired anyway.
 */
export class RateLimiter extends DurableObject<Env> {
  #hits = new HitLog();

  hit(limit: number): RateLimitDecision {
    return slidingWindowHit(this.#hits, limit, Date.now());
  }
}
