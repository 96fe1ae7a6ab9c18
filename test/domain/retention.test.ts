/**
 * Order retention (src/domain/retention.ts): when a terminal order may compact, and the money
 * still owed that keeps it whole.
 */
import { describe, expect, it } from "vitest";
import { compactionBlocker, compactionDueAt, type RetentionFacts } from "../../src/domain/retention";

const DAY = 86_400_000;
const T = Date.parse("2026-01-01T00:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();
const config = { ORDER_RETENTION_DAYS: 90, AFTER_WATCH_HORIZON_DAYS: 30 };

describe("compactionDueAt", () => {
  it("the retention period after the order ended, or the slow sweep's horizon if later; never while it runs", () => {
    const ended = { status: "completed" as const, updatedAt: iso(T), lateWatchEndsAt: iso(T + DAY) };
    expect(compactionDueAt(ended, config)).toBe(T + 90 * DAY);
    expect(compactionDueAt(ended, { ...config, AFTER_WATCH_HORIZON_DAYS: 100 })).toBe(T + 101 * DAY);
    for (const status of ["refunded", "failed", "expired"] as const)
      expect(compactionDueAt({ ...ended, status }, config)).toBe(T + 90 * DAY);
    for (const status of ["waiting_deposit", "confirming", "exchanging", "sending", "refunding"] as const)
      expect(compactionDueAt({ ...ended, status }, config)).toBeNull();
  });
});

describe("compactionBlocker", () => {
  const settled: RetentionFacts = {
    inReview: false,
    unfinishedSends: 0,
    openAlerts: 0,
    operatorHold: false,
    unsent: false,
  };

  it("an order that owes nothing may compact; each thing still owed or unsent keeps it", () => {
    expect(compactionBlocker(settled)).toBeNull();
    expect(compactionBlocker({ ...settled, inReview: true })).toMatch(/decision/);
    expect(compactionBlocker({ ...settled, unfinishedSends: 1 })).toMatch(/send/);
    expect(compactionBlocker({ ...settled, openAlerts: 1 })).toMatch(/alert/);
    expect(compactionBlocker({ ...settled, operatorHold: true })).toMatch(/holds/);
    expect(compactionBlocker({ ...settled, unsent: true })).toMatch(/not sent/);
  });
});
