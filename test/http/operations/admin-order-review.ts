/**
 * The operator's review queue (GET /admin/v1/orders?needs_action=true) and the record of transfers
 * made by hand (POST /admin/v1/orders/{id}/resolve), through HTTP over SimChain.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { admin, call, createPartner, expectError, json, setPrices, type TestPartner } from "../../helpers";
import { useFakeGateway } from "../../support/fake-gateway";
import {
  BTC_TO_USDT,
  createOrder,
  events,
  NEW_BTC,
  type Order,
  read,
  simMine,
  simSend,
  step,
} from "../../support/orders";

describe("admin-order-review", () => {
  const HAND_TXID = "a".repeat(64);

  interface QueueRow {
    id: string;
    short_id: string;
    partner_id: string;
    status: string;
    created_at: string;
  }
  interface QueuePage {
    data: QueueRow[];
    next_cursor: string | null;
  }

  let partner: TestPartner;

  beforeAll(async () => {
    partner = await createPartner({ name: "review", rate_limit_per_minute: 100_000 });
  });

  const fake = useFakeGateway();

  /** An order whose deposit confirmed: below the minimum and without a refund address, it is held. */
  async function deposited(amount: string, body: Record<string, unknown> = BTC_TO_USDT): Promise<Order> {
    const o = await createOrder(partner, body);
    await simSend("BTC", o.deposit_address, amount);
    await simMine("BTC", 2);
    await step(o.id);
    return o;
  }

  /** The whole queue, page by page, restricted to this file's partner. */
  async function queue(limit = 100): Promise<QueueRow[]> {
    const rows: QueueRow[] = [];
    let cursor: string | null = null;
    do {
      const res = await admin(
        `/orders?needs_action=true&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      expect(res.status).toBe(200);
      const page: QueuePage = await json<QueuePage>(res);
      expect(page.data.length).toBeLessThanOrEqual(limit);
      rows.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor);
    return rows.filter((r) => r.partner_id === partner.id);
  }

  /** Puts the order on the operator's hold (what `resolve` requires). */
  function hold(id: string, operator?: string, note = "settling by hand") {
    return admin(`/orders/${id}/hold`, {
      method: "POST",
      json: { note },
      headers: operator ? { "X-Operator": operator } : {},
    });
  }

  function resolve(id: string, body: unknown, operator?: string) {
    return admin(`/orders/${id}/resolve`, {
      method: "POST",
      json: body,
      headers: operator ? { "X-Operator": operator } : {},
    });
  }

  describe("GET /admin/v1/orders?needs_action=true", () => {
    it("lists every held order oldest first, paged by cursor, and drops one once decided", async () => {
      const held: Order[] = [];
      for (let i = 0; i < 3; i++) held.push(await deposited("0.0003"));
      const paid = await deposited("0.01");
      for (let i = 0; i < 6 && (await read(partner, paid.id)).status !== "completed"; i++) {
        await setPrices();
        await step(paid.id, 120_000);
      }
      expect((await read(partner, paid.id)).status).toBe("completed");
      for (const o of held) expect((await read(partner, o.id)).actions).not.toBeNull();

      const all = await queue(2);
      expect(all.map((r) => r.id)).toEqual(held.map((o) => o.id));
      expect(all[0]).toMatchObject({ short_id: held[0]?.short_id, status: "failed", partner_id: partner.id });
      const created = all.map((r) => r.created_at);
      expect([...created].sort()).toEqual(created);

      // A decision takes the order off the queue once the object has projected it.
      const [first, second, third] = held as [Order, Order, Order];
      const refund = await call(`/api/v1/partner/orders/${first.id}/refund`, {
        method: "POST",
        body: JSON.stringify({ refund_address: NEW_BTC }),
        headers: { Authorization: `Bearer ${partner.key}`, "content-type": "application/json" },
      });
      expect(refund.status).toBe(200);
      await step(first.id);
      expect((await hold(second.short_id)).status).toBe(200);
      expect(
        (await resolve(second.short_id, { kind: "refund", txid: HAND_TXID, note: "sent back" })).status,
      ).toBe(200);
      await step(second.id);
      expect((await queue()).map((r) => r.id)).toEqual([third.id]);
    });

    it("requires the operator, needs_action=true and a cursor it issued", async () => {
      const anon = await call("/admin/v1/orders?needs_action=true");
      expect(anon.status).toBe(401);
      const partnerKey = await call("/admin/v1/orders?needs_action=true", {
        headers: { Authorization: `Bearer ${partner.key}` },
      });
      expect(partnerKey.status).toBe(401);
      await expectError(await admin("/orders"), 400, "invalid_request");
      await expectError(await admin("/orders?needs_action=false"), 400, "invalid_request");
      await expectError(await admin("/orders?needs_action=true&limit=0"), 400, "invalid_request");
      await expectError(await admin("/orders?needs_action=true&cursor=nope"), 400, "invalid_cursor");
    });

    it("runs on the partial index, never a scan of the orders table", async () => {
      const plan = await env.DB.prepare(
        "EXPLAIN QUERY PLAN SELECT id FROM orders WHERE needs_action = 1 AND livemode = 1 AND (created_at, id) > (?, ?) ORDER BY created_at, id LIMIT 5",
      )
        .bind("2026-01-01T00:00:00.000Z", "")
        .all<{ detail: string }>();
      const detail = plan.results.map((r) => r.detail).join("\n");
      expect(detail).toMatch(/orders_needs_action/);
      expect(detail).not.toMatch(/TEMP B-TREE/);
    });
  });

  describe("POST /admin/v1/orders/{id}/resolve", () => {
    it("records a refund made by hand: refunded with the txid, the operator and note logged, no later transfer", async () => {
      const o = await deposited("0.0003");
      await fake.attach(o.id);
      expect((await hold(o.id)).status).toBe(200);
      const res = await resolve(
        o.id,
        { kind: "refund", txid: HAND_TXID, note: "refunded from cold wallet" },
        "alice",
      );
      expect(res.status).toBe(200);
      expect(res.headers.get("Cache-Control")).toBe("no-store");
      const body = await json<Order>(res);
      expect(body).toMatchObject({
        status: "refunded",
        status_reason: "amount_below_min",
        refund_txid: HAND_TXID,
        actions: null,
      });
      expect(await read(partner, o.id)).toMatchObject({
        status: "refunded",
        refund_txid: HAND_TXID,
        actions: null,
      });
      const entry = (await events(o.id)).find((e) => e.data?.event === "refund_resolved");
      expect(entry).toMatchObject({
        from_status: "failed",
        to_status: "refunded",
        data: {
          txid: HAND_TXID,
          decided_by: "operator",
          operator: "token:alice",
          note: "refunded from cold wallet",
        },
      });
      // The same record again answers with the order; anything else is refused.
      const again = await resolve(o.id, { kind: "refund", txid: HAND_TXID, note: "again" });
      expect(again.status).toBe(200);
      expect(await json<Order>(again)).toMatchObject({ status: "refunded", refund_txid: HAND_TXID });
      await expectError(
        await resolve(o.id, { kind: "refund", txid: "b".repeat(64), note: "another" }),
        409,
        "action_not_available",
      );
      await expectError(
        await resolve(o.id, { kind: "payout", txid: HAND_TXID, note: "x" }),
        409,
        "action_not_available",
      );
      await expectError(
        await call(`/api/v1/partner/orders/${o.id}/refund`, {
          method: "POST",
          body: JSON.stringify({ refund_address: NEW_BTC }),
          headers: { Authorization: `Bearer ${partner.key}`, "content-type": "application/json" },
        }),
        409,
        "action_not_available",
      );
      await expectError(
        await admin(`/orders/${o.id}/refund`, { method: "POST", json: { refund_address: NEW_BTC } }),
        409,
        "action_not_available",
      );
      for (let i = 0; i < 3; i++) await step(o.id, 120_000);
      expect(fake.gw.ops).toEqual([]);
      const row = await env.DB.prepare("SELECT status, needs_action FROM orders WHERE id = ?")
        .bind(o.id)
        .first<{ status: string; needs_action: number }>();
      expect(row).toEqual({ status: "refunded", needs_action: 0 });
    });

    it("records a payout made by hand after payout_failed: completed with the txid", async () => {
      fake.gw.sendFaults.push("refuse");
      const o = await createOrder(partner, BTC_TO_USDT);
      await fake.attach(o.id);
      await simSend("BTC", o.deposit_address, "0.01");
      await simMine("BTC", 2);
      for (let i = 0; i < 8 && (await read(partner, o.id)).status !== "failed"; i++) {
        await setPrices();
        await step(o.id, 120_000);
      }
      expect(await read(partner, o.id)).toMatchObject({ status: "failed", status_reason: "payout_failed" });
      expect((await hold(o.id)).status).toBe(200);
      const res = await resolve(o.short_id.toLowerCase(), {
        kind: "payout",
        txid: HAND_TXID,
        note: "paid by hand",
      });
      expect(res.status).toBe(200);
      expect(await json<Order>(res)).toMatchObject({
        status: "completed",
        status_reason: null,
        payout_txid: HAND_TXID,
        actions: null,
      });
      await expectError(
        await admin(`/orders/${o.id}/payout`, {
          method: "POST",
          json: { recipient_address: "TZ1RFjs5gov1Qse96dMz7uCuMvabw7X72i" },
        }),
        409,
        "action_not_available",
      );
      // Only the refused attempt ever reached the gateway.
      expect(fake.gw.ops.filter((op) => op.op === "send")).toHaveLength(1);
      expect(fake.gw.payments.size).toBe(0);
    });

    it("is refused with send_pending while a payout's outcome is unknown at the gateway", async () => {
      vi.spyOn(console, "error").mockImplementation(() => {});
      const o = await createOrder(partner, BTC_TO_USDT);
      await fake.attach(o.id);
      fake.gw.sendFaults.push("pay_later");
      await simSend("BTC", o.deposit_address, "0.01");
      await simMine("BTC", 2);
      for (let i = 0; i < 8 && fake.gw.ops.length === 0; i++) {
        await setPrices();
        await step(o.id, 120_000);
      }
      expect((await read(partner, o.id)).status).toBe("sending");
      const pending = await expectError(
        await resolve(o.id, { kind: "payout", txid: HAND_TXID, note: "paid by hand?" }),
        409,
        "send_pending",
      );
      expect(pending.detail).toContain(`${o.id}:payout`);
      await expectError(
        await resolve(o.id, { kind: "refund", txid: HAND_TXID, note: "refund?" }),
        409,
        "action_not_available",
      );
      // The gateway pays it after all: the order completes with the gateway's txid, not the hand one.
      await fake.gw.settle();
      await step(o.id, 3_600_000);
      const done = await read(partner, o.id);
      expect(done.status).toBe("completed");
      expect(done.payout_txid).toBe(fake.gw.payments.get(`${o.id}:payout`)?.[0]?.txid);
      expect(fake.gw.paidTwice()).toEqual([]);
    });

    it("validates the body, knows the order and requires the operator; bad input changes nothing", async () => {
      const o = await deposited("0.0003");
      const good = { kind: "refund", txid: HAND_TXID, note: "by hand" };
      expect(
        (await call(`/admin/v1/orders/${o.id}/resolve`, { method: "POST", body: JSON.stringify(good) }))
          .status,
      ).toBe(401);
      await expectError(await resolve("00000000-0000-4000-8000-000000000000", good), 404, "order_not_found");
      await expectError(await resolve("ZZZZZZZZZZ", good), 404, "order_not_found");
      for (const bad of [
        { ...good, kind: "exchange" },
        { ...good, txid: "has space" },
        { ...good, txid: "" },
        { ...good, note: " " },
        { kind: "refund", txid: HAND_TXID },
        { ...good, extra: 1 },
      ])
        await expectError(await resolve(o.id, bad), 400, "invalid_request");
      const waiting = await createOrder(partner, BTC_TO_USDT);
      await expectError(await resolve(waiting.id, good), 409, "action_not_available");
      expect((await read(partner, waiting.id)).status).toBe("waiting_deposit");
      expect(await read(partner, o.id)).toMatchObject({ status: "failed", refund_txid: null });
    });
  });

  describe("POST|DELETE /admin/v1/orders/{id}/hold", () => {
    const partnerRefund = (id: string) =>
      call(`/api/v1/partner/orders/${id}/refund`, {
        method: "POST",
        body: JSON.stringify({ refund_address: NEW_BTC }),
        headers: { Authorization: `Bearer ${partner.key}`, "content-type": "application/json" },
      });

    it("while held the partner's decisions are 409 and resolve goes; without the hold resolve is 409; release gives the actions back; audited", async () => {
      const o = await deposited("0.0003");
      await expectError(
        await resolve(o.id, { kind: "refund", txid: HAND_TXID, note: "by hand" }),
        409,
        "action_not_available",
      );
      const held = await hold(o.id, "alice", "paying from the cold wallet");
      expect(held.status).toBe(200);
      expect(await json<Order>(held)).toMatchObject({ status: "failed", status_reason: "amount_below_min" });
      const refused = await expectError(await partnerRefund(o.id), 409, "action_not_available");
      expect(refused.detail).toContain("on hold");
      expect((await hold(o.id, "bob")).status).toBe(200); // already held: nothing changes
      const released = await admin(`/orders/${o.id}/hold`, {
        method: "DELETE",
        headers: { "X-Operator": "alice" },
      });
      expect(released.status).toBe(200);
      await expectError(
        await resolve(o.id, { kind: "refund", txid: HAND_TXID, note: "by hand" }),
        409,
        "action_not_available",
      );
      expect((await partnerRefund(o.id)).status).toBe(200);
      const log = (await events(o.id)).filter((e) => e.reason.startsWith("operator hold"));
      expect(log.map((e) => [e.reason, e.data?.operator])).toEqual([
        ["operator hold", "token:alice"],
        ["operator hold released", "token:alice"],
      ]);
      const audit = await admin(`/audit?entity_type=order&entity_id=${o.id}`);
      expect(audit.status).toBe(200);
      const entries = (await json<{ data: { action: string; operator: string }[] }>(audit)).data;
      expect(entries.map((e) => [e.action, e.operator])).toEqual([
        ["order.release", "token:alice"],
        ["order.hold", "token:alice"],
      ]);
    });

    it("the operator's own decision ends its hold; an extra deposit's refund keeps it while the order's own deposit waits", async () => {
      const o = await deposited("0.0003");
      await simSend("BTC", o.deposit_address, "0.0004");
      await simMine("BTC", 2);
      await step(o.id);
      expect((await hold(o.id)).status).toBe(200);
      const shown = await json<{ actions: { extra_deposits: { deposit: string }[] } }>(
        await admin(`/orders/${o.id}`),
      );
      const [extra] = shown.actions.extra_deposits;
      const operatorRefund = (body: Record<string, unknown>) =>
        admin(`/orders/${o.id}/refund`, { method: "POST", json: { refund_address: NEW_BTC, ...body } });

      const extraRefund = await operatorRefund({ deposit: extra?.deposit });
      expect(extraRefund.status).toBe(200);
      expect(extraRefund.headers.get("X-Operator-Hold")).toMatch(/^kept: the order still waits/);
      await expectError(await partnerRefund(o.id), 409, "action_not_available");

      const own = await operatorRefund({});
      expect(own.status).toBe(200);
      expect(own.headers.get("X-Operator-Hold")).toBe("released");
      expect(await json<Order>(own)).toMatchObject({ status: "refunding" });
      const log = (await events(o.id)).filter((e) => e.reason.startsWith("operator hold"));
      expect(log.map((e) => [e.reason, e.data?.note])).toEqual([
        ["operator hold", "settling by hand"],
        ["operator hold released", "ended by the operator's decision"],
      ]);
      const audit = await json<{ data: { action: string; after: Record<string, unknown> }[] }>(
        await admin(`/audit?entity_type=order&entity_id=${o.id}`),
      );
      expect(
        audit.data.find((e) => e.action === "order.refund" && e.after.status === "refunding")?.after,
      ).toMatchObject({ hold_released: true });
    });

    it("only an order waiting for a decision can be held; unknown orders are 404; the note is required", async () => {
      const waiting = await createOrder(partner, BTC_TO_USDT);
      await expectError(await hold(waiting.id), 409, "action_not_available");
      await expectError(await hold("00000000-0000-4000-8000-000000000000"), 404, "order_not_found");
      await expectError(
        await admin(`/orders/${waiting.id}/hold`, { method: "POST", json: { note: " " } }),
        400,
        "invalid_request",
      );
      expect((await read(partner, waiting.id)).status).toBe("waiting_deposit");
    });
  });

  describe("operator money decisions are audited with the operator", () => {
    const auditOf = async (id: string) =>
      (
        await json<{ data: { operator: string; action: string; after: Record<string, unknown> }[] }>(
          await admin(`/audit?entity_type=order&entity_id=${id}`),
        )
      ).data.map((e) => [e.operator, e.action, e.after.status ?? null]);

    it("a refund decided as operator, and a hold then a resolve", async () => {
      const refunded = await deposited("0.0003");
      const res = await admin(`/orders/${refunded.id}/refund`, {
        method: "POST",
        json: { refund_address: NEW_BTC },
        headers: { "X-Operator": "alice" },
      });
      expect(res.status).toBe(200);
      const after = await json<{ status: string }>(res);
      expect(await auditOf(refunded.id)).toEqual([["token:alice", "order.refund", after.status]]);

      const settled = await deposited("0.0003");
      expect((await hold(settled.id, "bob")).status).toBe(200);
      expect(
        (await resolve(settled.id, { kind: "refund", txid: HAND_TXID, note: "by hand" }, "bob")).status,
      ).toBe(200);
      expect(await auditOf(settled.id)).toEqual([
        ["token:bob", "order.resolve", "refunded"],
        ["token:bob", "order.hold", null],
      ]);
    });
  });
});
