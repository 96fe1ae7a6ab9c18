import { describe, expect, it } from "vitest";
import { SwrCache } from "../../src/lib/swr-cache";

/** A loader answering 1, 2, 3 … and counting its calls; `fail` makes the next call reject. */
function counter() {
  const state = { calls: 0, fail: false };
  const load = () => {
    state.calls++;
    return state.fail ? Promise.reject(new Error("down")) : Promise.resolve(state.calls);
  };
  return { state, load };
}

describe("SwrCache", () => {
  it("only the first caller waits; concurrent first callers share one load", async () => {
    const cache = new SwrCache<number>(1_000);
    const { state, load } = counter();
    const background: Promise<unknown>[] = [];
    const [a, b] = await Promise.all([
      cache.get("k", load, (p) => background.push(p)),
      cache.get("k", load, (p) => background.push(p)),
    ]);
    expect([a, b, state.calls, background.length]).toEqual([1, 1, 1, 0]);
  });

  it("past the ttl answers the old value at once and reloads once in the background", async () => {
    const cache = new SwrCache<number>(1_000);
    const { state, load } = counter();
    await cache.get("k", load, () => undefined);
    const background: Promise<unknown>[] = [];
    const now = Date.now() + 1_000;
    const stale = await Promise.all([
      cache.get("k", load, (p) => background.push(p), now),
      cache.get("k", load, (p) => background.push(p), now),
    ]);
    expect(stale).toEqual([1, 1]);
    expect(background).toHaveLength(1);
    await Promise.all(background);
    expect(await cache.get("k", load, () => undefined, Date.now())).toBe(2);
    expect(state.calls).toBe(2);
  });

  it("a failed reload keeps the last good value; a failed first load is not cached", async () => {
    const cache = new SwrCache<number>(1_000);
    const { state, load } = counter();
    state.fail = true;
    await expect(cache.get("k", load, () => undefined)).rejects.toThrow("down");
    state.fail = false;
    expect(await cache.get("k", load, () => undefined)).toBe(2);
    state.fail = true;
    const background: Promise<unknown>[] = [];
    expect(await cache.get("k", load, (p) => background.push(p), Date.now() + 5_000)).toBe(2);
    await Promise.all(background);
    expect(await cache.get("k", load, () => undefined)).toBe(2);
  });

  it("delete forgets the value and a load under way: the next caller gets a fresh one", async () => {
    const cache = new SwrCache<number>(1_000);
    const { load } = counter();
    const first = cache.get("k", load, () => undefined);
    cache.delete("k");
    expect(await first).toBe(1);
    expect(await cache.get("k", load, () => undefined)).toBe(2);
  });
});
