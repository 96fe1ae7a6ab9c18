// The order list reports what wallets report (docs/orders.md, "Listing orders"): each row of
// GET /partner/orders carries the order's public view — amounts, addresses, txids, each side's
// token and chain id — exactly as GET /partner/orders/{id} shows them, before and after the payout.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { orderContext } from "../../../src/objects/order/context";
import { markProjection, projectionPending } from "../../../src/objects/order/projection";
import { admin, call, createPartner, expectError, json, setPrices, type TestPartner } from "../../helpers";
import { BTC_REFUND, BTC_TO_USDT, createOrder, indexed, type Order, read } from "../../support/orders";

/**
 * Puts a new order back in the moment between its 201 and its index row: the row not in D1, the
 * object's projection flag up, and no alarm to run it meanwhile. The creation's own projection is
 * let finish first (the flag it clears, then the alarm it sets in the same turn), so nothing of it
 * lands after.
 */
async function unindexed(id: string): Promise<void> {
  await indexed(id);
  await runInDurableObject(env.ORDERS.getByName(id), async (_obj, state) => {
    const c = orderContext(state.storage, env);
    await vi.waitFor(() => expect(projectionPending(c.kv)).toBe(false));
    markProjection(c.kv, c.schedule, Date.now());
    await state.storage.deleteAlarm();
  });
  await env.DB.prepare("DELETE FROM orders WHERE id = ?").bind(id).run();
}

