import { describe, expect, it } from "vitest";
import { DomainError } from "../../src/domain/errors";
import {
  normalizeOrigin,
  normalizeOrigins,
  offersCoin,
  parentOriginOf,
  WIDGET_ID_RE,
  widgetIdFrom,
} from "../../src/domain/widget";

describe("allowed origins", () => {
  it("keep scheme, host and a non-default port, lower-cased, as the browser reports them", () => {
    expect(normalizeOrigin("https://Shop.Example/")).toBe("https://shop.example");
    expect(normalizeOrigin("https://shop.example:443")).toBe("https://shop.example");
    expect(normalizeOrigin("https://shop.example:8443")).toBe("https://shop.example:8443");
    expect(normalizeOrigin("http://localhost:3000")).toBe("http://localhost:3000");
    expect(normalizeOrigin("http://127.0.0.1:9145")).toBe("http://127.0.0.1:9145");
    expect(normalizeOrigins(["https://a.example", "https://A.example/"])).toEqual(["https://a.example"]);
  });

  it("refuse paths, queries, wildcards, credentials, plain http elsewhere and other schemes", () => {
    for (const bad of [
      "https://shop.example/checkout",
      "https://shop.example/?x=1",
      "https://*.example.com",
      "https://user:pw@shop.example",
      "http://shop.example",
      "ftp://shop.example",
      "javascript:alert(1)",
      "shop.example",
      "'self'",
    ])
      expect(() => normalizeOrigin(bad), bad).toThrow(DomainError);
    expect(() => normalizeOrigins(Array.from({ length: 21 }, (_, i) => `https://s${i}.example`))).toThrow(
      /At most 20/,
    );
  });

  it("the height goes to the claimed parent only when it is allowed", () => {
    const w = { allowed_origins: ["https://shop.example"] };
    expect(parentOriginOf(w, "https://shop.example")).toBe("https://shop.example");
    expect(parentOriginOf(w, "https://SHOP.example/")).toBe("https://shop.example");
    expect(parentOriginOf(w, "https://evil.example")).toBeNull();
    expect(parentOriginOf(w, "https://shop.example.evil.example")).toBeNull();
    expect(parentOriginOf(w, "not a url")).toBeNull();
    expect(parentOriginOf(w, undefined)).toBeNull();
  });
});

describe("widget ids and coins", () => {
  it("a widget id is wid_ and 20 base62 characters", () => {
    const id = widgetIdFrom(crypto.getRandomValues(new Uint8Array(20)));
    expect(id).toMatch(WIDGET_ID_RE);
    expect(widgetIdFrom(new Uint8Array(20).fill(61))).toBe(`wid_${"z".repeat(20)}`);
  });

  it("no allowlist offers every coin; an allowlist only its tickers, any case", () => {
    expect(offersCoin({ coins: null }, "XMR")).toBe(true);
    expect(offersCoin({ coins: ["BTC", "USDT"] }, "usdt")).toBe(true);
    expect(offersCoin({ coins: ["BTC", "USDT"] }, "ETH")).toBe(false);
  });
});
