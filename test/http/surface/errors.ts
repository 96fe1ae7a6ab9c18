import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { invalidateCatalog } from "../../../src/storage/catalog";
import { call, expectError } from "../../helpers";

describe("error model", () => {
  it("unknown route → 404 JSON", async () => {
    const body = await expectError(await call("/api/v1/nope"), 404, "not_found");
    expect(body.detail).toContain("/api/v1/nope");
    await expectError(await call("/"), 404, "not_found");
  });

  it("a trailing slash is another path: 404 that names the route, not a 405 for the same method", async () => {
    const res = await call("/api/v1/currencies/");
    const body = await expectError(res, 404, "not_found");
    expect(body.detail).toContain("Did you mean /api/v1/currencies?");
    expect(res.headers.get("allow")).toBeNull();
    const del = await call("/api/v1/partner/rates/", { method: "DELETE" });
    expect(del.status).toBe(404);
  });

  it("wrong method → 405 with Allow", async () => {
    const res = await call("/api/v1/currencies", { method: "DELETE" });
    await expectError(res, 405, "method_not_allowed");
    expect(res.headers.get("allow")).toBe("GET, HEAD");
    const icon = await call("/api/v1/icons/btc.svg", { method: "POST" });
    await expectError(icon, 405, "method_not_allowed");
  });

  it("body over 64 KiB → 413", async () => {
    const big = JSON.stringify({ pad: "x".repeat(70 * 1024) });
    const res = await call("/api/v1/currencies", {
      method: "GET",
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(200);
    const tooBig = await call("/api/v1/nope", {
      method: "POST",
      body: big,
      headers: { "content-type": "application/json" },
    });
    await expectError(tooBig, 413, "payload_too_large");
  });

  it("echoes the client's request id on errors too", async () => {
    const res = await call("/api/v1/nope", { headers: { "X-Request-Id": "abc-123" } });
    expect(res.headers.get("x-request-id")).toBe("abc-123");
  });

  it("uncaught exception → 500 without internals", async () => {
    await env.DB.prepare("ALTER TABLE currencies RENAME TO currencies_gone").run();
    invalidateCatalog();
    try {
      const res = await call("/api/v1/currencies");
      const body = await expectError(res, 500, "internal_error");
      expect(body.detail).not.toMatch(/currencies|SQL|D1|stack|at /i);
      expect(JSON.stringify(body)).not.toContain("no such table");
    } finally {
      await env.DB.prepare("ALTER TABLE currencies_gone RENAME TO currencies").run();
      invalidateCatalog();
    }
  });
});
