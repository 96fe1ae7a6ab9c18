import { describe, expect, it } from "vitest";
import { NO_RESTRICTIONS, restrictsAny } from "../../src/domain/region-restrictions";

describe("restrictsAny", () => {
  it("is false only when no country is refused anything", () => {
    expect(restrictsAny(NO_RESTRICTIONS)).toBe(false);
    expect(restrictsAny({ countries: [], coins: {} })).toBe(false);
    expect(restrictsAny({ countries: ["GB"], coins: {} })).toBe(true);
    expect(restrictsAny({ countries: [], coins: { DOGE: ["GB"] } })).toBe(true);
  });
});
