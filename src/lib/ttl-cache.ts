/**
 * Isolate-memory cache for hot read paths (catalog, prices, API keys). Entries live a few seconds;
 * correctness never depends on it, only latency. Concurrent misses share one load.
 */
export class TtlCache<V> {
  readonly #entries = new Map<string, { expires: number; value: Promise<V> }>();

  constructor(
    readonly ttlMs: number,
    readonly maxEntries = 1000,
  ) {}

  get(key: string, load: () => Promise<V>, now = Date.now()): Promise<V> {
    const hit = this.#entries.get(key);
    // An entry from the "future" (the clock stepped back) is as good as expired.
    if (hit && hit.expires > now && hit.expires - this.ttlMs <= now) return hit.value;
    if (this.#entries.size >= this.maxEntries) this.#entries.clear();
    const value = load();
    this.#entries.set(key, { expires: now + this.ttlMs, value });
    // A failed load must not be cached: the next caller retries.
    value.catch(() => {
      if (this.#entries.get(key)?.value === value) this.#entries.delete(key);
    });
    return value;
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}
