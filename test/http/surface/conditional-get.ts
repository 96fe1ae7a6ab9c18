import { describe, expect, it } from "vitest";
import { admin, call } from "../../helpers";

// docs/auth-and-limits.md, "Caching": the catalog and the partner document carry an ETag, answer a
// matching If-None-Match with 304 and no body, and say that their body may be compressed.
describe("conditional GETs", () => {
  for (const [path, cacheControl] of [
    ["/api/v1/currencies", "public, max-age=60, stale-while-revalidate=300"],
    ["/api/v1/openapi.json", "public, max-age=300"],
  ] as const) {
    it(`${path}: ETag, Cache-Control, Vary; 304 for the same tag (also weak, also in a list), 200 for another`, async () => {
      const first = await call(path);
      expect(first.status).toBe(200);
      const etag = first.headers.get("etag") ?? "";
      expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
      expect(first.headers.get("cache-control")).toBe(cacheControl);
      expect(first.headers.get("vary")).toBe("Accept-Encoding");
      const body = await first.text();

      // The second answer (from the isolate's copy for the document) is the same bytes and tag.
      const again = await call(path);
      expect(again.headers.get("etag")).toBe(etag);
      expect(await again.text()).toBe(body);

      for (const sent of [etag, `W/${etag}`, `"nope", ${etag}`]) {
        const res = await call(path, { headers: { "If-None-Match": sent } });
        expect(res.status, sent).toBe(304);
        expect(await res.text()).toBe("");
        expect(res.headers.get("etag")).toBe(etag);
        expect(res.headers.get("cache-control")).toBe(cacheControl);
        expect(res.headers.get("access-control-allow-origin")).toBe("*");
      }
      const other = await call(path, { headers: { "If-None-Match": '"0000000000000000"' } });
      expect(other.status).toBe(200);
      expect(await other.text()).toBe(body);
    });
  }

  it("a catalog edit changes the catalog's ETag, so a client's old tag gets the new body", async () => {
    const before = await call("/api/v1/currencies");
    const etag = before.headers.get("etag") ?? "";
    const [first] = (await before.json()) as { id: string; name: string }[];
    const edit = await admin(`/currencies/${first?.id}`, { method: "PATCH", json: { name: "Renamed coin" } });
    expect(edit.status).toBe(200);
    const after = await call("/api/v1/currencies", { headers: { "If-None-Match": etag } });
    expect(after.status).toBe(200);
    expect(after.headers.get("etag")).not.toBe(etag);
    expect(await after.text()).toContain("Renamed coin");
  });
});
