import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { call, json } from "../helpers";

interface OpenApiDoc {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
}

describe("OpenAPI document", () => {
  it("is OpenAPI 3.1 and lists the routes with the error schema", async () => {
    const res = await call("/api/v1/openapi.json");
    expect(res.status).toBe(200);
    const doc = await json<OpenApiDoc>(res);
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(["/api/v1/currencies", "/api/v1/icons/{file}"]),
    );
    expect(doc.paths["/api/v1/currencies"]?.get?.responses).toHaveProperty("200");
    expect(doc.paths["/api/v1/currencies"]?.get?.responses).toHaveProperty("500");
    // 429 only where a rate limit applies: not on icons nor on the operator API.
    expect(doc.paths["/api/v1/currencies"]?.get?.responses).toHaveProperty("429");
    expect(doc.paths["/api/v1/partner/orders"]?.post?.responses).toHaveProperty("429");
    expect(doc.paths["/api/v1/icons/{file}"]?.get?.responses).not.toHaveProperty("429");
    expect(doc.paths["/admin/v1/partners"]?.get?.responses).not.toHaveProperty("429");
    expect(Object.keys(doc.components.schemas.Currency?.properties ?? {})).toContain("min_confirmations");
    expect(doc.components.schemas.Error?.properties).toHaveProperty("code");
  });

  it("documents every route the app serves (but the docs pages themselves and the bench baseline)", async () => {
    const doc = await json<OpenApiDoc>(await call("/api/v1/openapi.json"));
    const undocumented = new Set([
      "/api/v1/openapi.json",
      "/docs",
      "/docs/interactive",
      "/api/v1/_bench/baseline",
    ]);
    const served = createApp()
      .routes.filter((r) => r.method !== "ALL" && !undocumented.has(r.path))
      .map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:([A-Za-z_]+)/g, "{$1}")}`);
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m} ${path}`),
    );
    expect(served.length).toBeGreaterThan(20);
    expect([...new Set(served)].sort()).toEqual([...new Set(documented)].sort());
    for (const route of [
      "get /api/v1/partner/rates",
      "post /api/v1/partner/orders",
      "get /api/v1/partner/orders/{order_id}",
    ])
      expect(documented).toContain(route);
  });

  it("has a human docs page that works offline, rendered from the document", async () => {
    const res = await call("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    const html = await res.text();
    expect(html).toContain("/api/v1/openapi.json");
    expect(html).toContain("<code>POST /api/v1/partner/orders</code>");
    expect(html).toContain("<code>GET /api/v1/partner/orders/{order_id}</code>");
    expect(html).not.toMatch(/<script/);
    const interactive = await call("/docs/interactive");
    expect(await interactive.text()).toContain("@scalar/api-reference");
  });
});
