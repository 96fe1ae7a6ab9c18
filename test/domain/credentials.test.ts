import { describe, expect, it } from "vitest";
import { sameSecret } from "../../src/domain/credentials";

describe("sameSecret", () => {
  it("equal strings only: any differing character, anywhere, or another length is unequal", () => {
    const s = "Zx9_-abcDEF0123456789abcdefghijklmnopqrstu";
    expect(sameSecret(s, `${s}`)).toBe(true);
    expect(sameSecret("", "")).toBe(true);
    for (const i of [0, 20, s.length - 1]) {
      const other = `${s.slice(0, i)}${s[i] === "a" ? "b" : "a"}${s.slice(i + 1)}`;
      expect(sameSecret(s, other)).toBe(false);
    }
    expect(sameSecret(s, s.slice(0, -1))).toBe(false);
    expect(sameSecret(s.slice(0, -1), s)).toBe(false);
  });
});
