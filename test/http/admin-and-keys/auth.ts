import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { hmacSha256Hex } from "../../../src/domain/credentials";
import { admin, call, createPartner, expectError, json, setPrices } from "../../helpers";
import { BTC_TO_USDT } from "../../support/orders";

const ORDER = "/api/v1/partner/orders/00000000-0000-4000-8000-000000000000";

describe("partner authentication", () => {
  it("accepts the key as Bearer and as X-API-Key", async () => {
    const p = await createPartner();
    await expectError(
      await call(ORDER, { headers: { Authorization: `Bearer ${p.key}` } }),
      404,
      "order_not_found",
    );
    await expectError(await call(ORDER, { headers: { "X-API-Key": p.key } }), 404, "order_not_found");
    await expectError(
      await call(ORDER, { headers: { Authorization: `Bearer ${p.key}`, "X-API-Key": p.key } }),
      404,
      "order_not_found",
    );
  });

  it("401 with WWW-Authenticate for missing, dotless, malformed, unknown, conflicting keys", async () => {
    const p = await createPartner();
    const other = await createPartner({ name: "other" });
    const cases: [Record<string, string>, RegExp][] = [
      [{}, /missing/i],
      [{ Authorization: "Bearer oldplaintextkey0123456789" }, /plaintext/i],
      [{ "X-API-Key": "pk_short.secret" }, /malformed/i],
      [{ Authorization: "Basic abc" }, /Bearer/],
      [{ Authorization: `Bearer ${p.keyId}.${"A".repeat(43)}` }, /unknown/i],
      [{ Authorization: `Bearer pk_AAAAAAAAAAAAAAAA.${"A".repeat(43)}` }, /unknown/i],
      [{ Authorization: `Bearer ${p.key}`, "X-API-Key": other.key }, /different keys/i],
    ];
    for (const [headers, detail] of cases) {
      const res = await call(ORDER, { headers });
      const body = await expectError(res, 401, "invalid_api_key");
      expect(body.detail).toMatch(detail);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
    }
  });

  it("after its secret has matched, the same key id with another secret is still refused", async () => {
    // The isolate remembers a secret that matched its cached key row; only that exact secret passes.
    const p = await createPartner();
    const secret = p.key.split(".")[1] ?? "";
    const wrong = `${secret.slice(0, -1)}${secret.endsWith("A") ? "B" : "A"}`;
    for (let i = 0; i < 2; i++) {
      await expectError(
        await call(ORDER, { headers: { Authorization: `Bearer ${p.key}` } }),
        404,
        "order_not_found",
      );
      for (const s of [wrong, `${secret}A`, secret.slice(1)]) {
        const res = await call(ORDER, { headers: { Authorization: `Bearer ${p.keyId}.${s}` } });
        expect(res.status).toBe(401);
      }
    }
  });

  it("a revoked key stops working at once", async () => {
    const p = await createPartner();
    await expectError(await call(ORDER, { headers: { "X-API-Key": p.key } }), 404, "order_not_found");
    const del = await admin(`/partners/${p.id}/keys/${p.keyId}`, { method: "DELETE" });
    expect(del.status).toBe(204);
    const body = await expectError(
      await call(ORDER, { headers: { "X-API-Key": p.key } }),
      401,
      "invalid_api_key",
    );
    expect(body.detail).toMatch(/revoked/i);
  });

  it("an inactive partner gets 403, and 200-path again once re-enabled", async () => {
    const p = await createPartner();
    await admin(`/partners/${p.id}`, { method: "PATCH", json: { is_active: false } });
    await expectError(await call(ORDER, { headers: { "X-API-Key": p.key } }), 403, "partner_inactive");
    await admin(`/partners/${p.id}`, { method: "PATCH", json: { is_active: true } });
    await expectError(await call(ORDER, { headers: { "X-API-Key": p.key } }), 404, "order_not_found");
  });

  it("verifies X-Signature when present: good passes, bad or malformed → 401 invalid_signature", async () => {
    const p = await createPartner();
    await setPrices();
    const body = JSON.stringify(BTC_TO_USDT);
    const secret = p.key.split(".")[1] ?? "";
    const good = await hmacSha256Hex(secret, new TextEncoder().encode(body));
    const post = (sig?: string) =>
      call("/api/v1/partner/orders", {
        method: "POST",
        body,
        headers: {
          Authorization: `Bearer ${p.key}`,
          "content-type": "application/json",
          ...(sig ? { "X-Signature": sig } : {}),
        },
      });
    // Signed or not, the order is created: the route still reads the body the check has read.
    // The contract says only "hex", so an upper-case digest is the same signature.
    expect((await post(good)).status).toBe(201);
    expect((await post(good.toUpperCase())).status).toBe(201);
    expect((await post()).status).toBe(201);
    for (const bad of [good.replace(/.$/, good.endsWith("0") ? "1" : "0"), "zz", ""]) {
      const res = await post(bad || " ");
      await expectError(res, 401, "invalid_signature");
    }
    // Signed with another key's secret.
    const other = await hmacSha256Hex("x".repeat(43), new TextEncoder().encode(body));
    await expectError(await post(other), 401, "invalid_signature");
  });

  it("never stores the secret in plain text and never returns it after creation", async () => {
    const p = await createPartner();
    const secret = p.key.split(".")[1] ?? "";
    expect(p.key).toMatch(/^pk_[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{43}$/);
    const row = await env.DB.prepare("SELECT * FROM api_keys WHERE key_id = ?")
      .bind(p.keyId)
      .first<Record<string, unknown>>();
    expect(row).not.toBeNull();
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(row?.secret_hash).toMatch(/^[0-9a-f]{64}$/);
    const list = await admin(`/partners/${p.id}/keys`);
    const text = await list.text();
    expect(text).toContain(p.keyId);
    expect(text).not.toContain(secret);
    expect(text).not.toContain("secret_hash");
  });

  it("records last_used_at on use", async () => {
    const p = await createPartner();
    await call(ORDER, { headers: { "X-API-Key": p.key } });
    // touchKey runs in waitUntil; poll briefly for the write.
    let used: string | null = null;
    for (let i = 0; i < 50 && !used; i++) {
      const r = await env.DB.prepare("SELECT last_used_at FROM api_keys WHERE key_id = ?")
        .bind(p.keyId)
        .first<{ last_used_at: string | null }>();
      used = r?.last_used_at ?? null;
      if (!used) await new Promise((r) => setTimeout(r, 20));
    }
    expect(used).toMatch(/^\d{4}-\d\d-\d\dT/);
    const keys = await json<{ data: { last_used_at: string | null }[] }>(
      await admin(`/partners/${p.id}/keys`),
    );
    expect(keys.data[0]?.last_used_at).toBe(used);
  });
});
