import { describe, expect, it } from "vitest";
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
    expect(Object.keys(doc.components.schemas.Currency?.properties ?? {})).toContain("min_confirmations");
    expect(doc.components.schemas.Error?.properties).toHaveProperty("code");
  });

  it("has a human docs page", async () => {
    const res = await call("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    expect(await res.text()).toContain("/api/v1/openapi.json");
  });
});
