import { describe, expect, it } from "vitest";
import { relativeTime } from "../../src/lib/relative-time";

describe("relativeTime", () => {
  const now = Date.parse("2026-11-26T04:00:00Z");
  it("says past and future spans in the largest whole unit", () => {
    expect(relativeTime(now - 2_000, now)).toBe("just now");
    expect(relativeTime(now - 12_000, now)).toBe("12 s ago");
    expect(relativeTime(now - 5 * 60_000 - 59_000, now)).toBe("5 min ago");
    expect(relativeTime(now - 3 * 3_600_000, now)).toBe("3 h ago");
    expect(relativeTime(now - 86_400_000, now)).toBe("1 day ago");
    expect(relativeTime(now - 9 * 86_400_000, now)).toBe("9 days ago");
    expect(relativeTime(now + 90_000, now)).toBe("in 1 min");
    expect(relativeTime(now + 2 * 86_400_000, now)).toBe("in 2 days");
  });
});
