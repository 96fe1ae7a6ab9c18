// App keys (docs/auth-and-limits.md, "App keys"), through the public surface: the operator issues
// one (`pk_app_…`, fixed scopes); it quotes with the partner's markup, creates orders and reads
// only the orders it created (by id, short id or the order's public capability); the served partner document says which keyed operations it may use
// (`x-app-key`), and every other one answers it 403; a single address gets no more from it than
// from a public route.
import { beforeAll, describe, expect, it } from "vitest";
import { admin, call, createPartner, expectError, freshIp, json, setPrices } from "../../helpers";
import { keyedOperations } from "../../support/keyed-operations";
import { BTC_TO_USDT, createOrder } from "../../support/orders";

describe("app-keys", () => {
  async function appKey(partnerId: string) {
    const res = await admin(`/partners/${partnerId}/keys`, { method: "POST", json: { kind: "app" } });
    expect(res.status).toBe(201);
    return json<{ key: string; key_id: string; scopes: string[]; kind: string }>(res);
  }

  const get = (path: string, key?: string, ip?: string) =>
    call(path, {
      headers: { ...(key ? { "X-API-Key": key } : {}), ...(ip ? { "cf-connecting-ip": ip } : {}) },
    });

  const RATE = "/api/v1/partner/rates?coin_from=BTC&coin_to=USDT&network_to=TRX&amount=0.01";

  beforeAll(() => setPrices());

  it("the operator issues an app key: pk_app_…, kind app, scopes fixed; scopes with kind app are 400", async () => {
    const p = await createPartner({ name: "app-issue" });
    const k = await appKey(p.id);
    expect(k.key_id).toMatch(/^pk_app_[A-Za-z0-9_-]{16}$/);
    expect(k.kind).toBe("app");
    expect(k.scopes).toEqual(["read", "orders:write"]);
    const test = await json<{ key_id: string }>(
      await admin(`/partners/${p.id}/keys`, { method: "POST", json: { kind: "app", mode: "test" } }),
    );
    expect(test.key_id).toMatch(/^pk_app_test_/);
    const listed = await json<{ data: { key_id: string; kind: string }[] }>(
      await admin(`/partners/${p.id}/keys`),
    );
    expect(listed.data.find((x) => x.key_id === k.key_id)?.kind).toBe("app");
    expect(listed.data.find((x) => x.key_id === p.keyId)?.kind).toBe("server");
    await expectError(
      await admin(`/partners/${p.id}/keys`, { method: "POST", json: { kind: "app", scopes: ["read"] } }),
      400,
      "invalid_request",
    );
  });

  it("quotes with the partner's markup, as a server key does and a keyless quote does not", async () => {
    const p = await createPartner({ name: "app-quote", markup_bps: 150 });
    const k = await appKey(p.id);
    const amountTo = async (key?: string) => {
      const res = await get(RATE, key);
      expect(res.status).toBe(200);
      return (await json<{ amount_to: number }>(res)).amount_to;
    };
    const [app, server, keyless] = [await amountTo(k.key), await amountTo(p.key), await amountTo()];
    expect(app).toBe(server);
    expect(app).toBeLessThan(keyless);
  });

  it("creates orders and reads its own by id and short id; another key's order is 404 to it", async () => {
    const p = await createPartner({ name: "app-orders" });
    const k = await appKey(p.id);
    const other = await appKey(p.id);
    const mine = await createOrder({ id: p.id, key: k.key, keyId: k.key_id }, BTC_TO_USDT);
    const byServer = await createOrder(p, BTC_TO_USDT);
    for (const ref of [mine.id, mine.short_id]) {
      const res = await get(`/api/v1/partner/orders/${ref}`, k.key);
      expect(res.status).toBe(200);
      expect((await json<{ id: string }>(res)).id).toBe(mine.id);
    }
    await expectError(await get(`/api/v1/partner/orders/${byServer.id}`, k.key), 404, "order_not_found");
    await expectError(await get(`/api/v1/partner/orders/${mine.id}`, other.key), 404, "order_not_found");
    // The partner's server key still reads every order, the app's too.
    expect((await get(`/api/v1/partner/orders/${mine.id}`, p.key)).status).toBe(200);
  });

  it("reads its own order by the order's public capability, and nothing more than by id", async () => {
    const p = await createPartner({ name: "app-capability" });
    const stranger = await createPartner({ name: "app-capability-stranger" });
    const k = await appKey(p.id);
    const other = await appKey(p.id);
    const mine = await createOrder({ id: p.id, key: k.key, keyId: k.key_id }, BTC_TO_USDT);
    const byServer = await createOrder(p, BTC_TO_USDT);
    const capability = (o: { tracking_url: string }) => o.tracking_url.split("/").pop()!;
    expect(capability(mine)).toMatch(/^[0-9a-f-]{36}\.[0-9a-f]{32}$/);
    const res = await get(`/api/v1/partner/orders/${capability(mine).toUpperCase()}`, k.key);
    expect(res.status).toBe(200);
    expect((await json<{ id: string }>(res)).id).toBe(mine.id);
    // Only its own token opens it, for the key that created it, in its own partner.
    const forged = `${mine.id}.${capability(byServer).split(".")[1]}`;
    for (const [ref, key] of [
      [forged, k.key],
      [`${mine.id}.`, k.key],
      [capability(mine), other.key],
      [capability(byServer), k.key],
      [capability(mine), stranger.key],
    ] as const)
      await expectError(await get(`/api/v1/partner/orders/${ref}`, key), 404, "order_not_found");
  });

  it("the served document marks what an app key may use, and every other keyed operation is 403 to it", async () => {
    const p = await createPartner({ name: "app-ops", rate_limit_per_minute: 100_000 });
    const k = await appKey(p.id);
    const ops = await keyedOperations();
    expect(
      ops
        .filter(({ op }) => op["x-app-key"] === true)
        .map(({ op }) => op.operationId)
        .sort(),
    ).toEqual(["createOrder", "getOrder", "getRate", "orderEvents"]);
    const own = await createOrder({ id: p.id, key: k.key, keyId: k.key_id }, BTC_TO_USDT);
    for (const { method, path, op } of ops) {
      expect(typeof op["x-app-key"], op.operationId).toBe("boolean");
      const res = await call(
        path
          .replace("{order_id}", own.id)
          .replace(/\{[a-z_]+\}/g, "x1")
          .replace("/api/v1/partner/rates", RATE),
        {
          method,
          headers: { authorization: `Bearer ${k.key}`, "content-type": "application/json" },
          ...(method === "GET"
            ? {}
            : {
                body:
                  method === "POST" && path === "/api/v1/partner/orders" ? JSON.stringify(BTC_TO_USDT) : "{}",
              }),
        },
      );
      if (op["x-app-key"]) {
        expect(res.status, `${op.operationId} with an app key`).toBeLessThan(300);
        await res.body?.cancel(); // the order's event stream stays open otherwise
      } else {
        const e = await expectError(res, 403, "insufficient_scope");
        expect(e.detail, op.operationId).toMatch(/app key/);
      }
    }
  });

  it("counts against the caller's address as a public route does, besides the partner's limit", async () => {
    const p = await createPartner({ name: "app-ip", rate_limit_per_minute: 100_000 });
    const k = await appKey(p.id);
    const ip = freshIp();
    // The public limit (PUBLIC_RATE_LIMIT_PER_MINUTE, 60 in wrangler.toml) from one address.
    for (let i = 0; i < 60; i++) expect((await get(RATE, k.key, ip)).status, `request ${i + 1}`).toBe(200);
    const refused = await expectError(await get(RATE, k.key, ip), 429, "rate_limited");
    expect(refused.detail).toMatch(/60 requests/);
    // Another address still gets through, and a server key from the spent address too.
    expect((await get(RATE, k.key, freshIp())).status).toBe(200);
    expect((await get(RATE, p.key, ip)).status).toBe(200);
  });
});
