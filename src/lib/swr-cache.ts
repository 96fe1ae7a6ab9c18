/**
 * Isolate-memory cache that never makes a caller wait for a figure it has seen: once an entry is
 * older than `ttlMs` it is still answered, and reloaded in the background (stale-while-revalidate).
 * Only the first caller per key waits; concurrent loads of a key share one call. A failed reload
 * keeps the last good value, so the next caller past the ttl tries again.
 */
export class SwrCache<V> {
  readonly #entries = new Map<string, { value: V; loadedAt: number }>();
  readonly #loading = new Map<string, Promise<V>>();

  constructor(
    readonly ttlMs: number,
    readonly maxEntries = 1000,
  ) {}

  /** `background` keeps a reload alive past the response (executionCtx.waitUntil). */
  get(
    key: string,
    load: () => Promise<V>,
    background: (p: Promise<unknown>) => void,
    now = Date.now(),
  ): Promise<V> {
    const hit = this.#entries.get(key);
    if (!hit) return this.#load(key, load);
    // An entry from the "future" (the clock stepped back) is as good as expired.
    const stale = now - hit.loadedAt >= this.ttlMs || hit.loadedAt > now;
    if (stale && !this.#loading.has(key)) background(this.#load(key, load).catch(() => undefined));
    return Promise.resolve(hit.value);
  }

  #load(key: string, load: () => Promise<V>): Promise<V> {
    const running = this.#loading.get(key);
    if (running) return running;
    const value: Promise<V> = load().then(
      (v) => {
        // A load overtaken by delete() answers its caller but is not remembered.
        if (this.#loading.get(key) === value) {
          if (!this.#entries.has(key) && this.#entries.size >= this.maxEntries) this.#entries.clear();
          this.#entries.set(key, { value: v, loadedAt: Date.now() });
          this.#loading.delete(key);
        }
        return v;
      },
      (err: unknown) => {
        if (this.#loading.get(key) === value) this.#loading.delete(key);
        throw err;
      },
    );
    this.#loading.set(key, value);
    return value;
  }

  /** Forgets the key, including a load under way: the next caller waits for a fresh one. */
  delete(key: string): void {
    this.#entries.delete(key);
    this.#loading.delete(key);
  }
}