describe("order-list", () => {
  const REPORTED = [
    "status_reason",
    "rate_type",
    "amount_from_expected",
    "amount_to_expected",
    "amount_from_received",
    "amount_to_actual",
    "rate_quoted",
    "recipient_address",
    "recipient_address_tag",
    "refund_address",
    "refund_address_tag",
    "deposit_txid",
    "payout_txid",
    "refund_txid",
    "hold",
    "token_from",
    "token_to",
    "chain_id_from",
    "chain_id_to",
  ] as const;

  beforeAll(() => setPrices());

  it("each row carries the order's public view, as the order itself shows it, through the payout", async () => {
    const p = await createPartner({ name: "list-report", rate_limit_per_minute: 100_000 });
    const k = await json<{ key: string; key_id: string }>(
      await admin(`/partners/${p.id}/keys`, { method: "POST", json: { mode: "test" } }),
    );
    const t = { id: p.id, key: k.key, keyId: k.key_id };
    const order = await createOrder(t, {
      ...BTC_TO_USDT,
      network_to: "ETH",
      recipient_address: "0x9858EfFD232B4033E47d90003D41EC34EcaEda94",
      refund_address: BTC_REFUND,
    });
    const row = async () => {
      const res = await call("/api/v1/partner/orders?limit=10&created_from=2020-01-01T00:00:00Z", {
        headers: { "X-API-Key": t.key },
      });
      expect(res.status).toBe(200);
      const page = await json<{ data: Record<string, unknown>[] }>(res);
      return page.data.find((r) => r.id === order.id);
    };
    const reported = (o: Order | Record<string, unknown>) =>
      Object.fromEntries(REPORTED.map((f) => [f, (o as Record<string, unknown>)[f]]));

    const fresh = await row();
    expect(reported(fresh!)).toEqual(reported(await read(t, order.id)));
    expect(fresh).toMatchObject({ chain_id_from: null, chain_id_to: 1, token_from: null });
    expect(fresh?.token_to).toMatch(/^0x[0-9a-fA-F]{40}$/);

    for (const step of ["deposit", "confirm"])
      expect(
        (
          await call(`/api/v1/partner/test/orders/${order.id}/${step}`, {
            method: "POST",
            headers: { Authorization: `Bearer ${t.key}` },
          })
        ).status,
      ).toBe(200);
    const done = await read(t, order.id);
    expect(done.status).toBe("completed");
    const paid = await row();
    expect(reported(paid!)).toEqual(reported(done));
    expect(paid).toMatchObject({ deposit_txid: expect.any(String), payout_txid: expect.any(String) });
    expect(paid?.amount_to_actual).toEqual(expect.any(Number));
  });

  // docs/performance.md, "Reads from replicas": the list reads through a D1 session; its bookmark
  // comes back in X-D1-Bookmark and a request that sends it back reads at least that fresh.
  it("answers the list's read position in X-D1-Bookmark, accepts it back, refuses a malformed one", async () => {
    const p = await createPartner({ name: "list-bookmark" });
    await createOrder(p, BTC_TO_USDT);
    const list = (bookmark?: string) =>
      call("/api/v1/partner/orders?limit=1", {
        headers: { "X-API-Key": p.key, ...(bookmark === undefined ? {} : { "X-D1-Bookmark": bookmark }) },
      });
    const first = await list();
    expect(first.status).toBe(200);
    const bookmark = first.headers.get("x-d1-bookmark");
    expect(bookmark).toMatch(/^[0-9A-Za-z-]+$/);
    const again = await list(bookmark as string);
    expect(again.status).toBe(200);
    expect((await json<{ data: unknown[] }>(again)).data).toHaveLength(1);
    const bad = await list("not a bookmark");
    expect((await expectError(bad, 400, "invalid_bookmark")).detail).toMatch(/X-D1-Bookmark/);
  });

  // docs/orders.md, "Reading": a create answers a bookmark naming its order; a list sent it first
  // has the order's object write the index row if it has not yet, then reads the primary.
  it("a list sent a create's X-D1-Bookmark shows that order, even before its index row is written", async () => {
    const p = await createPartner({ name: "list-after-create" });
    const other = await createPartner({ name: "list-after-create-other" });
    const create = (q: TestPartner, key: string) =>
      call("/api/v1/partner/orders", {
        method: "POST",
        body: JSON.stringify(BTC_TO_USDT),
        headers: {
          Authorization: `Bearer ${q.key}`,
          "content-type": "application/json",
          "Idempotency-Key": key,
        },
      });
    const created = await create(p, "list-after-create");
    expect(created.status).toBe(201);
    const order = await json<Order>(created);
    const token = `order-${order.id}`;
    expect(created.headers.get("x-d1-bookmark")).toBe(token);
    expect((await create(p, "list-after-create")).headers.get("x-d1-bookmark")).toBe(token);
    const theirs = await createOrder(other, BTC_TO_USDT);
    for (const id of [order.id, theirs.id]) await unindexed(id);

    const list = (bookmark?: string) =>
      call("/api/v1/partner/orders", {
        headers: { "X-API-Key": p.key, ...(bookmark === undefined ? {} : { "X-D1-Bookmark": bookmark }) },
      });
    const ids = async (res: Response) => (await json<{ data: { id: string }[] }>(res)).data.map((o) => o.id);
    // Without the bookmark the row is not there yet; with it, it is.
    expect(await ids(await list())).not.toContain(order.id);
    const after = await list(token);
    expect(await ids(after)).toEqual([order.id]);
    // From then on the client holds D1's read position.
    expect(after.headers.get("x-d1-bookmark")).toMatch(/^[0-9A-Za-z-]+$/);
    expect(after.headers.get("x-d1-bookmark")).not.toBe(token);

    // Another partner's order, or none: the list reads the primary, and nothing is done for theirs.
    for (const bookmark of [`order-${theirs.id}`, `order-${crypto.randomUUID()}`]) {
      const res = await list(bookmark);
      expect(res.status).toBe(200);
      expect(await ids(res)).toEqual([order.id]);
    }
    expect(await env.DB.prepare("SELECT id FROM orders WHERE id = ?").bind(theirs.id).first()).toBeNull();
    await expectError(await list("order-not-an-order-id"), 400, "invalid_bookmark");
    // A read that does not make sure of the order's row answers the bookmark back, for the next list.
    const slo = await admin("/slo?month=2026-10", { headers: { "X-D1-Bookmark": `order-${theirs.id}` } });
    expect(slo.headers.get("x-d1-bookmark")).toBe(`order-${theirs.id}`);
  });
});
