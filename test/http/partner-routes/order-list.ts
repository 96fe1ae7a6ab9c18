// The order list reports what wallets report (docs/orders.md, "Listing orders"): each row of
// GET /partner/orders carries the order's public view — amounts, addresses, txids, each side's
// token and chain id — exactly as GET /partner/orders/{id} shows them, before and after the payout.
import { beforeAll, describe, expect, it } from "vitest";
import { admin, call, createPartner, expectError, json, setPrices } from "../../helpers";
import { BTC_REFUND, BTC_TO_USDT, createOrder, type Order, read } from "../../support/orders";

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
});
