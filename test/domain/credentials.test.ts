import { describe, expect, it } from "vitest";
import { sameSecret } from "../../src/domain/credentials";

describe("sameSecret", () => {
  const secret = "Zq3xT0b_8kVw-1mNcY7pLr2sD4fGh6jK9uEaWoIiQeR";

  it("is true for the same text only", () => {
    expect(sameSecret(secret, `${secret}`)).toBe(true);
    expect(sameSecret("", "")).toBe(true);
  });

  it("is false wherever one character differs, and for other lengths", () => {
    for (const i of [0, 1, 21, secret.length - 1]) {
      const other = `${secret.slice(0, i)}${secret[i] === "A" ? "B" : "A"}${secret.slice(i + 1)}`;
      expect(sameSecret(secret, other)).toBe(false);
      expect(sameSecret(other, secret)).toBe(false);
    }
    expect(sameSecret(secret, secret.slice(1))).toBe(false);
    expect(sameSecret(secret, `${secret}A`)).toBe(false);
    expect(sameSecret(secret, "")).toBe(false);
  });
});
