/**
 * POST /partner/orders/{id}/cancel (docs/orders.md, "Cancelling an order"): an order nobody has
 * paid expires at once as `cancelled`; it is idempotent, refused in any other status, scoped to
 * orders:write and to the key's own partner and mode; a deposit sent anyway is a late deposit.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { admin, call, createPartner, expectError, json, setPrices, type TestPartner } from "../../helpers";
import { BTC_REFUND, BTC_TO_USDT, createOrder, indexed, type Order, read } from "../../support/orders";

describe("order-cancel", () => {
  const cancel = (p: TestPartner, id: string) =>
    call(`/api/v1/partner/orders/${id}/cancel`, {
      method: "POST",
      headers: { Authorization: `Bearer ${p.key}` },
    });

  async function keyOf(p: TestPartner, body: unknown): Promise<TestPartner> {
    const res = await admin(`/partners/${p.id}/keys`, { method: "POST", json: body });
    expect(res.status).toBe(201);
    const k = await json<{ key: string; key_id: string }>(res);
    return { ...p, key: k.key, keyId: k.key_id };
  }

  function help(p: TestPartner, id: string, name: string): Promise<Response> {
    return call(`/api/v1/partner/test/orders/${id}/${name}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${p.key}` },
    });
  }

  let p: TestPartner;
  let test: TestPartner;

  beforeAll(async () => {
    await setPrices();
    p = await createPartner({ name: "cancel", rate_limit_per_minute: 100_000 });
    test = await keyOf(p, { mode: "test" });
  });

  it("a waiting order expires at once as cancelled, in the API, its log and the index; again is the same answer", async () => {
    const order = await createOrder(p, BTC_TO_USDT);
    const before = Date.now();
    const res = await cancel(p, order.id);
    expect(res.status, await res.clone().text()).toBe(200);
    const cancelled = await json<Order>(res);
    expect(cancelled).toMatchObject({ id: order.id, status: "expired", status_reason: "cancelled" });
    expect(Date.parse(cancelled.expires_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(cancelled.expires_at)).toBeLessThan(Date.parse(order.expires_at));
    expect(await read(p, order.id)).toMatchObject({ status: "expired", status_reason: "cancelled" });
    // The order's own alarm projects it, as any status change.
    await indexed(order.id, "expired");

    const again = await cancel(p, order.id);
    expect(again.status).toBe(200);
    expect(await json<Order>(again)).toMatchObject({ status: "expired", status_reason: "cancelled" });
    // Cancelling again writes nothing: one move into expired in the order's log.
    const log = await json<{ events: { to_status: string; reason: string }[] }>(
      await admin(`/orders/${order.id}`),
    );
    expect(log.events.filter((e) => e.to_status === "expired")).toHaveLength(1);
  });

  it("by short id too", async () => {
    const order = await createOrder(p, BTC_TO_USDT);
    const res = await cancel(p, order.short_id);
    expect(res.status).toBe(200);
    expect((await json<Order>(res)).status_reason).toBe("cancelled");
  });

  it("any other status answers 409 action_not_available and changes nothing; an expired order is not cancelled", async () => {
    const order = await createOrder(test, { ...BTC_TO_USDT, refund_address: BTC_REFUND });
    expect((await help(test, order.id, "deposit")).status).toBe(200);
    await expectError(await cancel(test, order.id), 409, "action_not_available");
    expect((await read(test, order.id)).status).toBe("confirming");

    const expired = await createOrder(test, BTC_TO_USDT);
    expect((await help(test, expired.id, "expire")).status).toBe(200);
    await expectError(await cancel(test, expired.id), 409, "action_not_available");
    expect((await read(test, expired.id)).status_reason).toBeNull();
  });

  it("a deposit sent after cancelling is a late deposit: seen, then refunded", async () => {
    const order = await createOrder(test, { ...BTC_TO_USDT, refund_address: BTC_REFUND });
    expect((await cancel(test, order.id)).status).toBe(200);
    expect((await help(test, order.id, "deposit")).status).toBe(200);
    const res = await help(test, order.id, "confirm");
    expect(await json<Order>(res)).toMatchObject({ status: "refunded", status_reason: "late_deposit" });
  });

  it("another partner's order, the other mode's order and no order are the same 404", async () => {
    const order = await createOrder(p, BTC_TO_USDT);
    const other = await createPartner({ name: "cancel-other" });
    await expectError(await cancel(other, order.id), 404, "order_not_found");
    await expectError(await cancel(test, order.id), 404, "order_not_found");
    await expectError(await cancel(p, crypto.randomUUID()), 404, "order_not_found");
    expect((await read(p, order.id)).status).toBe("waiting_deposit");
  });

  it("needs orders:write: a read-only key gets 403 and the order stays", async () => {
    const order = await createOrder(p, BTC_TO_USDT);
    const reader = await keyOf(p, { scopes: ["read"] });
    await expectError(await cancel(reader, order.id), 403, "insufficient_scope");
    expect((await read(p, order.id)).status).toBe("waiting_deposit");
  });
});
