import { describe, expect, it } from "vitest";
import { CONFIG_RETRY_MS } from "../../src/domain/retry";
import {
  afterLookup,
  afterPlace,
  type LegState,
  LOOKUP_INTERVAL_MS,
  LOST_AFTER_LOOKUPS,
  LOST_WINDOW_MS,
  legAction,
  WAIT_ALERT_AFTER_MS,
  waitAlertAt,
} from "../../src/domain/venue-policy";
import { legClientOrderId } from "../../src/domain/venue-route";

const T = 1_000_000;
const waitAtDue = (since: number, alerts: number, now: number) => now >= waitAlertAt(since, alerts);

describe("venue leg policy", () => {
  it("a stored intent is placed; a leg that may be on the wire (evicted mid-request) is looked up first", () => {
    expect(legAction({ phase: "ready" }, T)).toEqual({ do: "place", notBefore: T });
    expect(legAction({ phase: "sending" }, T)).toEqual({ do: "lookup", notBefore: T });
    expect(legAction({ phase: "uncertain", notFound: 2, firstNotFoundAt: T }, T)).toEqual({
      do: "lookup",
      notBefore: T,
    });
    expect(legAction({ phase: "filled" }, T)).toEqual({ do: "none" });
    expect(legAction({ phase: "rejected", reason: "filter" }, T)).toEqual({ do: "none" });
  });

  it("ambiguous placement answers (timeout, 5xx, -1007, pending) lead to a lookup, never a re-place", () => {
    for (const outcome of [{ kind: "unknown" }, { kind: "pending" }] as const)
      expect(afterPlace(outcome, T)).toEqual({
        state: { phase: "uncertain", notFound: 0, firstNotFoundAt: null },
        next: { do: "lookup", notBefore: T + LOOKUP_INTERVAL_MS },
      });
  });

  it("a configuration error (our key refused) never ends a leg: a placement is placed again, a lookup asks again", () => {
    expect(afterPlace({ kind: "config" }, T)).toEqual({
      state: { phase: "ready" },
      next: { do: "place", notBefore: T + CONFIG_RETRY_MS },
    });
    const s: LegState = { phase: "uncertain", notFound: 1, firstNotFoundAt: T - 5 };
    expect(afterLookup(s, { kind: "config" }, T)).toEqual({
      state: s,
      next: { do: "lookup", notBefore: T + CONFIG_RETRY_MS },
    });
  });

  it("refusals before the engine (429/418, -1021) may be placed again; definite rejections end the leg", () => {
    expect(afterPlace({ kind: "rate_limited", retryAfterSeconds: 7 }, T).next).toEqual({
      do: "place",
      notBefore: T + 7000,
    });
    expect(afterPlace({ kind: "clock_skew" }, T).next).toEqual({ do: "place", notBefore: T });
    expect(afterPlace({ kind: "rejected", reason: "insufficient_balance" }, T)).toEqual({
      state: { phase: "rejected", reason: "insufficient_balance" },
      next: { do: "none" },
    });
  });

  it(`declares a leg lost only after ${LOST_AFTER_LOOKUPS} not-found lookups spanning ${LOST_WINDOW_MS} ms`, () => {
    let state: LegState = { phase: "sending" };
    let now = T;
    const actions: string[] = [];
    for (let i = 0; i < 20; i++) {
      const step = afterLookup(state, { kind: "not_found" }, now);
      state = step.state;
      if (step.next.do === "none") break;
      actions.push(step.next.do);
      if (step.next.do === "place") break;
      now = step.next.notBefore;
    }
    expect(actions.at(-1)).toBe("place");
    expect(actions.filter((a) => a === "lookup").length).toBeGreaterThanOrEqual(LOST_AFTER_LOOKUPS - 1);
    expect(now - T).toBeGreaterThanOrEqual(LOST_WINDOW_MS);
    // Many quick not-founds inside the window are not enough.
    let quick: LegState = { phase: "uncertain", notFound: 0, firstNotFoundAt: null };
    for (let i = 0; i < 10; i++) quick = afterLookup(quick, { kind: "not_found" }, T + i).state;
    expect(afterLookup(quick, { kind: "not_found" }, T + LOST_WINDOW_MS - 1).next.do).toBe("lookup");
  });

  it("a flaky lookup keeps the not-found count; a found order ends the leg", () => {
    const s: LegState = { phase: "uncertain", notFound: 2, firstNotFoundAt: T };
    expect(afterLookup(s, { kind: "unknown" }, T + 5).state).toMatchObject(s);
    expect(afterLookup(s, { kind: "rate_limited", retryAfterSeconds: 3 }, T + 5).next).toEqual({
      do: "lookup",
      notBefore: T + 3005,
    });
    expect(afterLookup(s, { kind: "filled" }, T + 5)).toEqual({
      state: { phase: "filled" },
      next: { do: "none" },
    });
  });

  it("lookups that cannot tell back off as the payout gateway's do (10 s doubling, at most 30 min); a not-found answer starts again", () => {
    let state: LegState = { phase: "sending" };
    const waits: number[] = [];
    for (let i = 0; i < 10; i++) {
      const step = afterLookup(state, { kind: i % 2 ? "pending" : "unknown" }, T);
      if (step.next.do !== "lookup") throw new Error(`expected a lookup, got ${step.next.do}`);
      waits.push((step.next.notBefore - T) / 1000);
      state = step.state;
    }
    expect(waits).toEqual([10, 20, 40, 80, 160, 320, 640, 1280, 1800, 1800]);
    const found = afterLookup(state, { kind: "not_found" }, T);
    expect(found.next).toEqual({ do: "lookup", notBefore: T + LOOKUP_INTERVAL_MS });
    expect(afterLookup(found.state, { kind: "unknown" }, T).next).toEqual({
      do: "lookup",
      notBefore: T + LOOKUP_INTERVAL_MS,
    });
    // Our credentials refused is retried on its own clock and leaves the backoff where it was.
    const refused = afterLookup(state, { kind: "config" }, T);
    expect(refused.next).toEqual({ do: "lookup", notBefore: T + CONFIG_RETRY_MS });
    expect(refused.state).toEqual(state);
  });

  it("a wait alerts at 15 min, then after gaps of 15, 30, 60 min …, at most a day apart", () => {
    const min = 60_000;
    expect(waitAtDue(T, 0, T + WAIT_ALERT_AFTER_MS - 1)).toBe(false);
    expect(waitAtDue(T, 0, T + 15 * min)).toBe(true);
    expect(waitAtDue(T, 1, T + 29 * min)).toBe(false);
    expect(waitAtDue(T, 1, T + 30 * min)).toBe(true);
    expect(waitAtDue(T, 2, T + 59 * min)).toBe(false);
    expect(waitAtDue(T, 2, T + 60 * min)).toBe(true);
    // Gaps of 15·2^n min stop growing at a day.
    let due = T + 15 * min;
    for (let n = 0; n < 20; n++) due += Math.min(15 * min * 2 ** n, 24 * 60 * min);
    expect(waitAtDue(T, 20, due - 1)).toBe(false);
    expect(waitAtDue(T, 20, due)).toBe(true);
  });

  it("client order ids: ≤ 36 chars, one per order leg, stable", () => {
    const id = legClientOrderId("0b8e7c52-3f1d-4a8e-9c4b-2d6f0e1a9b7c", 1);
    expect(id).toBe("0b8e7c523f1d4a8e9c4b2d6f0e1a9b7c-2");
    expect(id.length).toBeLessThanOrEqual(36);
    expect(id).toMatch(/^[a-zA-Z0-9-_]{1,36}$/);
  });
});
