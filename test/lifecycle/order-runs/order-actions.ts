/**
 * Order actions (issue 14) over SimChain and a payout gateway that does not deduplicate: each
 * situation → a decision through the partner API → a terminal state with exactly one transfer of
 * the right amount to the right address.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { PartnerView } from "../../../src/objects/order/view";
import { admin, call, createPartner, expectError, json, setPrices, type TestPartner } from "../../helpers";
import { useFakeGateway } from "../../support/fake-gateway";
import {
  BTC_REFUND,
  BTC_TO_USDT,
  createOrder,
  events,
  NEW_BTC,
  type Order,
  read,
  simMine,
  simSend,
  step,
  TRON_ADDR,
} from "../../support/orders";

describe("order actions", () => {
  const NEW_TRON = "TZ1RFjs5gov1Qse96dMz7uCuMvabw7X72i";

  interface Actions {
    reason: string;
    refund: { available: boolean; amount: number | null; address: string | null; requires_address: boolean };
    continue: { available: boolean; amount_to_estimate: number | null; unavailable_reason: string | null };
    payout: { available: boolean; amount: number | null } | null;
  }
  type WithActions = Order & { actions: Actions | null };

  let partner: TestPartner;
  let other: TestPartner;

  beforeAll(async () => {
    partner = await createPartner({ name: "actions", rate_limit_per_minute: 100_000 });
    other = await createPartner({ name: "actions-other", rate_limit_per_minute: 100_000 });
  });

  const fake = useFakeGateway();

  function act(p: TestPartner, id: string, action: string, body: unknown = {}, key?: string) {
    return call(`/api/v1/partner/orders/${id}/${action}`, {
      method: "POST",
      body: JSON.stringify(body),
      headers: {
        Authorization: `Bearer ${p.key}`,
        "content-type": "application/json",
        ...(key ? { "Idempotency-Key": key } : {}),
      },
    });
  }

  /** An order whose deposit has confirmed (and, for an acceptable one, moved on), paying through `gw`. */
  async function deposited(body: Record<string, unknown>, amount: string): Promise<Order> {
    const o = await createOrder(partner, body);
    await fake.attach(o.id);
    await simSend("BTC", o.deposit_address, amount);
    await simMine("BTC", 2);
    await step(o.id);
    return o;
  }

  async function stepUntil(id: string, done: (s: string) => boolean, max = 12): Promise<WithActions> {
    for (let i = 0; i < max; i++) {
      const r = (await read(partner, id)) as WithActions;
      if (done(r.status)) return r;
      await setPrices();
      await step(id, 120_000);
    }
    return (await read(partner, id)) as WithActions;
  }

  const paid = (id: string) => fake.gw.paidFor(id);

  describe("the refund's amount is fixed when it is decided (issue 26, item 7)", () => {
    it("a refund chosen, then the network fee raised before its first send: it pays what was chosen", async () => {
      const o = await deposited(BTC_TO_USDT, "0.0003");
      const held = (await read(partner, o.id)) as WithActions;
      expect(held.actions?.refund.amount).toBe(0.0002);
      // Chosen now; sent by the alarm. The fee changes in between.
      expect((await act(partner, o.id, "refund", { refund_address: NEW_BTC })).status).toBe(200);
      await env.DB.prepare(
        "UPDATE currencies SET withdraw_fee = '0.00015' WHERE coin = 'BTC' AND network = 'BTC'",
      ).run();
      try {
        expect((await stepUntil(o.id, (s) => s === "refunded")).status).toBe("refunded");
      } finally {
        await env.DB.prepare(
          "UPDATE currencies SET withdraw_fee = '0.0001' WHERE coin = 'BTC' AND network = 'BTC'",
        ).run();
      }
      expect(paid(o.id)).toEqual([{ key: `${o.id}:refund`, to: NEW_BTC, amount: "0.0002" }]);
    });
  });

  describe("a deposit below the minimum without a refund address", () => {
    it("waits in failed with its actions; a refund to the address given then pays it back once", async () => {
      const o = await deposited(BTC_TO_USDT, "0.0003");
      const held = (await read(partner, o.id)) as WithActions;
      expect(held).toMatchObject({ status: "failed", status_reason: "amount_below_min" });
      expect(held.actions).toMatchObject({
        reason: "amount_below_min",
        // 0.0003 less BTC's 0.0001 network fee.
        refund: { available: true, amount: 0.0002, address: null, requires_address: true },
        continue: { available: false, amount_to_estimate: null },
        payout: null,
      });
      expect(held.actions?.continue.unavailable_reason).toMatch(/outside the pair's limits/);
      // The failure's webhook already says what can be done.
      const hooks = await env.ORDERS.getByName(o.id).webhookEvents();
      const failedHook = JSON.parse(hooks.at(-1)?.message.body ?? "{}") as { data: { order: WithActions } };
      expect(failedHook.data.order.actions?.refund.amount).toBe(0.0002);

      await expectError(await act(partner, o.id, "refund"), 422, "invalid_address");
      await expectError(
        await act(partner, o.id, "refund", { refund_address: TRON_ADDR }),
        422,
        "invalid_address",
      );
      await expectError(await act(partner, o.id, "continue"), 409, "action_not_available");
      await expectError(
        await act(partner, o.id, "payout", { recipient_address: NEW_TRON }),
        409,
        "action_not_available",
      );
      expect(fake.gw.ops).toEqual([]);

      const res = await act(partner, o.id, "refund", { refund_address: NEW_BTC });
      expect(res.status).toBe(200);
      expect(await json(res)).toMatchObject({ status: "refunding", refund_address: NEW_BTC, actions: null });
      const done = await stepUntil(o.id, (s) => s === "refunded");
      expect(done).toMatchObject({ status: "refunded", status_reason: "amount_below_min", actions: null });
      expect(paid(o.id)).toEqual([{ key: `${o.id}:refund`, to: NEW_BTC, amount: "0.0002" }]);
      expect(done.refund_txid).toBe(fake.gw.payments.get(`${o.id}:refund`)?.[0]?.txid);
      const decision = (await events(o.id)).find((e) => e.data?.event === "refund_chosen");
      expect(decision).toMatchObject({
        from_status: "failed",
        to_status: "refunding",
        data: { decided_by: `key:${partner.keyId}`, refund_address: NEW_BTC, amount: 0.0002 },
      });
      // A decision taken is not offered again.
      await expectError(
        await act(partner, o.id, "refund", { refund_address: NEW_BTC }),
        409,
        "action_not_available",
      );
    });
  });

  describe("a fixed order paid off the tolerance", () => {
    it("continue exchanges it at the float rate now and pays the recipient once", async () => {
      const o = await deposited({ ...BTC_TO_USDT, rate_type: "fixed" }, "0.0102");
      const held = (await read(partner, o.id)) as WithActions;
      expect(held.actions).toMatchObject({ reason: "fixed_amount_mismatch", continue: { available: true } });
      const estimate = held.actions?.continue.amount_to_estimate;
      expect(estimate).toBeGreaterThan(0);
      const res = await act(partner, o.id, "continue");
      expect(res.status).toBe(200);
      expect(await json(res)).toMatchObject({
        status: "exchanging",
        status_reason: null,
        rate_type: "float",
      });
      const done = await stepUntil(o.id, (s) => s === "completed");
      expect(done).toMatchObject({ status: "completed", amount_to_actual: estimate });
      expect(paid(o.id)).toEqual([{ key: `${o.id}:payout`, to: TRON_ADDR, amount: String(estimate) }]);
    });
  });

  describe("decisions are taken once", () => {
    it("a refund and a continue fired together: one wins, the other is 409, one transfer", async () => {
      const o = await deposited({ ...BTC_TO_USDT, rate_type: "fixed" }, "0.0102");
      // Each call that prices the actions waits there for the next one (the partner's read of the
      // order, then the decision's one await), so the two decisions are inside that await together:
      // the interleaving the object's re-read of the record after it guards against.
      const priced = PartnerView.prototype.actionInputs;
      let waiting: (() => void) | null = null;
      let pairs = 0;
      vi.spyOn(PartnerView.prototype, "actionInputs").mockImplementation(async function (
        this: PartnerView,
        ...args: Parameters<PartnerView["actionInputs"]>
      ) {
        const inputs = await priced.apply(this, args);
        if (waiting) {
          pairs++;
          waiting();
          waiting = null;
        } else
          await new Promise<void>((resolve) => {
            waiting = resolve;
            setTimeout(resolve, 2_000);
          });
        return inputs;
      });
      const [a, b] = await Promise.all([
        act(partner, o.id, "refund", { refund_address: NEW_BTC }),
        act(partner, o.id, "continue"),
      ]);
      vi.mocked(PartnerView.prototype.actionInputs).mockRestore();
      expect(pairs, "the reads, then the decisions, were inside their await together").toBe(2);
      expect([a.status, b.status].sort()).toEqual([200, 409]);
      const loser = a.status === 409 ? a : b;
      await expectError(loser, 409, "action_not_available");
      const done = await stepUntil(o.id, (s) => s === "completed" || s === "refunded");
      expect(paid(o.id)).toHaveLength(1);
      expect(paid(o.id)[0]?.key).toBe(done.status === "refunded" ? `${o.id}:refund` : `${o.id}:payout`);
      expect(fake.gw.paidTwice()).toEqual([]);
    });

    it("replay with the same Idempotency-Key: the same body; another decision under it: 409", async () => {
      const o = await deposited({ ...BTC_TO_USDT, rate_type: "fixed" }, "0.0102");
      const first = await act(partner, o.id, "refund", { refund_address: NEW_BTC }, "decide-1");
      expect(first.status).toBe(200);
      const body = await first.text();
      await stepUntil(o.id, (s) => s === "refunded");
      const again = await act(partner, o.id, "refund", { refund_address: NEW_BTC }, "decide-1");
      expect(again.status).toBe(200);
      expect(await again.text()).toBe(body);
      await expectError(await act(partner, o.id, "continue", {}, "decide-1"), 409, "action_not_available");
      expect(paid(o.id)).toHaveLength(1);
    });

    it("another partner's order is not found, and nothing changes", async () => {
      const o = await deposited(BTC_TO_USDT, "0.0003");
      await expectError(
        await act(other, o.id, "refund", { refund_address: NEW_BTC }),
        404,
        "order_not_found",
      );
      await expectError(await act(other, o.short_id, "continue"), 404, "order_not_found");
      expect((await read(partner, o.id)).status).toBe("failed");
    });
  });

  describe("sends that failed for good", () => {
    it("payout_failed by refusal: a payout to another recipient goes out under a new key, once", async () => {
      fake.gw.sendFaults.push("refuse");
      const o = await deposited(BTC_TO_USDT, "0.01");
      const held = await stepUntil(o.id, (s) => s === "failed");
      expect(held.actions).toMatchObject({
        reason: "payout_failed",
        refund: { available: false },
        continue: { available: false },
        // 0.01 BTC → 596 USDT, held: shown in the action, not as paid (amount_to_actual stays null).
        payout: { available: true, amount: 596 },
      });
      expect(held.amount_to_actual).toBeNull();
      await expectError(
        await act(partner, o.id, "refund", { refund_address: NEW_BTC }),
        409,
        "action_not_available",
      );
      await expectError(
        await act(partner, o.id, "payout", { recipient_address: NEW_BTC }),
        422,
        "invalid_address",
      );
      const res = await act(partner, o.id, "payout", { recipient_address: NEW_TRON });
      expect(await json(res)).toMatchObject({ status: "sending", recipient_address: NEW_TRON });
      const done = await stepUntil(o.id, (s) => s === "completed");
      expect(done.status).toBe("completed");
      expect(paid(o.id)).toEqual([{ key: `${o.id}:payout:2`, to: NEW_TRON, amount: "596" }]);
      expect(done.amount_to_actual).toBe(596);
      expect(done.payout_txid).toBe(fake.gw.payments.get(`${o.id}:payout:2`)?.[0]?.txid);
    });

    it("refund_failed: a refund to a new address goes out under a new key, once", async () => {
      fake.gw.sendFaults.push("refuse");
      const o = await deposited({ ...BTC_TO_USDT, refund_address: BTC_REFUND }, "0.0003");
      const held = await stepUntil(o.id, (s) => s === "failed");
      expect(held).toMatchObject({ status_reason: "refund_failed" });
      expect(held.actions?.refund).toMatchObject({ available: true, requires_address: true, address: null });
      await expectError(await act(partner, o.id, "refund"), 422, "invalid_address");
      expect((await act(partner, o.id, "refund", { refund_address: NEW_BTC })).status).toBe(200);
      const done = await stepUntil(o.id, (s) => s === "refunded");
      expect(done).toMatchObject({ status: "refunded", refund_address: NEW_BTC });
      expect(paid(o.id)).toEqual([{ key: `${o.id}:refund:2`, to: NEW_BTC, amount: "0.0002" }]);
    });
  });

  describe("an exchange that failed for good", () => {
    it("continue starts a new exchange under a new ledger key and pays once", async () => {
      await admin("/sim/BTC/faults", { method: "PUT", json: { exchange_fail_rate: 1 } });
      vi.spyOn(console, "error").mockImplementation(() => {});
      let held: WithActions;
      let o: Order;
      try {
        o = await deposited(BTC_TO_USDT, "0.01");
        held = await stepUntil(o.id, (s) => s === "failed");
      } finally {
        await admin("/sim/BTC/faults", { method: "PUT", json: {} });
      }
      expect(held.actions).toMatchObject({ reason: "exchange_failed", continue: { available: true } });
      expect((await act(partner, o.id, "continue")).status).toBe(200);
      const done = await stepUntil(o.id, (s) => s === "completed");
      expect(done.status).toBe("completed");
      expect(paid(o.id)).toEqual([
        { key: `${o.id}:payout`, to: TRON_ADDR, amount: String(done.amount_to_actual) },
      ]);
      const decision = (await events(o.id)).find((e) => e.data?.event === "continue_chosen");
      expect(decision?.data).toMatchObject({ ledger_key: `${o.id}:exchange:2` });
    });
  });

  describe("the operator takes the same decisions", () => {
    it("POST /admin/v1/orders/{id}/continue on a late deposit: exchanged and paid once, logged as the operator's", async () => {
      const o = await createOrder(partner, BTC_TO_USDT);
      await fake.attach(o.id);
      await step(o.id, 31 * 60_000);
      await simSend("BTC", o.deposit_address, "0.01");
      await simMine("BTC", 2);
      const held = await stepUntil(o.id, (s) => s === "failed");
      expect(held.actions).toMatchObject({ reason: "late_deposit", continue: { available: true } });
      await expectError(
        await admin(`/orders/${o.id}/payout`, { method: "POST", json: { recipient_address: NEW_TRON } }),
        409,
        "action_not_available",
      );
      const res = await admin(`/orders/${o.short_id}/continue`, { method: "POST", json: {} });
      expect(res.status).toBe(200);
      const done = await stepUntil(o.id, (s) => s === "completed");
      expect(done.status).toBe("completed");
      expect(paid(o.id)).toEqual([
        { key: `${o.id}:payout`, to: TRON_ADDR, amount: String(done.amount_to_actual) },
      ]);
      const decision = (await events(o.id)).find((e) => e.data?.event === "continue_chosen");
      expect(decision?.data).toMatchObject({ decided_by: "operator", ledger_key: `${o.id}:exchange` });
    });
  });
});
