import { describe, expect, it } from "vitest";
import { iconUrl } from "../../src/domain/icons";
import { call, expectError, json } from "../helpers";

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

describe("icons", () => {
  it("serves every catalog icon as immutable SVG whose v is the hash of the served content", async () => {
    const list = await json<{ icon_url: string }[]>(await call("/api/v1/currencies"));
    for (const { icon_url } of list) {
      const res = await call(icon_url);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/svg+xml");
      expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      const body = await res.text();
      expect(body).toContain("<svg");
      const v = new URL(icon_url, "http://x").searchParams.get("v");
      expect((await sha256Hex(body)).startsWith(v ?? "missing")).toBe(true);
    }
  });

  it("changes the v parameter when the file changes", () => {
    const before = iconUrl("BTC", { "btc.svg": { svg: "<svg>a</svg>", hash: "aaaaaaaaaaaa" } });
    const after = iconUrl("BTC", { "btc.svg": { svg: "<svg>b</svg>", hash: "bbbbbbbbbbbb" } });
    expect(before).toBe("/api/v1/icons/btc.svg?v=aaaaaaaaaaaa");
    expect(after).not.toBe(before);
  });

  it("falls back to the generic icon for a coin without one", () => {
    const set = { "generic.svg": { svg: "<svg/>", hash: "000000000000" } };
    expect(iconUrl("NEWCOIN", set)).toBe("/api/v1/icons/generic.svg?v=000000000000");
  });

  it("answers an unknown file with 404 JSON", async () => {
    await expectError(await call("/api/v1/icons/nope.svg"), 404, "not_found");
    await expectError(await call("/api/v1/icons/constructor"), 404, "not_found");
  });
});
