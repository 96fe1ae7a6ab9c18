import { describe, expect, it } from "vitest";
import { iconUrl } from "../../../src/domain/icons";
import { call, expectError, json } from "../../helpers";

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

  it("a stale or missing v is not cached as immutable; If-None-Match gets 304", async () => {
    const [btc] = await json<{ icon_url: string }[]>(await call("/api/v1/currencies"));
    const url = new URL(btc?.icon_url ?? "", "http://x");
    const stale = await call(`${url.pathname}?v=000000000000`);
    expect(stale.status).toBe(200);
    expect(stale.headers.get("cache-control")).toBe("public, max-age=300");
    expect((await call(url.pathname)).headers.get("cache-control")).toBe("public, max-age=300");
    const fresh = await call(`${url.pathname}${url.search}`);
    const etag = fresh.headers.get("etag") ?? "";
    expect(etag).toMatch(/^"[0-9a-f]+"$/);
    const again = await call(`${url.pathname}${url.search}`, { headers: { "If-None-Match": etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
  });

  it("falls back to the generic icon for a coin without one", () => {
    const set = { "generic.svg": "000000000000" };
    expect(iconUrl("NEWCOIN", set)).toBe("/api/v1/icons/generic.svg?v=000000000000");
  });

  it("answers an unknown file with 404 JSON", async () => {
    await expectError(await call("/api/v1/icons/nope.svg"), 404, "not_found");
    await expectError(await call("/api/v1/icons/constructor"), 404, "not_found");
    // A long name is not echoed whole: `detail` stays within the document's 2,000 characters.
    const long = await expectError(await call(`/api/v1/icons/${"a".repeat(3000)}.svg`), 404, "not_found");
    expect(long.detail.length).toBeLessThanOrEqual(2000);
    expect(long.detail).toMatch(/^No icon named a{1900,}…$/);
  });
});
