import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../../src/index";
import { admin, call, expectError, json } from "../../helpers";

interface Partner {
  id: string;
  name: string;
  is_active: boolean;
  markup_bps: number;
  rate_limit_per_minute: number;
  created_at: string;
  updated_at: string;
}

describe("operator API: partners and keys", () => {
  it("requires the admin token (401 otherwise, constant answer)", async () => {
    const variants: Record<string, string>[] = [
      {},
      { Authorization: "Bearer wrong" },
      { Authorization: "test-admin-token" },
    ];
    for (const headers of variants) {
      const res = await call("/admin/v1/partners", { headers });
      await expectError(res, 401, "invalid_api_key");
    }
  });

  it("does not exist at all (404 JSON) when ADMIN_TOKEN is unset", async () => {
    const noToken = { ...env, ADMIN_TOKEN: undefined } as unknown as Env;
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request("http://local.test/admin/v1/partners", { headers: { Authorization: "Bearer anything" } }),
      noToken,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    await expectError(res, 404, "not_found");
  });

  it("creates, reads, lists and updates partners", async () => {
    const res = await admin("/partners", {
      method: "POST",
      json: { name: "Acme Wallet", markup_bps: 30, rate_limit_per_minute: 1200 },
    });
    expect(res.status).toBe(201);
    const p = await json<Partner>(res);
    expect(p).toMatchObject({
      name: "Acme Wallet",
      is_active: true,
      markup_bps: 30,
      rate_limit_per_minute: 1200,
    });
    expect(p.id).toMatch(/^[0-9a-f-]{36}$/);

    const defaults = await json<Partner>(
      await admin("/partners", { method: "POST", json: { name: "Beta" } }),
    );
    expect(defaults).toMatchObject({ markup_bps: 0, rate_limit_per_minute: 600 });

    expect(await json<Partner>(await admin(`/partners/${p.id}`))).toEqual(p);
    const list = await json<{ data: Partner[] }>(await admin("/partners"));
    expect(list.data.map((x) => x.id)).toEqual(expect.arrayContaining([p.id, defaults.id]));

    const upd = await admin(`/partners/${p.id}`, {
      method: "PATCH",
      json: { markup_bps: 45, is_active: false },
    });
    expect(upd.status).toBe(200);
    expect(await json<Partner>(upd)).toMatchObject({
      id: p.id,
      name: "Acme Wallet",
      markup_bps: 45,
      is_active: false,
    });
  });

  it("validates bodies: 400 with field errors, and changes nothing", async () => {
    const bad = [
      {},
      { name: "" },
      { name: "x", markup_bps: -1 },
      { name: "x", markup_bps: 1.5 },
      { name: "x", rate_limit_per_minute: 0 },
      { name: "x", extra: true },
      { name: 42 },
    ];
    const before = (await json<{ data: Partner[] }>(await admin("/partners"))).data.length;
    for (const body of bad) {
      const e = await expectError(
        await admin("/partners", { method: "POST", json: body }),
        400,
        "invalid_request",
      );
      expect(e.errors?.length).toBeGreaterThan(0);
    }
    const malformed = await admin("/partners", {
      method: "POST",
      body: "{not json",
      headers: { "content-type": "application/json" },
    });
    const e = await expectError(malformed, 400, "invalid_request");
    expect(e.detail).toMatch(/json/i);
    expect((await json<{ data: Partner[] }>(await admin("/partners"))).data.length).toBe(before);

    const p = await json<Partner>(await admin("/partners", { method: "POST", json: { name: "Valid" } }));
    await expectError(
      await admin(`/partners/${p.id}`, { method: "PATCH", json: {} }),
      400,
      "invalid_request",
    );
    await expectError(
      await admin(`/partners/${p.id}`, { method: "PATCH", json: { is_active: "no" } }),
      400,
      "invalid_request",
    );
    await expectError(await admin("/partners/not-a-uuid"), 400, "invalid_request");
    expect(await json<Partner>(await admin(`/partners/${p.id}`))).toEqual(p);
  });

  it("404 for unknown partners and keys", async () => {
    const unknown = "00000000-0000-4000-8000-000000000001";
    await expectError(await admin(`/partners/${unknown}`), 404, "not_found");
    await expectError(
      await admin(`/partners/${unknown}`, { method: "PATCH", json: { name: "x" } }),
      404,
      "not_found",
    );
    await expectError(await admin(`/partners/${unknown}/keys`, { method: "POST" }), 404, "not_found");
    const p = await json<Partner>(await admin("/partners", { method: "POST", json: { name: "K" } }));
    await expectError(await admin(`/partners/${p.id}/keys/pk_nope`, { method: "DELETE" }), 404, "not_found");
  });

  it("creates keys shown once, lists them without secrets, revokes idempotently", async () => {
    const p = await json<Partner>(await admin("/partners", { method: "POST", json: { name: "Keys" } }));
    const created = await admin(`/partners/${p.id}/keys`, { method: "POST" });
    expect(created.status).toBe(201);
    expect(created.headers.get("cache-control")).toBe("no-store");
    const k = await json<{ key_id: string; key: string; created_at: string }>(created);
    expect(k.key.startsWith(`${k.key_id}.`)).toBe(true);
    const listed = await json<{ data: Record<string, unknown>[] }>(await admin(`/partners/${p.id}/keys`));
    expect(listed.data).toEqual([
      {
        key_id: k.key_id,
        mode: "live",
        scopes: ["read", "orders:write", "webhooks:write"],
        kind: "server",
        created_at: k.created_at,
        last_used_at: null,
        revoked_at: null,
      },
    ]);
    expect((await admin(`/partners/${p.id}/keys/${k.key_id}`, { method: "DELETE" })).status).toBe(204);
    expect((await admin(`/partners/${p.id}/keys/${k.key_id}`, { method: "DELETE" })).status).toBe(204);
    const after = await json<{ data: { revoked_at: string | null }[] }>(
      await admin(`/partners/${p.id}/keys`),
    );
    expect(after.data[0]?.revoked_at).toMatch(/^\d{4}-/);
  });

  it("is listed in the OpenAPI document under its own tag and security scheme", async () => {
    const doc = await json<{
      paths: Record<string, Record<string, { tags: string[]; security: Record<string, unknown>[] }>>;
      components: { securitySchemes: Record<string, unknown> };
    }>(await admin("/openapi.json"));
    for (const [path, method] of [
      ["/admin/v1/partners", "post"],
      ["/admin/v1/partners", "get"],
      ["/admin/v1/partners/{id}", "get"],
      ["/admin/v1/partners/{id}", "patch"],
      ["/admin/v1/partners/{id}/keys", "post"],
      ["/admin/v1/partners/{id}/keys", "get"],
      ["/admin/v1/partners/{id}/keys/{key_id}", "delete"],
    ] as const) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op?.tags).toEqual(["Admin: partners"]);
      expect(op?.security).toEqual([{ AdminBearer: [] }]);
    }
    expect(doc.components.securitySchemes).toHaveProperty("AdminBearer");
  });
});
