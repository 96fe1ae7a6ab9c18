import { describe, expect, it } from "vitest";
import { aheadAt, aheadLabel } from "../../src/domain/test-clock";

describe("a test order's clock", () => {
  const jumps = [
    { fromSeq: 3, aheadMs: 1_800_001 },
    { fromSeq: 5, aheadMs: 2_700_002 },
  ];

  it("an event's lead is the last jump made before it was logged", () => {
    expect([1, 2, 3, 4, 5, 6].map((seq) => aheadAt(seq, jumps))).toEqual([
      0, 0, 1_800_001, 1_800_001, 2_700_002, 2_700_002,
    ]);
    expect(aheadAt(9, [])).toBe(0);
  });

  it("says the lead in the largest units that matter", () => {
    expect(aheadLabel(12_400)).toBe("+12 s");
    expect(aheadLabel(15 * 60_000 + 900)).toBe("+15 min");
    expect(aheadLabel(90 * 60_000)).toBe("+1 h 30 min");
    expect(aheadLabel(2 * 3_600_000)).toBe("+2 h");
    expect(aheadLabel((2 * 24 + 3) * 3_600_000)).toBe("+2 d 3 h");
    expect(aheadLabel(24 * 3_600_000)).toBe("+1 d");
  });
});
