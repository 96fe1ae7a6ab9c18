import { evictDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { admin, createPartner, setPrices, type TestPartner } from "../helpers";
import {
  advance,
  BTC_REFUND,
  BTC_TO_USDT,
  createOrder,
  type Order,
  outgoing,
  read,
  simMine,
  simSend,
  startClock,
  XRP_ADDR,
} from "../support/orders";

const ORDERS = 200;
const MAX_ROUNDS = 120;

// A deterministic stream for the test's own choices (which order to evict, which amount to send).
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return s / 4294967296;
  };
}

let partner: TestPartner;

beforeAll(async () => {
  partner = await createPartner({ name: "chaos", rate_limit_per_minute: 100_000 });
  await setPrices();
  startClock();
});

afterAll(() => {
  vi.useRealTimers();
});

describe("fault injection", () => {
  it(`${ORDERS} orders under random adapter failures, unknown outcomes and evictions: all terminal, never paid twice`, async () => {
    const random = rng(20261121);
    for (const network of ["BTC", "TRX", "XRP"]) {
      const res = await admin(`/sim/${network}/faults`, {
        method: "PUT",
        json: {
          read_fail_rate: 0.2,
          payout_fail_rate: 0.2,
          payout_timeout_rate: 0.2,
          exchange_fail_rate: 0.2,
          seed: network.length * 7,
        },
      });
      expect(res.status).toBe(200);
    }

    // Plan: a fifth never funded, a fifth underpaid (refund), the rest paid in full; some fixed, some XRP (memo).
    type Plan = {
      body: Record<string, unknown>;
      deposit: string | null;
      expect: "completed" | "refunded" | "expired";
    };
    const plans: Plan[] = Array.from({ length: ORDERS }, (_, i) => {
      const xrp = i % 4 === 3;
      const base = xrp
        ? {
            ...BTC_TO_USDT,
            coin_from: "XRP",
            network_from: "XRP",
            amount_from: 100,
            refund_address: XRP_ADDR,
          }
        : { ...BTC_TO_USDT, refund_address: BTC_REFUND };
      const body = { ...base, rate_type: i % 3 === 0 ? "fixed" : "float" };
      if (i % 5 === 0) return { body, deposit: null, expect: "expired" };
      if (i % 5 === 1) return { body, deposit: xrp ? "5" : "0.0003", expect: "refunded" };
      return { body, deposit: xrp ? "100" : "0.01", expect: "completed" };
    });

    const orders: Order[] = [];
    for (let i = 0; i < ORDERS; i += 50) {
      orders.push(...(await Promise.all(plans.slice(i, i + 50).map((p) => createOrder(partner, p.body)))));
    }
    // Fault injection also hits the operator's reads; deposits go in directly.
    for (const [i, o] of orders.entries()) {
      const deposit = plans[i]?.deposit;
      if (deposit) await simSend(o.network_from, o.deposit_address, deposit, o.deposit_address_tag);
    }

    const live = new Set(orders.map((o) => o.id));
    let rounds = 0;
    for (; rounds < MAX_ROUNDS && live.size > 0; rounds++) {
      await simMine("BTC", 1);
      await simMine("XRP", 1);
      advance(rounds < 60 ? 60_000 : 30 * 60_000);
      await setPrices(); // what the cron's price refresh does every minute
      await Promise.all(
        [...live].map(async (id) => {
          const stub = env.ORDERS.getByName(id);
          if (random() < 0.3) await evictDurableObject(stub);
          await stub.tick();
        }),
      );
      const states = await Promise.all(
        [...live].map(async (id) => ({ id, view: await env.ORDERS.getByName(id).inspect() })),
      );
      for (const { id, view } of states) {
        const status = view?.order.status;
        const done =
          status === "completed" ||
          status === "refunded" ||
          status === "failed" ||
          (status === "expired" && rounds >= 60);
        if (done) live.delete(id);
      }
      if (rounds === 59) advance(25 * 3_600_000); // let the late-deposit watches end
    }
    expect(live.size, `orders still live after ${rounds} rounds`).toBe(0);

    const paid = [...(await outgoing("TRX")), ...(await outgoing("BTC")), ...(await outgoing("XRP"))];
    const byOrder = new Map<string, typeof paid>();
    for (const t of paid) byOrder.set(t.order_id, [...(byOrder.get(t.order_id) ?? []), t]);
    const tally: Record<string, number> = {};

    for (const [i, o] of orders.entries()) {
      const plan = plans[i] as Plan;
      const final = await read(partner, o.id);
      tally[final.status] = (tally[final.status] ?? 0) + 1;
      const sent = byOrder.get(o.id) ?? [];
      expect(sent.length, `order ${o.id} has ${sent.length} outgoing transfers`).toBeLessThanOrEqual(1);
      const log = (await env.ORDERS.getByName(o.id).inspect())?.events ?? [];
      if (final.status === "expired") {
        // Terminal only once its late-deposit watch has ended, and the log says so.
        expect(log.some((e) => e.data?.event === "watch_ended")).toBe(true);
      } else {
        expect(["completed", "refunded", "failed"]).toContain(final.status);
      }
      const row = await env.DB.prepare("SELECT status FROM orders WHERE id = ?")
        .bind(o.id)
        .first<{ status: string }>();
      expect(row?.status, `index of ${o.id}`).toBe(final.status);

      if (plan.expect === "expired") {
        expect(final.status).toBe("expired");
        expect(sent).toEqual([]);
      } else if (final.status === "failed") {
        // Allowed only when every attempt demonstrably failed; then nothing went out.
        expect(["payout_failed", "refund_failed", "exchange_failed"]).toContain(final.status_reason);
        expect(sent).toEqual([]);
      } else if (plan.expect === "completed") {
        expect(
          final.status === "completed" ||
            (final.status === "refunded" && final.status_reason === "exchange_failed"),
        ).toBe(true);
        if (final.status === "completed") {
          expect(sent).toEqual([
            expect.objectContaining({
              kind: "payout",
              txid: final.payout_txid,
              amount: String(final.amount_to_actual),
            }),
          ]);
        } else {
          expect(sent).toEqual([expect.objectContaining({ kind: "refund", txid: final.refund_txid })]);
        }
      } else {
        const reason = plan.body.rate_type === "fixed" ? "fixed_amount_mismatch" : "amount_below_min";
        expect(final).toMatchObject({ status: "refunded", status_reason: reason });
        expect(sent).toEqual([expect.objectContaining({ kind: "refund", txid: final.refund_txid })]);
      }
    }
    // The faults really happened: retried attempts, and payouts whose call failed after they were
    // recorded (unknown outcome) and were then found by lookup instead of being sent again.
    const logs = await Promise.all(
      orders.map(async (o) => (await env.ORDERS.getByName(o.id).inspect())?.events ?? []),
    );
    const retries = logs.flat().filter((e) => e.reason.endsWith("attempt failed"));
    const unknownOutcomes = retries.filter((e) => String(e.data?.error).includes("was recorded"));
    expect(retries.length).toBeGreaterThan(10);
    expect(unknownOutcomes.length).toBeGreaterThan(0);
    console.log(
      `chaos: ${ORDERS} orders settled in ${rounds} rounds:`,
      JSON.stringify(tally),
      `retried attempts ${retries.length}, unknown outcomes resolved by lookup ${unknownOutcomes.length}`,
    );
    expect(tally.completed ?? 0).toBeGreaterThan(ORDERS / 3);
    expect(tally.refunded ?? 0).toBeGreaterThan(ORDERS / 10);
  }, 240_000);
});
