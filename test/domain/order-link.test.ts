import { describe, expect, it } from "vitest";
import { orderIdOf } from "../../src/domain/order-id";
import { newTrackToken, opensOrder, orderLinks, parseTrackRef, trackRef } from "../../src/domain/order-link";

const ID = orderIdOf("7K3M9QX2TB");

describe("an order's keyless links", () => {
  it("a token is 128 random bits in hex, a new one each time", () => {
    const token = newTrackToken();
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    expect(newTrackToken()).not.toBe(token);
    expect(newTrackToken((n) => new Uint8Array(n).fill(0xab))).toBe("ab".repeat(16));
  });

  it("links carry the UUID and the token on the public origin; an order without a token, its UUID", () => {
    const token = "0123456789abcdef0123456789abcdef";
    expect(orderLinks("https://api.example.com/", { id: ID, trackToken: token })).toEqual({
      tracking_url: `https://api.example.com/track/${ID}.${token}`,
      status_url: `https://api.example.com/api/v1/orders/${ID}.${token}/status`,
    });
    expect(trackRef({ id: ID })).toBe(ID);
    expect(trackRef({ id: ID, trackToken: null })).toBe(ID);
  });

  it("reads a link's segment in any case; anything else is no order", () => {
    const token = "0123456789abcdef0123456789abcdef";
    expect(parseTrackRef(`${ID}.${token}`.toUpperCase())).toEqual({ id: ID, token });
    expect(parseTrackRef(ID)).toEqual({ id: ID, token: null });
    for (const bad of [
      "7K3M9QX2TB",
      `${ID}.`,
      `${ID}.${token}0`,
      `${ID}.${token.slice(1)}`,
      `${ID}.${token}.x`,
      "",
    ])
      expect(parseTrackRef(bad), bad).toBeNull();
  });

  it("only the order's own token opens it; no token only an order that has none", () => {
    const token = newTrackToken();
    expect(opensOrder(token, token)).toBe(true);
    expect(opensOrder(token, null)).toBe(false);
    expect(opensOrder(token, newTrackToken())).toBe(false);
    expect(opensOrder(token, token.slice(0, 31))).toBe(false);
    expect(opensOrder(undefined, null)).toBe(true);
    expect(opensOrder(undefined, token)).toBe(false);
  });
});
