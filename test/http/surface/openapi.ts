import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/app";
import { admin, call, expectError, json } from "../../helpers";

interface Operation {
  operationId?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; schema?: { pattern?: string } }[];
  responses: Record<string, { headers?: Record<string, unknown> }>;
}
interface OpenApiDoc {
  openapi: string;
  tags?: { name: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { properties?: Record<string, Record<string, unknown>> }> };
}

const operations = (doc: OpenApiDoc) =>
  Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ key: `${method} ${path}`, op })),
  );

const partnerDoc = async () => json<OpenApiDoc>(await call("/api/v1/openapi.json"));
const adminDoc = async () => json<OpenApiDoc>(await admin("/openapi.json"));

describe("OpenAPI documents", () => {
  it("the partner document is OpenAPI 3.1 with partner routes only; the operator's is behind the token", async () => {
    const doc = await partnerDoc();
    expect(doc.openapi).toBe("3.1.0");
    const paths = Object.keys(doc.paths);
    expect(paths).toEqual(
      expect.arrayContaining([
        "/api/v1/currencies",
        "/api/v1/partner/rates",
        "/api/v1/partner/orders",
        "/api/v1/partner/orders/{order_id}",
      ]),
    );
    expect(paths.filter((p) => p.startsWith("/admin"))).toEqual([]);
    expect(Object.keys(doc.components.schemas)).not.toContain("Partner");

    expect((await call("/admin/v1/openapi.json")).status).toBe(401);
    const ops = await adminDoc();
    expect(Object.keys(ops.paths).every((p) => p.startsWith("/admin/v1/"))).toBe(true);
    expect(Object.keys(ops.paths)).toContain("/admin/v1/partners");
    expect(Object.keys(ops.paths)).toContain("/admin/v1/alerts");
  });

  it("documents every route the app serves, each with an operationId and a declared tag", async () => {
    const [partner, operator] = [await partnerDoc(), await adminDoc()];
    const undocumented = new Set([
      "/api/v1/openapi.json",
      "/admin/v1/openapi.json",
      "/api/v1/_bench/baseline",
      "/api/v1/_bench/limited",
      "/api/v1/_bench/new-object",
      "/api/v1/_bench/object/:name",
      "/api/v1/_bench/keyed-object/:name",
    ]);
    // The partner cabinet's HTML pages are not API routes (docs/cabinet.md), nor are the end
    // user's pages and their assets (docs/widget.md), nor the /status and /compliance pages (the
    // status JSON is documented; /compliance is the screening policy in words, docs/lifecycle.md).
    // /ledger/v2 is Ledger's API, documented by Ledger's own document (docs/ledger.md).
    const served = createApp()
      .routes.filter(
        (r) =>
          r.method !== "ALL" &&
          !undocumented.has(r.path) &&
          !r.path.startsWith("/docs") &&
          !r.path.startsWith("/cabinet") &&
          !r.path.startsWith("/ledger/v2/") &&
          !/^\/(track|swap|widget|status|compliance)\b/.test(r.path),
      )
      .map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:([A-Za-z_]+)/g, "{$1}")}`);
    const all = [...operations(partner), ...operations(operator)];
    expect([...new Set(served)].sort()).toEqual(all.map((o) => o.key).sort());
    const ids = all.map((o) => o.op.operationId);
    expect(ids.filter((id) => !id || !/^[a-z][A-Za-z]+$/.test(id))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    for (const o of operations(operator)) expect(o.op.operationId).toMatch(/^admin[A-Z]/);
    for (const [doc, list] of [
      [partner, operations(partner)],
      [operator, operations(operator)],
    ] as const) {
      const declared = new Set(doc.tags?.map((t) => t.name));
      for (const o of list)
        expect(
          o.op.tags?.every((t) => declared.has(t)),
          o.key,
        ).toBe(true);
    }
  });

  it("declares security on every partner route (explicitly none on public ones) and the X-Signature header", async () => {
    const doc = await partnerDoc();
    expect(doc.paths["/api/v1/currencies"]?.get?.security).toEqual([]);
    expect(doc.paths["/api/v1/icons/{file}"]?.get?.security).toEqual([]);
    expect(doc.paths["/api/v1/partner/rates"]?.get?.security).toContainEqual({});
    const post = doc.paths["/api/v1/partner/orders"]?.post;
    expect(post?.security).toEqual([
      { PartnerBearer: ["orders:write"] },
      { PartnerApiKey: ["orders:write"] },
    ]);
    expect(post?.parameters?.map((p) => `${p.in}:${p.name}`)).toEqual(
      expect.arrayContaining(["header:x-signature", "header:idempotency-key"]),
    );
  });

  it("declares the response headers the API sends", async () => {
    const doc = await partnerDoc();
    const created = doc.paths["/api/v1/partner/orders"]?.post?.responses;
    expect(Object.keys(created?.["201"]?.headers ?? {})).toEqual(
      expect.arrayContaining([
        "X-Request-Id",
        "RateLimit-Limit",
        "RateLimit-Remaining",
        "RateLimit-Reset",
        "Cache-Control",
      ]),
    );
    expect(Object.keys(created?.["429"]?.headers ?? {})).toContain("Retry-After");
    expect(Object.keys(created?.["503"]?.headers ?? {})).toContain("Retry-After");
    const currencies = doc.paths["/api/v1/currencies"]?.get?.responses["200"]?.headers ?? {};
    expect(Object.keys(currencies)).toContain("Access-Control-Allow-Origin");
    // Icons are not rate-limited, so they don't claim RateLimit-* headers.
    expect(
      Object.keys(doc.paths["/api/v1/icons/{file}"]?.get?.responses["200"]?.headers ?? {}),
    ).not.toContain("RateLimit-Limit");
  });

  it("amount patterns refuse zero, and timestamps are date-time", async () => {
    const doc = await partnerDoc();
    const amountFrom = doc.components.schemas.CreateOrder?.properties?.amount_from as {
      anyOf: { type: string; pattern?: string }[];
    };
    const pattern = new RegExp(amountFrom.anyOf.find((s) => s.type === "string")?.pattern ?? "^$");
    const rateAmount = doc.paths["/api/v1/partner/rates"]?.get?.parameters?.find((p) => p.name === "amount");
    const ratePattern = new RegExp(rateAmount?.schema?.pattern ?? "^$");
    for (const re of [pattern, ratePattern]) {
      for (const zero of ["0", "0.0", "00", "0.000"]) expect(re.test(zero), zero).toBe(false);
      for (const fine of ["0.5", "1", "10.25", "0.00000001"]) expect(re.test(fine), fine).toBe(true);
    }
    for (const field of ["created_at", "updated_at", "expires_at"])
      expect(doc.components.schemas.Order?.properties?.[field]?.format).toBe("date-time");
  });

  it("/docs renders the partner document with a renderer this Worker serves, under a 'self' CSP", async () => {
    const res = await call("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/https?:/);
    const html = await res.text();
    expect(html).toContain('spec-url="/api/v1/openapi.json"');
    const scripts = [...html.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1] ?? "");
    expect(scripts).toHaveLength(1);
    expect(scripts[0]).toMatch(/^\/docs\/redoc-[0-9a-f]{12}\.js$/);
    expect(html).not.toMatch(/<script>(?!<\/script>)/);
    const js = await call(scripts[0] ?? "");
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toMatch(/javascript/);
    expect(js.headers.get("cache-control")).toContain("immutable");
    expect((await js.text()).length).toBeGreaterThan(500_000);
    expect((await call("/docs/interactive")).status).toBe(404);
  });

  it("declares the operator API's rate limit: a 429 on every operator route, RateLimit-* on its answers as sent", async () => {
    const doc = await adminDoc();
    for (const o of operations(doc)) {
      expect(Object.keys(o.op.responses), o.key).toContain("429");
      for (const [status, r] of Object.entries(o.op.responses))
        if (/^[24]/.test(status))
          expect(Object.keys(r.headers ?? {}), `${o.key} ${status}`).toContain("RateLimit-Policy");
    }
    const declared = doc.paths["/admin/v1/alerts"]?.get?.responses["200"]?.headers as Record<
      string,
      { schema: { pattern: string } }
    >;
    const res = await admin("/alerts");
    expect(res.status).toBe(200);
    const policy = res.headers.get("ratelimit-policy") ?? "";
    expect(policy).toMatch(/^"admin-ip";q=1200;w=60$/);
    expect(policy).toMatch(new RegExp(declared["RateLimit-Policy"]?.schema.pattern ?? "^$"));
    expect(res.headers.get("ratelimit") ?? "").toMatch(
      new RegExp(declared.RateLimit?.schema.pattern ?? "^$"),
    );
  });

  it("the keyless status route declares the 400 it answers (an order id past its bound)", async () => {
    await expectError(await call(`/api/v1/orders/${"a".repeat(16_385)}/status`), 400, "invalid_request");
    const op = (await partnerDoc()).paths["/api/v1/orders/{order_id}/status"]?.get;
    expect(Object.keys(op?.responses ?? {})).toContain("400");
  });

  it("declares every webhook URL, sent or answered, as `format: uri`", async () => {
    type Schemas = Record<string, { properties?: Record<string, { format?: string }> }>;
    const partner = (await partnerDoc()).components.schemas as Schemas;
    const operator = (await adminDoc()).components.schemas as Schemas;
    const formats = [
      partner.UpdateWebhookEndpoint?.properties?.url?.format,
      partner.WebhookEndpoint?.properties?.url?.format,
      operator.Partner?.properties?.webhook_url?.format,
    ];
    expect(formats).toEqual(["uri", "uri", "uri"]);
  });
});
