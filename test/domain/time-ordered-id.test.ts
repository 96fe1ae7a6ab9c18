import { describe, expect, it } from "vitest";
import { timeOrderedId } from "../../src/domain/time-ordered-id";

const bytes = (fill: number) => new Uint8Array(10).fill(fill);

describe("timeOrderedId: request ids that sort by time", () => {
  it("is a version 7 UUID whose first 48 bits are the time in ms", () => {
    const id = timeOrderedId(0x0193_a1b2_c3d4, bytes(0xff));
    expect(id).toBe("0193a1b2-c3d4-7fff-bfff-ffffffffffff");
    expect(timeOrderedId(0, bytes(0))).toBe("00000000-0000-7000-8000-000000000000");
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("sorts ids of later milliseconds after earlier ones, whatever their random bits", () => {
    const now = Date.UTC(2026, 10, 26, 9, 50);
    const ids = [0, 1, 2, 1_000, 86_400_000].map((dt, i) => timeOrderedId(now + dt, bytes(i % 2 ? 0 : 0xff)));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("keeps the random bits apart within one millisecond", () => {
    const a = timeOrderedId(1, Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]));
    const b = timeOrderedId(1, Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 11]));
    expect(a).toBe("00000000-0001-7102-8304-05060708090a");
    expect(a).not.toBe(b);
  });
});
