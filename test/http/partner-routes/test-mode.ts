/**
 * Test mode through the HTTP surface (docs/test-mode.md): test keys, isolation of test and live
 * orders both ways, the five test helpers and their effects, and every status reached by helpers
 * alone.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { BITCOIN_TESTNET, validateUtxoAddress } from "../../../src/domain/addresses/bitcoin";
import { ORDER_STATUSES } from "../../../src/domain/order-state";
import { admin, call, createPartner, expectError, json, setPrices, type TestPartner } from "../../helpers";
import { BTC_REFUND, BTC_TO_USDT, createOrder, type Order, read, statusPath } from "../../support/orders";

describe("test-mode", () => {
  interface Keyed extends TestPartner {
    testKey: string;
  }

  async function partnerWithTestKey(name: string): Promise<Keyed> {
    const p = await createPartner({ name, rate_limit_per_minute: 100_000 });
    const res = await admin(`/partners/${p.id}/keys`, { method: "POST", json: { mode: "test" } });
    expect(res.status).toBe(201);
    const k = await json<{ key: string; key_id: string; mode: string }>(res);
    expect(k.mode).toBe("test");
    expect(k.key_id).toMatch(/^pk_test_[A-Za-z0-9_-]{16}$/);
    return { ...p, testKey: k.key };
  }

  const asTest = (p: Keyed): TestPartner => ({ ...p, key: p.testKey });

  function helper(key: string, orderId: string, name: string, body?: unknown): Promise<Response> {
    return call(`/api/v1/partner/test/orders/${orderId}/${name}`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }

  async function help(p: Keyed, orderId: string, name: string, body?: unknown): Promise<Order> {
    const res = await helper(p.testKey, orderId, name, body);
    expect(res.status, await res.clone().text()).toBe(200);
    return json<Order>(res);
  }

  const HELPERS = ["deposit", "confirm", "drop-deposit", "expire", "fail"] as const;
  const withRefund = { ...BTC_TO_USDT, refund_address: BTC_REFUND };
  const fixedWithRefund = { ...withRefund, rate_type: "fixed" };

  let a: Keyed;
  let b: Keyed;

  beforeAll(async () => {
    await setPrices();
    a = await partnerWithTestKey("test-mode-a");
    b = await partnerWithTestKey("test-mode-b");
  });

  describe("test keys", () => {
    it("the operator API lists each key's mode; a body-less POST still makes a live key", async () => {
      const listed = await json<{ data: { key_id: string; mode: string }[] }>(
        await admin(`/partners/${a.id}/keys`),
      );
      expect(listed.data.map((k) => k.mode).sort()).toEqual(["live", "test"]);
      expect(listed.data.find((k) => k.mode === "live")?.key_id).toMatch(/^pk_[A-Za-z0-9_-]{16}$/);
      await expectError(
        await admin(`/partners/${a.id}/keys`, { method: "POST", json: { mode: "sandbox" } }),
        400,
        "invalid_request",
      );
    });
  });

  describe("isolation", () => {
    it("a test key never sees live orders and a live key never sees test orders", async () => {
      const live = await createOrder(a, BTC_TO_USDT);
      const test = await createOrder(asTest(a), BTC_TO_USDT);
      expect(live.livemode).toBe(true);
      expect(test.livemode).toBe(false);
      // Same prices in both modes.
      expect(test.amount_to_expected).toBe(live.amount_to_expected);

      for (const ref of [test.id, test.short_id])
        await expectError(
          await call(`/api/v1/partner/orders/${ref}`, { headers: { "X-API-Key": a.key } }),
          404,
          "order_not_found",
        );
      for (const ref of [live.id, live.short_id])
        await expectError(
          await call(`/api/v1/partner/orders/${ref}`, { headers: { "X-API-Key": a.testKey } }),
          404,
          "order_not_found",
        );
      expect((await read(asTest(a), test.id)).livemode).toBe(false);

      const list = async (key: string) =>
        (
          await json<{ data: { id: string; livemode: boolean }[] }>(
            await call("/api/v1/partner/orders?limit=100", { headers: { "X-API-Key": key } }),
          )
        ).data;
      const liveList = await list(a.key);
      const testList = await list(a.testKey);
      expect(liveList.map((o) => o.id)).toContain(live.id);
      expect(liveList.map((o) => o.id)).not.toContain(test.id);
      expect(liveList.every((o) => o.livemode)).toBe(true);
      expect(testList.map((o) => o.id)).toContain(test.id);
      expect(testList.map((o) => o.id)).not.toContain(live.id);
      expect(testList.every((o) => o.livemode === false)).toBe(true);
    });

    it("the same Idempotency-Key under a live and a test key makes two orders", async () => {
      const post = (key: string) =>
        call("/api/v1/partner/orders", {
          method: "POST",
          body: JSON.stringify(BTC_TO_USDT),
          headers: {
            Authorization: `Bearer ${key}`,
            "content-type": "application/json",
            "Idempotency-Key": "same-1",
          },
        });
      const live = await json<Order>(await post(a.key));
      const test = await json<Order>(await post(a.testKey));
      expect(live.id).not.toBe(test.id);
      expect([live.livemode, test.livemode]).toEqual([true, false]);
    });

    it("webhook events carry the order's mode: the test endpoint's, with livemode false", async () => {
      const test = await createOrder(asTest(a), BTC_TO_USDT);
      await help(a, test.id, "deposit");
      const [testEvent] = await env.ORDERS.getByName(test.id).webhookEvents();
      // The outbox routes it to the partner's test-mode endpoint (docs/webhooks.md), never the live one.
      expect(testEvent?.message.mode).toBe("test");
      expect(JSON.parse(testEvent?.message.body ?? "{}").data.order.livemode).toBe(false);
    });
  });

  describe("test helpers", () => {
    it("refuse a live key on every helper with 403 test_mode_only", async () => {
      const test = await createOrder(asTest(a), BTC_TO_USDT);
      for (const name of HELPERS) {
        const body = name === "fail" ? { step: "exchange" } : undefined;
        await expectError(await helper(a.key, test.id, name, body), 403, "test_mode_only");
      }
      expect((await read(asTest(a), test.id)).status).toBe("waiting_deposit");
    });

    it("answer 404 for another partner's test order and for the partner's own live order", async () => {
      const theirs = await createOrder(asTest(b), BTC_TO_USDT);
      const ownLive = await createOrder(a, BTC_TO_USDT);
      for (const name of HELPERS) {
        const body = name === "fail" ? { step: "payout" } : undefined;
        await expectError(await helper(a.testKey, theirs.id, name, body), 404, "order_not_found");
        await expectError(await helper(a.testKey, ownLive.id, name, body), 404, "order_not_found");
      }
      expect((await read(asTest(b), theirs.id)).status).toBe("waiting_deposit");
    });

    it("take an empty body sent as application/json as no body (docs/test-mode.md's curl); bad JSON stays a 400", async () => {
      const o = await createOrder(asTest(a), BTC_TO_USDT);
      const post = (name: string, body: string) =>
        call(`/api/v1/partner/test/orders/${o.id}/${name}`, {
          method: "POST",
          headers: { Authorization: `Bearer ${a.testKey}`, "content-type": "application/json" },
          body,
        });
      const deposited = await post("deposit", "");
      expect(deposited.status, await deposited.clone().text()).toBe(200);
      expect((await json<Order>(deposited)).status).toBe("confirming");
      await expectError(await post("confirm", "{"), 400, "invalid_request");
      const confirmed = await post("confirm", " \n");
      expect(confirmed.status).toBe(200);
      expect((await json<Order>(confirmed)).status).toBe("completed");
      // A required body is still required: `fail` needs its step.
      await expectError(await post("fail", ""), 400, "invalid_request");
    });

    it("deposit: exactly amount_from_expected, 0 confirmations, the order confirming at once", async () => {
      const o = await createOrder(asTest(a), BTC_TO_USDT);
      const after = await help(a, o.id, "deposit");
      expect(after).toMatchObject({
        status: "confirming",
        amount_from_received: 0.01,
        deposit_confirmations: 0,
      });
      expect(after.deposit_txid).toMatch(/^[0-9a-f]{64}$/);
    });

    it("confirm: by default enough blocks to reach deposit_confirmations_required, then completed", async () => {
      const o = await createOrder(asTest(a), BTC_TO_USDT);
      await help(a, o.id, "deposit");
      const one = await help(a, o.id, "confirm", { blocks: 1 });
      expect(one).toMatchObject({ status: "confirming", deposit_confirmations: 1 });
      const done = await help(a, o.id, "confirm");
      expect(done.status).toBe("completed");
      expect(done.payout_txid).toMatch(/^[0-9a-f]{64}$/);
      expect(await statusPath(o.id)).toEqual([
        "waiting_deposit",
        "confirming",
        "exchanging",
        "sending",
        "completed",
      ]);
    });

    it("drop-deposit: the deposit disappears (mempool or reorged out), 409 without one", async () => {
      const o = await createOrder(asTest(a), BTC_TO_USDT);
      await expectError(await helper(a.testKey, o.id, "drop-deposit"), 409, "action_not_available");
      await help(a, o.id, "deposit");
      expect((await help(a, o.id, "drop-deposit")).status).toBe("waiting_deposit");
      await help(a, o.id, "deposit", { confirmations: 1 });
      const dropped = await help(a, o.id, "drop-deposit");
      expect(dropped).toMatchObject({ status: "waiting_deposit", deposit_txid: null });
    });

    it("expire: the order's own clock passes expires_at; other orders keep real time", async () => {
      const o = await createOrder(asTest(a), BTC_TO_USDT);
      const other = await createOrder(asTest(a), BTC_TO_USDT);
      expect((await help(a, o.id, "expire")).status).toBe("expired");
      expect((await read(asTest(a), other.id)).status).toBe("waiting_deposit");
    });

    it("fail: the next attempt of that step fails for good", async () => {
      const ex = await createOrder(asTest(a), withRefund);
      await help(a, ex.id, "fail", { step: "exchange" });
      await help(a, ex.id, "deposit", { confirmations: 2 });
      expect(await read(asTest(a), ex.id)).toMatchObject({
        status: "refunded",
        status_reason: "exchange_failed",
      });

      const pay = await createOrder(asTest(a), BTC_TO_USDT);
      await help(a, pay.id, "fail", { step: "payout" });
      await help(a, pay.id, "deposit", { confirmations: 2 });
      expect(await read(asTest(a), pay.id)).toMatchObject({
        status: "failed",
        status_reason: "payout_failed",
      });

      await expectError(await helper(a.testKey, pay.id, "fail", { step: "sweep" }), 400, "invalid_request");
    });
  });

  describe("every status through helpers only", () => {
    it("completed, refunded after an underpayment, expired, failed, and the steps between", async () => {
      const seen = new Set<string>();
      const note = (o: Order) => {
        seen.add(o.status);
        return o;
      };
      const t = asTest(a);

      // waiting_deposit → confirming → exchanging → sending → completed
      const happy = note(await createOrder(t, BTC_TO_USDT));
      note(await help(a, happy.id, "deposit"));
      expect(note(await help(a, happy.id, "confirm")).status).toBe("completed");
      for (const s of await statusPath(happy.id)) seen.add(s);

      // An underpaid fixed order → refunding → refunded (fixed_amount_mismatch)
      const under = await createOrder(t, fixedWithRefund);
      await help(a, under.id, "deposit", { amount: "0.005" });
      expect(await help(a, under.id, "confirm")).toMatchObject({
        status: "refunded",
        status_reason: "fixed_amount_mismatch",
      });
      expect((await read(t, under.id)).refund_txid).toMatch(/^[0-9a-f]{64}$/);
      for (const s of await statusPath(under.id)) seen.add(s);

      // expired, then a late deposit refunded
      const late = await createOrder(t, withRefund);
      expect(note(await help(a, late.id, "expire")).status).toBe("expired");
      await help(a, late.id, "deposit");
      expect(await help(a, late.id, "confirm")).toMatchObject({
        status: "refunded",
        status_reason: "late_deposit",
      });

      // A fixed order whose deposit confirms after the rate's window: fixed_rate_expired
      const slow = await createOrder(t, fixedWithRefund);
      await help(a, slow.id, "deposit");
      expect((await help(a, slow.id, "expire")).status).toBe("confirming");
      expect(await help(a, slow.id, "confirm")).toMatchObject({
        status: "refunded",
        status_reason: "fixed_rate_expired",
      });

      // A dropped deposit after the deadline: expired with deposit_dropped
      const dropped = await createOrder(t, BTC_TO_USDT);
      await help(a, dropped.id, "deposit");
      await help(a, dropped.id, "expire");
      expect(await help(a, dropped.id, "drop-deposit")).toMatchObject({
        status: "expired",
        status_reason: "deposit_dropped",
      });

      // failed: a refund that fails for good
      const failed = await createOrder(t, fixedWithRefund);
      await help(a, failed.id, "fail", { step: "refund" });
      await help(a, failed.id, "deposit", { amount: "0.02", confirmations: 2 });
      expect(note(await read(t, failed.id))).toMatchObject({
        status: "failed",
        status_reason: "refund_failed",
      });

      // failed, waiting for a decision: an underpaid fixed order without a refund address
      const held = await createOrder(t, { ...BTC_TO_USDT, rate_type: "fixed" });
      await help(a, held.id, "deposit", { amount: "0.005" });
      const waiting = await help(a, held.id, "confirm");
      expect(waiting).toMatchObject({ status: "failed", status_reason: "fixed_amount_mismatch" });
      expect(waiting.actions).not.toBeNull();

      expect([...seen].sort()).toEqual([...ORDER_STATUSES].sort());
    });
  });

  describe("limits", () => {
    it("open and failed test orders count toward the per-partner bound (409 test_order_limit); live orders are not bounded", async () => {
      // A failed test order still holds its test funds, so it counts like an open one.
      for (const status of ["waiting_deposit", "failed"]) {
        const c = await partnerWithTestKey(`test-mode-full-${status}`);
        // 10,000 such test orders in the index, written in one statement.
        await env.DB.prepare(
          `INSERT INTO orders (id, short_id, partner_id, status, coin_from, network_from, coin_to, network_to,
                             deposit_address, deposit_address_tag, created_at, updated_at, expires_at, livemode)
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
         SELECT ?1 || '-' || i, ?1 || i, ?1, ?2, 'BTC', 'BTC', 'USDT', 'TRX',
                'fill-' || ?1 || '-' || i, NULL, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z',
                '2026-01-01T00:30:00.000Z', 0 FROM n`,
        )
          .bind(c.id, status)
          .run();
        const res = await call("/api/v1/partner/orders", {
          method: "POST",
          body: JSON.stringify(BTC_TO_USDT),
          headers: { Authorization: `Bearer ${c.testKey}`, "content-type": "application/json" },
        });
        await expectError(res, 409, "test_order_limit");
        expect((await createOrder(c, BTC_TO_USDT)).livemode).toBe(true);
        // One of them over for good: room for one more.
        await env.DB.prepare("UPDATE orders SET status = 'refunded' WHERE id = ?").bind(`${c.id}-1`).run();
        expect((await createOrder(asTest(c), BTC_TO_USDT)).livemode, status).toBe(false);
      }
    });

    it("a failed test order holding funds stays out of the operator's review queue", async () => {
      const o = await createOrder(asTest(a), BTC_TO_USDT);
      await help(a, o.id, "deposit", { amount: "0.0003" });
      const failed = await help(a, o.id, "confirm");
      expect(failed.status).toBe("failed");
      expect(failed.actions).not.toBeNull();
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await admin(
          `/orders?needs_action=true&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        );
        expect(res.status).toBe(200);
        const page: { data: { id: string }[]; next_cursor: string | null } = await json(res);
        ids.push(...page.data.map((r) => r.id));
        cursor = page.next_cursor;
      } while (cursor);
      expect(ids).not.toContain(o.id);
    });

    it("the operator's resolve of a test order is dated on the order's clock, not real time", async () => {
      const o = await createOrder(asTest(a), BTC_TO_USDT);
      expect((await help(a, o.id, "expire")).status).toBe("expired"); // the clock runs 30 min ahead
      await help(a, o.id, "deposit", { amount: "0.01" });
      const failed = await help(a, o.id, "confirm");
      expect(failed).toMatchObject({ status: "failed", status_reason: "late_deposit" });
      expect(
        (await admin(`/orders/${o.id}/hold`, { method: "POST", json: { note: "by hand" } })).status,
      ).toBe(200);
      const res = await admin(`/orders/${o.id}/resolve`, {
        method: "POST",
        json: { kind: "refund", txid: "d".repeat(64), note: "sent back by hand" },
      });
      expect(res.status).toBe(200);
      const resolved = await json<Order & { updated_at: string }>(res);
      expect(resolved.status).toBe("refunded");
      expect(Date.parse(resolved.updated_at)).toBeGreaterThan(Date.parse(o.expires_at));
    });
  });

  describe("test deposit addresses", () => {
    it("a test BTC order gets a testnet address no live order can have", async () => {
      const test = await createOrder(asTest(a), BTC_TO_USDT);
      expect(test.deposit_address).toMatch(/^tb1q/);
      expect(validateUtxoAddress(BITCOIN_TESTNET, test.deposit_address).ok).toBe(true);
      const live = await createOrder(a, BTC_TO_USDT);
      expect(live.deposit_address).toMatch(/^bc1q/);
    });

    it("a pair without a test deposit key is pair_unavailable in test mode only", async () => {
      const body = { ...BTC_TO_USDT, coin_from: "SOL", network_from: "SOL", amount_from: 1 };
      const res = await call("/api/v1/partner/orders", {
        method: "POST",
        body: JSON.stringify(body),
        headers: { Authorization: `Bearer ${a.testKey}`, "content-type": "application/json" },
      });
      await expectError(res, 400, "pair_unavailable");
    });
  });
});
