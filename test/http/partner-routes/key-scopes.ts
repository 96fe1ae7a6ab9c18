// Key scopes (docs/auth-and-limits.md, "Key scopes"), through the public surface: the partner
// OpenAPI document names the scope of every keyed operation (and this fails for an operation
// OPERATION_SCOPES does not know), a key without an operation's scope gets 403
// insufficient_scope naming it on every such operation (with the partner's rate-limit headers), the operator creates and lists keys with
// scopes, and a key made before scopes keeps everything but orders:act.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { generateApiKey } from "../../../src/domain/credentials";
import { KEY_SCOPES, OPERATION_SCOPES } from "../../../src/domain/key-scopes";
import { admin, call, createPartner, expectError, json, setPrices } from "../../helpers";
import { KEY_SCHEMES, keyedOperations } from "../../support/keyed-operations";
import { BTC_TO_USDT, createOrder } from "../../support/orders";

describe("key-scopes", () => {
  async function keyWith(partnerId: string, scopes: string[], mode: "live" | "test" = "live") {
    const res = await admin(`/partners/${partnerId}/keys`, { method: "POST", json: { scopes, mode } });
    expect(res.status).toBe(201);
    return json<{ key: string; key_id: string; scopes: string[] }>(res);
  }

  const send = (method: string, path: string, key: string) =>
    call(
      path
        .replace("{order_id}", crypto.randomUUID())
        .replace(/\{[a-z_]+\}/g, "x1")
        .replace("/api/v1/partner/rates", "/api/v1/partner/rates?coin_from=BTC&coin_to=USDT&amount=0.01"),
      {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        ...(method === "GET" ? {} : { body: "{}" }),
      },
    );

  beforeAll(() => setPrices());

  describe("key scopes", () => {
    it("every keyed operation in the partner document names its one scope, the one OPERATION_SCOPES gives", async () => {
      const ops = await keyedOperations();
      expect(ops.length).toBeGreaterThanOrEqual(Object.keys(OPERATION_SCOPES).length);
      const unmapped = ops
        .filter(({ op }) => !(op.operationId in OPERATION_SCOPES))
        .map(({ op }) => op.operationId);
      expect(unmapped, "keyed operations without a scope: add them to OPERATION_SCOPES").toEqual([]);
      for (const { op } of ops) {
        const scope = OPERATION_SCOPES[op.operationId as keyof typeof OPERATION_SCOPES];
        expect(op["x-required-scope"], op.operationId).toBe(scope);
        for (const req of op.security ?? [])
          for (const [scheme, roles] of Object.entries(req))
            if (KEY_SCHEMES.includes(scheme)) expect(roles, op.operationId).toEqual([scope]);
      }
      // Nothing in the table that the document lost.
      expect(Object.keys(OPERATION_SCOPES).sort()).toEqual(ops.map(({ op }) => op.operationId).sort());
    });

    it("a key without an operation's scope gets 403 insufficient_scope naming it, on every keyed operation", async () => {
      const p = await createPartner({ name: "scopes", rate_limit_per_minute: 100_000 });
      const ops = await keyedOperations();
      const keys = new Map<string, { without: string; only: string }>();
      for (const scope of KEY_SCOPES) {
        const without = await keyWith(
          p.id,
          KEY_SCOPES.filter((s) => s !== scope),
        );
        const only = await keyWith(p.id, [scope]);
        keys.set(scope, { without: without.key, only: only.key });
      }
      for (const { method, path, op } of ops) {
        const scope = op["x-required-scope"]!;
        const { without, only } = keys.get(scope)!;
        const refused = await send(method, path, without);
        expect(refused.status, `${op.operationId} without ${scope}`).toBe(403);
        const body = await json<{ code: string; detail: string }>(refused);
        expect(body.code).toBe("insufficient_scope");
        expect(body.detail).toContain(`\`${scope}\``);
        // Counted against the partner's limit before it is refused, and told so like any answer.
        expect(refused.headers.get("RateLimit-Policy"), op.operationId).toMatch(/^"partner";q=100000;/);
        expect(refused.headers.get("RateLimit-Remaining"), op.operationId).toMatch(/^\d+$/);
        const allowed = await send(method, path, only);
        const answer = allowed.status === 403 ? (await json<{ code: string }>(allowed)).code : allowed.status;
        expect(answer, `${op.operationId} with only ${scope}`).not.toBe("insufficient_scope");
      }
    });

    it("the operator creates keys with scopes (default: all but orders:act); lists show them; bad scopes are 400", async () => {
      const p = await createPartner({ name: "scoped-keys" });
      const plain = await json<{ key_id: string; scopes: string[] }>(
        await admin(`/partners/${p.id}/keys`, { method: "POST" }),
      );
      expect(plain.scopes).toEqual(["read", "orders:write", "webhooks:write"]);
      const readOnly = await keyWith(p.id, ["read"]);
      expect(readOnly.scopes).toEqual(["read"]);
      const listed = await json<{ data: { key_id: string; scopes: string[] }[] }>(
        await admin(`/partners/${p.id}/keys`),
      );
      expect(listed.data.find((k) => k.key_id === readOnly.key_id)?.scopes).toEqual(["read"]);
      expect(listed.data.find((k) => k.key_id === p.keyId)?.scopes).toEqual([...KEY_SCOPES]);
      await expectError(
        await admin(`/partners/${p.id}/keys`, { method: "POST", json: { scopes: [] } }),
        400,
        "invalid_request",
      );
      await expectError(
        await admin(`/partners/${p.id}/keys`, { method: "POST", json: { scopes: ["orders:delete"] } }),
        400,
        "invalid_request",
      );
      // A read-only key reads, and cannot create.
      const res = await call("/api/v1/partner/orders", {
        method: "POST",
        headers: { authorization: `Bearer ${readOnly.key}`, "content-type": "application/json" },
        body: JSON.stringify(BTC_TO_USDT),
      });
      const e = await expectError(res, 403, "insufficient_scope");
      expect(e.detail).toMatch(/`orders:write`/);
      expect((await call("/api/v1/partner/orders", { headers: { "X-API-Key": readOnly.key } })).status).toBe(
        200,
      );
    });

    it("a key made before scopes keeps what it could do, except orders:act (migration 0026)", async () => {
      const p = await createPartner({ name: "old-key", rate_limit_per_minute: 100_000 });
      const old = await generateApiKey("live");
      // As a key row written before migration 0026: no scopes column given.
      await env.DB.prepare(
        "INSERT INTO api_keys (key_id, partner_id, secret_hash, created_at) VALUES (?, ?, ?, ?)",
      )
        .bind(old.keyId, p.id, old.secretHash, new Date().toISOString())
        .run();
      const order = await createOrder({ id: p.id, key: old.key, keyId: old.keyId }, BTC_TO_USDT);
      expect(
        (await call(`/api/v1/partner/orders/${order.id}`, { headers: { "X-API-Key": old.key } })).status,
      ).toBe(200);
      expect((await call("/api/v1/partner/webhook", { headers: { "X-API-Key": old.key } })).status).toBe(200);
      const act = await call(`/api/v1/partner/orders/${order.id}/refund`, {
        method: "POST",
        headers: { "X-API-Key": old.key, "content-type": "application/json" },
        body: "{}",
      });
      const e = await expectError(act, 403, "insufficient_scope");
      expect(e.detail).toMatch(/`orders:act`/);
    });
  });
});
