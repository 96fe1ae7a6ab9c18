import { describe, expect, it } from "vitest";
import type { ObjectGrant } from "../../../src/domain/bucket-view";
import { grantSlots, HitLog, type SlotRequest } from "../../../src/domain/rate-limit";
import { IsolateRateLimiter, type SlotSource } from "../../../src/services/rate-limiting";

/** A bucket object whose answers wait for `open()` while `slow` is set. */
class SlowObject implements SlotSource {
  hits = new HitLog();
  epoch = "first";
  seq = 0;
  calls: SlotRequest[] = [];
  slow = false;
  #gate: { promise: Promise<void>; open: () => void } | null = null;

  constructor(readonly now: () => number) {}

  async acquire(limit: number, request: SlotRequest): Promise<ObjectGrant> {
    this.calls.push(request);
    if (this.slow) {
      if (!this.#gate) {
        let open = () => {};
        const promise = new Promise<void>((r) => {
          open = r;
        });
        this.#gate = { promise, open };
      }
      await this.#gate.promise;
    }
    return { ...grantSlots(this.hits, limit, this.now(), request), epoch: this.epoch, seq: ++this.seq };
  }

  open(): void {
    this.slow = false;
    this.#gate?.open();
    this.#gate = null;
  }

  /** What an eviction does: the in-memory log and the sequence start over. */
  evict(): void {
    this.hits = new HitLog();
    this.epoch = "second";
    this.seq = 0;
  }
}

function setup(limit: number) {
  let t = 1_000;
  const clock = () => t;
  const object = new SlowObject(clock);
  const limiter = new IsolateRateLimiter(clock);
  const background: Promise<unknown>[] = [];
  const hit = () => {
    t += 5;
    return limiter.hit(
      "partner:p",
      limit,
      () => object,
      (p) => background.push(p),
    );
  };
  return { object, hit, background };
}

/** Whether `p` settles within a few turns of the event loop. */
async function settles(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => {
    done = true;
  });
  for (let i = 0; i < 20; i++) await Promise.resolve();
  return done;
}

describe("IsolateRateLimiter", () => {
  it("under the limit, requests do not wait for a slow object: they spend lent slots while one refill waits", async () => {
    const { object, hit, background } = setup(600);
    expect(await hit()).toMatchObject({ allowed: true, remaining: 599 }); // asked: 1 + 50 lent
    object.slow = true;
    for (let i = 2; i <= 30; i++) {
      const p = hit();
      expect(await settles(p), `request ${i}`).toBe(true);
      expect(await p).toMatchObject({ allowed: true, remaining: 600 - i });
    }
    // One refill went out when the lease was half spent, and only one while it hangs.
    expect(object.calls.filter((c) => !c.immediate)).toHaveLength(1);
    expect(background).toHaveLength(1);
    object.open();
    await Promise.all(background);
    expect(object.calls).toHaveLength(2);
  });

  it("with no lent slot left, a request waits for the object (and for a slow one)", async () => {
    const { object, hit } = setup(5); // near the limit from the start: the object lends nothing
    expect(await hit()).toMatchObject({ allowed: true, remaining: 4 });
    object.slow = true;
    const p = hit();
    expect(await settles(p)).toBe(false);
    object.open();
    expect(await p).toMatchObject({ allowed: true, remaining: 3 });
    expect(object.calls.every((c) => c.immediate && c.release?.length === 0)).toBe(true);
  });

  it("exact at the boundary: the 11th of 10 is refused with the object's wait", async () => {
    const { hit } = setup(10);
    for (let i = 1; i <= 10; i++) expect((await hit()).remaining).toBe(10 - i);
    expect(await hit()).toMatchObject({ allowed: false, remaining: 0, resetSeconds: 60 });
  });

  it("after the object is evicted, requests go on and the isolate takes the new object's count", async () => {
    const { object, hit, background } = setup(600);
    for (let i = 0; i < 60; i++) await hit();
    await Promise.all(background);
    const before = (await hit()).remaining;
    expect(before).toBe(539);
    object.evict();
    const asked = object.calls.length;
    let since = 0;
    while (object.calls.length === asked) {
      expect((await hit()).allowed).toBe(true);
      since++;
      await Promise.all(background);
    }
    const after = await hit();
    since++;
    // The new object relearns every slot spent from a reported lease; what only the evicted
    // object knew (slots it recorded for waiting requests, leases not yet reported) is forgotten,
    // so the isolate now shows more room than the truth, never less.
    expect(after.allowed).toBe(true);
    expect(after.remaining).toBeGreaterThan(before - since);
    expect(after.remaining).toBeLessThanOrEqual(600);
    expect(object.seq).toBeGreaterThan(0);
  });

  it("a failing object fails the request that waits for it, not the ones holding lent slots", async () => {
    const { object, hit } = setup(600);
    await hit();
    const failing: SlotSource = {
      acquire: () => Promise.reject(new Error("object overloaded")),
    };
    const limiter = new IsolateRateLimiter(() => 1_000);
    await expect(
      limiter.hit(
        "b",
        600,
        () => failing,
        () => {},
      ),
    ).rejects.toThrow("object overloaded");
    expect((await hit()).allowed).toBe(true);
    expect(object.calls).toHaveLength(1);
  });
});
