import { describe, expect, it } from "vitest";
import { call } from "../../helpers";

async function sha256Hex(bytes: ArrayBuffer): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

// The files live in the Workers Static Assets directory (public/), not in the Worker's script; the
// Worker still serves them under their old URLs with its own headers.
describe("static assets", () => {
  it("serves every script and stylesheet the sign-in page names, content-addressed and immutable", async () => {
    const html = await (await call("/cabinet/sign-in")).text();
    const urls = [...html.matchAll(/(?:src|href)="(\/cabinet\/assets\/[^"]+)"/g)].map((m) => m[1] ?? "");
    expect(urls.some((u) => u.endsWith(".js"))).toBe(true);
    expect(urls.some((u) => u.endsWith(".css"))).toBe(true);
    for (const url of urls) {
      const res = await call(url);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe(
        url.endsWith(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8",
      );
      expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      const hash = url.match(/-([0-9a-f]{12})\.(?:js|css)$/)?.[1];
      expect((await sha256Hex(await res.arrayBuffer())).startsWith(hash ?? "missing")).toBe(true);
    }
  });

  it("the docs renderer's body matches the hash in its URL", async () => {
    const html = await (await call("/docs")).text();
    const src = html.match(/<script src="([^"]+)"/)?.[1] ?? "";
    const res = await call(src);
    expect(res.status).toBe(200);
    const hash = src.match(/redoc-([0-9a-f]{12})\.js$/)?.[1];
    expect((await sha256Hex(await res.arrayBuffer())).startsWith(hash ?? "missing")).toBe(true);
  });

  it("a file that is not there is a 404, whatever else public/ holds", async () => {
    expect((await call("/cabinet/assets/cabinet-000000000000.js")).status).toBe(404);
    expect((await call("/docs/redoc-000000000000.js")).status).toBe(404);
    // An icon's body exists in public/, but not under the cabinet's prefix.
    expect((await call("/cabinet/assets/btc.svg")).status).toBe(404);
    expect((await call("/cabinet/assets/..%2Fdocs")).status).toBe(404);
  });
});
