import { describe, expect, it } from "vitest";
import { LogBatch } from "../../src/domain/log-batch";

const entries = (m: Map<string, number[]>) => Object.fromEntries(m);

describe("LogBatch: when an isolate writes its request-log entries", () => {
  it("arms one timer per batch; later entries ride with it and the timer takes them all, by log", () => {
    const b = new LogBatch<number>(100, 1_000);
    expect(b.add("p1:live", 1, 0)).toBe("arm");
    expect(b.add("p1:live", 2, 10)).toBe("wait");
    expect(b.add("p2:test", 3, 999)).toBe("wait");
    expect(entries(b.timerFired())).toEqual({ "p1:live": [1, 2], "p2:test": [3] });
    expect(b.size).toBe(0);
    // The next batch arms its own timer.
    expect(b.add("p1:live", 4, 1_005)).toBe("arm");
  });

  it("writes at once when the batch fills, and the armed timer still covers what comes after", () => {
    const b = new LogBatch<number>(3, 1_000);
    expect(b.add("a", 1, 0)).toBe("arm");
    expect(b.add("a", 2, 1)).toBe("wait");
    expect(b.add("a", 3, 2)).toBe("write");
    expect(entries(b.take())).toEqual({ a: [1, 2, 3] });
    expect(b.add("a", 4, 3)).toBe("wait");
    expect(entries(b.timerFired())).toEqual({ a: [4] });
  });

  it("writes when the clock is behind the oldest entry: its age is unknown, nothing waits for the clock", () => {
    const b = new LogBatch<number>(100, 1_000);
    expect(b.add("a", 1, 50_000)).toBe("arm");
    expect(b.add("a", 2, 10)).toBe("write");
    expect(entries(b.take())).toEqual({ a: [1, 2] });
  });

  it("writes on the next entry once the oldest has waited the interval (a timer that never ran)", () => {
    const b = new LogBatch<number>(100, 1_000);
    expect(b.add("a", 1, 0)).toBe("arm");
    expect(b.add("a", 2, 999)).toBe("wait");
    expect(b.add("a", 3, 1_000)).toBe("write");
    expect(entries(b.take())).toEqual({ a: [1, 2, 3] });
    // Two intervals on, the lost timer is given up and a new batch arms a new one.
    expect(b.add("a", 4, 1_500)).toBe("wait");
    expect(b.add("a", 5, 2_000)).toBe("arm");
  });
});
