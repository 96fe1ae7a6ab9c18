import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { ALERTS_TABLE } from "../../src/objects/order/alerts";
import { OUTBOX_TABLE } from "../../src/objects/order/outbox";
import { SENDS_TABLE_LATEST } from "../../src/objects/order/sends-ledger";
import { admin, createPartner, setPrices, type TestPartner } from "../helpers";
import {
  BTC_REFUND,
  BTC_TO_USDT,
  createOrder,
  events,
  evict,
  outgoing,
  read,
  simMine,
  simSend,
  startClock,
  statusPath,
  step,
} from "../support/orders";

let partner: TestPartner;

const faults = (network: string, json: Record<string, number>) =>
  admin(`/sim/${network}/faults`, { method: "PUT", json });

beforeAll(async () => {
  partner = await createPartner({ name: "lifecycle", rate_limit_per_minute: 100_000 });
});

beforeEach(async () => {
  vi.useRealTimers();
  await setPrices();
  startClock();
});

afterEach(() => {
  vi.useRealTimers();
});

describe("main path: deposit → confirmations → exchange → payout", () => {
  it("float order completes; every status is observed in order; the payout equals amount_to_actual", async () => {
    const o = await createOrder(partner, BTC_TO_USDT);
    await step(o.id);
    expect((await read(partner, o.id)).status).toBe("waiting_deposit");

    const txid = await simSend("BTC", o.deposit_address, "0.01");
    await step(o.id);
    const confirming = await read(partner, o.id);
    expect(confirming).toMatchObject({
      status: "confirming",
      deposit_txid: txid,
      deposit_confirmations: 0,
      amount_from_received: 0.01,
    });

    await simMine("BTC", 1);
    await step(o.id);
    expect(await read(partner, o.id)).toMatchObject({ status: "confirming", deposit_confirmations: 1 });

    await simMine("BTC", 1);
    await step(o.id);
    const done = await read(partner, o.id);
    // BTC 60000 → USDT: 0.01 × 59700 − 1 = 596
    expect(done).toMatchObject({
      status: "completed",
      amount_to_actual: 596,
      deposit_confirmations: 2,
      status_reason: null,
    });
    expect(done.payout_txid).toMatch(/^[0-9a-f]{64}$/);
    expect(await statusPath(o.id)).toEqual([
      "waiting_deposit",
      "confirming",
      "exchanging",
      "sending",
      "completed",
    ]);
    const log = await events(o.id);
    expect(log.filter((e) => e.from_status === "confirming" && e.to_status === "confirming")).toHaveLength(1);

    const paid = (await outgoing("TRX")).filter((t) => t.order_id === o.id);
    expect(paid).toEqual([
      expect.objectContaining({
        kind: "payout",
        to: BTC_TO_USDT.recipient_address,
        amount: "596",
        coin: "USDT",
        txid: done.payout_txid,
      }),
    ]);
    const row = await env.DB.prepare("SELECT status FROM orders WHERE id = ?").bind(o.id).first();
    expect(row).toEqual({ status: "completed" });

    // Nothing is due any more: more runs change nothing and pay nothing.
    await step(o.id);
    await step(o.id);
    expect((await outgoing("TRX")).filter((t) => t.order_id === o.id)).toHaveLength(1);
  });

  it("recipient_address reads back as given; the payout goes to its canonical form", async () => {
    const checksummed = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94";
    const o = await createOrder(partner, {
      ...BTC_TO_USDT,
      coin_to: "ETH",
      network_to: "ETH",
      recipient_address: checksummed.toLowerCase(),
    });
    expect(o.recipient_address).toBe(checksummed.toLowerCase());
    await simSend("BTC", o.deposit_address, "0.01");
    await simMine("BTC", 2);
    await step(o.id);
    const done = await read(partner, o.id);
    expect(done).toMatchObject({ status: "completed", recipient_address: checksummed.toLowerCase() });
    const paid = (await outgoing("ETH")).filter((t) => t.order_id === o.id);
    expect(paid).toEqual([expect.objectContaining({ kind: "payout", to: checksummed, coin: "ETH" })]);
  });

  it("float orders settle at the rate of the exchange moment", async () => {
    const o = await createOrder(partner, BTC_TO_USDT);
    await simSend("BTC", o.deposit_address, "0.01");
    await simMine("BTC", 2);
    await setPrices({ BTC: "61000" });
    await step(o.id);
    // 0.01 × 61000 × 0.995 − 1 = 605.95
    expect(await read(partner, o.id)).toMatchObject({ status: "completed", amount_to_actual: 605.95 });
  });

  it("fixed order pays exactly amount_to_expected for the expected deposit, whatever the price", async () => {
    const o = await createOrder(partner, { ...BTC_TO_USDT, rate_type: "fixed" });
    await setPrices({ BTC: "50000" });
    await simSend("BTC", o.deposit_address, "0.01");
    await simMine("BTC", 3);
    await step(o.id);
    const done = await read(partner, o.id);
    expect(done).toMatchObject({ status: "completed", amount_to_expected: 593, amount_to_actual: 593 });
  });

  it("a fixed rate holds for a deposit that confirms by expires_at + FIXED_RATE_CONFIRM_MINUTES, not after", async () => {
    const fixed = { ...BTC_TO_USDT, rate_type: "fixed", refund_address: BTC_REFUND };
    const inTime = await createOrder(partner, fixed);
    const late = await createOrder(partner, fixed);
    await simSend("BTC", inTime.deposit_address, "0.01");
    await simSend("BTC", late.deposit_address, "0.01");
    await step(inTime.id);
    await step(late.id);
    expect((await read(partner, late.id)).status).toBe("confirming");

    // Both sit in the mempool past expires_at; the first confirms about 101 minutes after it.
    await step(inTime.id, (30 + 100) * 60_000);
    expect((await read(partner, inTime.id)).status).toBe("confirming");
    await setPrices({ BTC: "50000" });
    await simMine("BTC", 2);
    await step(inTime.id);
    expect(await read(partner, inTime.id)).toMatchObject({ status: "completed", amount_to_actual: 593 });

    // The second is next looked at about 121 minutes after expires_at: the rate no longer holds.
    await step(late.id, 20 * 60_000);
    expect(await read(partner, late.id)).toMatchObject({
      status: "refunded",
      status_reason: "fixed_rate_expired",
      amount_to_actual: null,
    });
    expect((await outgoing("BTC")).filter((t) => t.order_id === late.id)).toEqual([
      expect.objectContaining({ kind: "refund", amount: "0.0099", to: BTC_REFUND }),
    ]);
  });

  it("memo network: a deposit with the wrong tag is not credited; the right tag is", async () => {
    const o = await createOrder(partner, {
      ...BTC_TO_USDT,
      coin_from: "XRP",
      network_from: "XRP",
      amount_from: 100,
    });
    expect(o.deposit_address_tag).toMatch(/^\d+$/);
    await simSend("XRP", o.deposit_address, "100", "999999999");
    await simSend("XRP", o.deposit_address, "100");
    await simMine("XRP", 1);
    await step(o.id);
    expect((await read(partner, o.id)).status).toBe("waiting_deposit");
    await simSend("XRP", o.deposit_address, "100", o.deposit_address_tag);
    await simMine("XRP", 1);
    await step(o.id);
    // XRP 0.5 → USDT 1: 100 × 0.5 × 0.995 − 1 = 48.75
    expect(await read(partner, o.id)).toMatchObject({ status: "completed", amount_to_actual: 48.75 });
  });
});

describe("deposits that cannot be exchanged", () => {
  it("below the minimum with a refund address → refunding → refunded, refund on the source chain", async () => {
    const o = await createOrder(partner, { ...BTC_TO_USDT, refund_address: BTC_REFUND });
    await simSend("BTC", o.deposit_address, "0.0003");
    await simMine("BTC", 2);
    await step(o.id);
    const r = await read(partner, o.id);
    expect(r).toMatchObject({
      status: "refunded",
      status_reason: "amount_below_min",
      amount_from_received: 0.0003,
    });
    expect(r.refund_txid).toMatch(/^[0-9a-f]{64}$/);
    expect(await statusPath(o.id)).toEqual(["waiting_deposit", "confirming", "refunding", "refunded"]);
    // Refund = deposit − BTC network fee 0.0001
    const refunds = (await outgoing("BTC")).filter((t) => t.order_id === o.id);
    expect(refunds).toEqual([
      expect.objectContaining({ kind: "refund", to: BTC_REFUND, amount: "0.0002", txid: r.refund_txid }),
    ]);
  });

  it("below the minimum without a refund address → failed with the reason", async () => {
    const o = await createOrder(partner, BTC_TO_USDT);
    await simSend("BTC", o.deposit_address, "0.0003");
    await simMine("BTC", 2);
    await step(o.id);
    expect(await read(partner, o.id)).toMatchObject({
      status: "failed",
      status_reason: "amount_below_min",
      payout_txid: null,
    });
  });

  it("above the maximum → refunded with amount_above_max", async () => {
    const o = await createOrder(partner, { ...BTC_TO_USDT, refund_address: BTC_REFUND });
    await simSend("BTC", o.deposit_address, "9");
    await simMine("BTC", 2);
    await step(o.id);
    expect(await read(partner, o.id)).toMatchObject({
      status: "refunded",
      status_reason: "amount_above_max",
    });
  });

  it("fixed order: a deposit off by more than the tolerance is refunded (fixed_amount_mismatch); within it, paid at rate_quoted", async () => {
    const off = await createOrder(partner, {
      ...BTC_TO_USDT,
      rate_type: "fixed",
      refund_address: BTC_REFUND,
    });
    await simSend("BTC", off.deposit_address, "0.0102");
    await simMine("BTC", 2);
    await step(off.id);
    expect(await read(partner, off.id)).toMatchObject({
      status: "refunded",
      status_reason: "fixed_amount_mismatch",
    });

    const near = await createOrder(partner, { ...BTC_TO_USDT, rate_type: "fixed" });
    await simSend("BTC", near.deposit_address, "0.01001"); // +0.1%: inside the 10 bps tolerance
    await simMine("BTC", 2);
    await step(near.id);
    // 0.01001 × rate_quoted 59300 = 593.593
    expect(await read(partner, near.id)).toMatchObject({ status: "completed", amount_to_actual: 593.593 });
  });

  it("a late deposit to an expired order is refunded once it has its confirmations", async () => {
    const o = await createOrder(partner, { ...BTC_TO_USDT, refund_address: BTC_REFUND });
    await step(o.id, 31 * 60_000);
    expect((await read(partner, o.id)).status).toBe("expired");
    await simSend("BTC", o.deposit_address, "0.01");
    await step(o.id, 2 * 60_000);
    // In the mempool it could still be dropped: nothing is paid back yet.
    expect((await read(partner, o.id)).status).toBe("expired");
    await simMine("BTC", 1);
    await step(o.id, 2 * 60_000);
    expect((await read(partner, o.id)).status).toBe("expired");
    await simMine("BTC", 1);
    await step(o.id, 2 * 60_000);
    const r = await read(partner, o.id);
    expect(r).toMatchObject({
      status: "refunded",
      status_reason: "late_deposit",
      amount_from_received: 0.01,
    });
    expect((await outgoing("BTC")).filter((t) => t.order_id === o.id)).toEqual([
      expect.objectContaining({ kind: "refund", amount: "0.0099" }),
    ]);
  });

  it("a late deposit that scrolls out of a windowed listing while confirming is still refunded", async () => {
    await faults("BTC", { listing_window_blocks: 1 });
    try {
      const o = await createOrder(partner, { ...BTC_TO_USDT, refund_address: BTC_REFUND });
      await step(o.id, 31 * 60_000);
      expect((await read(partner, o.id)).status).toBe("expired");
      await simSend("BTC", o.deposit_address, "0.01");
      await simMine("BTC", 1);
      await step(o.id, 2 * 60_000);
      expect((await read(partner, o.id)).status).toBe("expired");
      await simMine("BTC", 1); // 2 deep: out of the one-block listing, followed by its block
      await step(o.id, 2 * 60_000);
      expect(await read(partner, o.id)).toMatchObject({ status: "refunded", status_reason: "late_deposit" });
      expect((await outgoing("BTC")).filter((t) => t.order_id === o.id)).toEqual([
        expect.objectContaining({ kind: "refund", amount: "0.0099" }),
      ]);
      expect((await events(o.id)).map((e) => e.reason)).not.toContain(
        "late deposit disappeared before confirming",
      );
    } finally {
      await faults("BTC", {});
    }
  });

  it("a deposit made just before expires_at is credited, not treated as late, even while polls are backed off", async () => {
    const o = await createOrder(partner, { ...BTC_TO_USDT, refund_address: BTC_REFUND });
    // Idle polls back off (2 s × 8 here); the last one runs 5 s before the deadline, so the next is
    // due 11 s after it. The deposit lands in between.
    const deadline = Date.parse(o.expires_at);
    for (let t = 0; t < 29; t++) await step(o.id);
    await step(o.id, deadline - 5_000 - Date.now());
    await simSend("BTC", o.deposit_address, "0.01");
    await step(o.id, 6_000);
    expect(await read(partner, o.id)).toMatchObject({ status: "confirming", status_reason: null });
    await setPrices(); // 30 simulated minutes made the test's prices stale
    await simMine("BTC", 2);
    await step(o.id);
    expect((await read(partner, o.id)).status).toBe("completed");
  });

  it("a late deposit dropped before confirming is never refunded; the watch then ends", async () => {
    const o = await createOrder(partner, { ...BTC_TO_USDT, refund_address: BTC_REFUND });
    await step(o.id, 31 * 60_000);
    const txid = await simSend("BTC", o.deposit_address, "0.01");
    await step(o.id, 2 * 60_000);
    expect((await admin(`/sim/BTC/transfers/${txid}`, { method: "DELETE" })).status).toBe(204);
    await step(o.id, 2 * 60_000);
    await step(o.id, 25 * 3_600_000);
    expect(await read(partner, o.id)).toMatchObject({ status: "expired", refund_txid: null });
    expect((await outgoing("BTC")).filter((t) => t.order_id === o.id)).toEqual([]);
    const log = await events(o.id);
    expect(log.map((e) => e.reason)).toContain("late deposit disappeared before confirming");
  });

  it("a late deposit seen in the last minutes of the watch is refunded when it confirms after it", async () => {
    const o = await createOrder(partner, BTC_TO_USDT);
    await step(o.id, 31 * 60_000);
    await step(o.id, (24 * 60 - 5) * 60_000); // 4 minutes of the watch left
    await simSend("BTC", o.deposit_address, "0.01");
    await step(o.id, 2 * 60_000);
    await step(o.id, 10 * 60_000); // the watch is over; the deposit is still unconfirmed
    expect(await read(partner, o.id)).toMatchObject({ status: "expired" });
    await simMine("BTC", 2);
    await step(o.id, 2 * 60_000);
    // No refund address: the money is held for support, with the reason.
    expect(await read(partner, o.id)).toMatchObject({
      status: "failed",
      status_reason: "late_deposit",
      amount_from_received: 0.01,
    });
  });

  it("a deposit first seen long after expires_at (chain reads failing at the deadline) is handled as late", async () => {
    const o = await createOrder(partner, {
      ...BTC_TO_USDT,
      rate_type: "fixed",
      refund_address: BTC_REFUND,
    });
    await faults("BTC", { read_fail_rate: 1 });
    try {
      await step(o.id, 31 * 60_000);
      await step(o.id, 60 * 60_000);
      expect((await read(partner, o.id)).status).toBe("waiting_deposit");
    } finally {
      await faults("BTC", {});
    }
    await simSend("BTC", o.deposit_address, "0.01");
    await simMine("BTC", 2);
    await step(o.id);
    await step(o.id, 2 * 60_000);
    expect(await read(partner, o.id)).toMatchObject({ status: "refunded", status_reason: "late_deposit" });
    expect((await outgoing("TRX")).filter((t) => t.order_id === o.id)).toEqual([]);
  });

  it("the late-deposit watch ends: nothing is due afterwards", async () => {
    const o = await createOrder(partner, BTC_TO_USDT);
    await step(o.id, 31 * 60_000);
    await step(o.id, 25 * 3_600_000);
    const log = await events(o.id);
    expect(log.at(-1)).toMatchObject({ from_status: "expired", to_status: "expired" });
    expect(await env.ORDERS.getByName(o.id).inspect()).toBeTruthy();
  });
});

describe("deposits that disappear", () => {
  it("dropped from the mempool → back to waiting_deposit with the deposit fields cleared", async () => {
    const o = await createOrder(partner, BTC_TO_USDT);
    const txid = await simSend("BTC", o.deposit_address, "0.01");
    await step(o.id);
    expect((await read(partner, o.id)).status).toBe("confirming");
    expect((await admin(`/sim/BTC/transfers/${txid}`, { method: "DELETE" })).status).toBe(204);
    await step(o.id);
    expect(await read(partner, o.id)).toMatchObject({
      status: "waiting_deposit",
      deposit_txid: null,
      deposit_confirmations: null,
      amount_from_received: null,
    });
    // A new deposit then drives the order to completion.
    await simSend("BTC", o.deposit_address, "0.01");
    await simMine("BTC", 2);
    await step(o.id);
    expect((await read(partner, o.id)).status).toBe("completed");
  });

  it("reorged out → waiting_deposit; past the deadline → expired with deposit_dropped", async () => {
    const o = await createOrder(partner, BTC_TO_USDT);
    await simSend("BTC", o.deposit_address, "0.01");
    await simMine("BTC", 1);
    await step(o.id);
    expect(await read(partner, o.id)).toMatchObject({ status: "confirming", deposit_confirmations: 1 });
    expect((await admin("/sim/BTC/reorg", { method: "POST", json: { depth: 1 } })).status).toBe(200);
    await step(o.id);
    expect((await read(partner, o.id)).status).toBe("waiting_deposit");

    const late = await createOrder(partner, BTC_TO_USDT);
    await simSend("BTC", late.deposit_address, "0.01");
    await simMine("BTC", 1);
    await step(late.id);
    await admin("/sim/BTC/reorg", { method: "POST", json: { depth: 1 } });
    await step(late.id, 31 * 60_000);
    expect(await read(partner, late.id)).toMatchObject({
      status: "expired",
      status_reason: "deposit_dropped",
    });
  });

  it("a confirming deposit that scrolls out of a windowed listing is not dropped; a reorg still drops it", async () => {
    // BTC needs 2 confirmations; the listing shows only the tip block (like the EVM native scan).
    await faults("BTC", { listing_window_blocks: 1 });
    try {
      const o = await createOrder(partner, BTC_TO_USDT);
      await simSend("BTC", o.deposit_address, "0.01");
      await simMine("BTC", 1);
      await step(o.id);
      expect(await read(partner, o.id)).toMatchObject({ status: "confirming", deposit_confirmations: 1 });
      await simMine("BTC", 1); // now 2 deep, outside the window
      await step(o.id);
      expect(await read(partner, o.id)).toMatchObject({ status: "completed", deposit_confirmations: 2 });

      const r = await createOrder(partner, BTC_TO_USDT);
      await simSend("BTC", r.deposit_address, "0.01");
      await simMine("BTC", 1);
      await step(r.id);
      expect((await read(partner, r.id)).status).toBe("confirming");
      expect((await admin("/sim/BTC/reorg", { method: "POST", json: { depth: 1 } })).status).toBe(200);
      await simMine("BTC", 3); // other blocks at the same heights
      await step(r.id);
      expect(await read(partner, r.id)).toMatchObject({ status: "waiting_deposit", deposit_txid: null });
    } finally {
      await faults("BTC", {});
    }
  });

  it("extra deposits after the first are logged, not credited: their refund is offered in actions", async () => {
    const o = await createOrder(partner, BTC_TO_USDT);
    await simSend("BTC", o.deposit_address, "0.01");
    await step(o.id);
    await simSend("BTC", o.deposit_address, "0.5");
    await step(o.id);
    const log = await events(o.id);
    expect(log.filter((e) => e.reason.includes("its refund is offered"))).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ amount: "0.5" }) }),
    ]);
    await simMine("BTC", 2);
    await step(o.id);
    expect(await read(partner, o.id)).toMatchObject({ status: "completed", amount_from_received: 0.01 });
  });

  it("an extra deposit that takes over when the first is dropped is no longer offered for refund", async () => {
    const o = await createOrder(partner, BTC_TO_USDT);
    const first = await simSend("BTC", o.deposit_address, "0.01");
    await step(o.id);
    const second = await simSend("BTC", o.deposit_address, "0.02");
    await step(o.id);
    expect((await admin(`/sim/BTC/transfers/${first}`, { method: "DELETE" })).status).toBe(204);
    await step(o.id); // dropped: back to waiting_deposit
    await step(o.id); // the second deposit now drives the order
    expect(await read(partner, o.id)).toMatchObject({ status: "confirming", deposit_txid: second });
    const reasons = (await events(o.id)).map((e) => e.reason);
    expect(reasons).toContain("extra deposit to this address: its refund is offered in actions");
    expect(reasons).toContain("an extra deposit now drives the order: its refund is no longer offered");
    await simMine("BTC", 2);
    await setPrices(); // five simulated minutes made the test's prices stale
    await step(o.id);
    expect(await read(partner, o.id)).toMatchObject({ status: "completed", amount_from_received: 0.02 });
  });
});

describe("outside failures: retries with backoff, then the failure branch", () => {
  it("payout keeps failing → retried PAYOUT_MAX_ATTEMPTS times → failed (payout_failed), nothing sent", async () => {
    await faults("TRX", { payout_fail_rate: 1 });
    try {
      const o = await createOrder(partner, BTC_TO_USDT);
      await simSend("BTC", o.deposit_address, "0.01");
      await simMine("BTC", 2);
      for (let i = 0; i < 8; i++) {
        await setPrices(); // the cron keeps prices fresh
        await step(o.id, 60_000);
      }
      const r = await read(partner, o.id);
      expect(r).toMatchObject({
        status: "failed",
        status_reason: "payout_failed",
        payout_txid: null,
        // Exchanged but not paid: nothing is shown as paid out; the payout action carries the amount.
        amount_to_actual: null,
      });
      const log = await events(o.id);
      expect(log.filter((e) => e.reason === "payout attempt failed")).toHaveLength(5);
      expect(log.at(-1)).toMatchObject({
        from_status: "sending",
        to_status: "failed",
        data: expect.objectContaining({ attempts: 5 }),
      });
      expect((await outgoing("TRX")).filter((t) => t.order_id === o.id)).toEqual([]);
    } finally {
      await faults("TRX", {});
    }
  });

  it("an unknown payout outcome that lookups cannot resolve waits, alerts the operator, never pays twice", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const o = await createOrder(partner, BTC_TO_USDT);
      await simSend("BTC", o.deposit_address, "0.01");
      await simMine("BTC", 2);
      // The payout is recorded, then the call fails: its outcome is unknown.
      await faults("TRX", { payout_timeout_rate: 1 });
      await step(o.id);
      // And the lookups that would resolve it fail too.
      await faults("TRX", { read_fail_rate: 1 });
      for (let i = 0; i < 8; i++) {
        await setPrices();
        await step(o.id, 31 * 60_000);
      }
      expect((await read(partner, o.id)).status).toBe("sending");
      const alerts = errors.mock.calls.filter((c) => String(c[0]).includes("payout outcome unknown"));
      expect(alerts.length).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(String(alerts[0]?.[0]))).toMatchObject({ level: "error", order: o.id });

      await faults("TRX", {});
      await step(o.id, 31 * 60_000);
      const done = await read(partner, o.id);
      expect(done.status).toBe("completed");
      const paid = (await outgoing("TRX")).filter((t) => t.order_id === o.id);
      expect(paid).toHaveLength(1);
      expect(paid[0]?.txid).toBe(done.payout_txid);
    } finally {
      errors.mockRestore();
      await faults("TRX", {});
    }
  });

  it("retries back off: a failed attempt is not repeated before its backoff has passed", async () => {
    await faults("TRX", { payout_fail_rate: 1 });
    try {
      const o = await createOrder(partner, BTC_TO_USDT);
      await simSend("BTC", o.deposit_address, "0.01");
      await simMine("BTC", 2);
      await step(o.id); // confirms, exchanges, first payout attempt fails
      await step(o.id, 500); // within the 2 s backoff: nothing happens
      let log = await events(o.id);
      expect(log.filter((e) => e.reason.startsWith("payout attempt failed"))).toHaveLength(1);
      await faults("TRX", {});
      await step(o.id, 5_000);
      log = await events(o.id);
      expect((await read(partner, o.id)).status).toBe("completed");
      expect((await outgoing("TRX")).filter((t) => t.order_id === o.id)).toHaveLength(1);
    } finally {
      await faults("TRX", {});
    }
  });

  it("the venue keeps failing → exchange_failed → refunded when there is a refund address", async () => {
    await faults("BTC", { exchange_fail_rate: 1 });
    try {
      const o = await createOrder(partner, { ...BTC_TO_USDT, refund_address: BTC_REFUND });
      await simSend("BTC", o.deposit_address, "0.01");
      await simMine("BTC", 2);
      for (let i = 0; i < 8; i++) {
        await setPrices(); // the cron keeps prices fresh
        await step(o.id, 60_000);
      }
      expect(await read(partner, o.id)).toMatchObject({
        status: "refunded",
        status_reason: "exchange_failed",
        amount_to_actual: null,
      });
      expect(await statusPath(o.id)).toEqual([
        "waiting_deposit",
        "confirming",
        "exchanging",
        "refunding",
        "refunded",
      ]);
      expect((await outgoing("BTC")).filter((t) => t.order_id === o.id)).toEqual([
        expect.objectContaining({ kind: "refund", amount: "0.0099" }),
      ]);
    } finally {
      await faults("BTC", {});
    }
  });

  it("the venue keeps failing and there is no refund address → failed (exchange_failed), nothing sent", async () => {
    await faults("BTC", { exchange_fail_rate: 1 });
    try {
      const o = await createOrder(partner, BTC_TO_USDT);
      await simSend("BTC", o.deposit_address, "0.01");
      await simMine("BTC", 2);
      for (let i = 0; i < 8; i++) {
        await setPrices();
        await step(o.id, 60_000);
      }
      expect(await read(partner, o.id)).toMatchObject({ status: "failed", status_reason: "exchange_failed" });
      expect((await outgoing("BTC")).filter((t) => t.order_id === o.id)).toEqual([]);
      expect((await outgoing("TRX")).filter((t) => t.order_id === o.id)).toEqual([]);
    } finally {
      await faults("BTC", {});
    }
  });

  it("a pair disabled after creation does not hold a confirmed deposit: the exchange fails and it is refunded", async () => {
    const o = await createOrder(partner, { ...BTC_TO_USDT, refund_address: BTC_REFUND });
    await env.DB.prepare(
      "UPDATE currencies SET is_withdraw_enabled = 0 WHERE coin = 'USDT' AND network = 'TRX'",
    ).run();
    try {
      await simSend("BTC", o.deposit_address, "0.01");
      await simMine("BTC", 2);
      for (let i = 0; i < 8; i++) {
        await setPrices();
        await step(o.id, 60_000);
      }
      expect(await read(partner, o.id)).toMatchObject({
        status: "refunded",
        status_reason: "exchange_failed",
      });
    } finally {
      await env.DB.prepare(
        "UPDATE currencies SET is_withdraw_enabled = 1 WHERE coin = 'USDT' AND network = 'TRX'",
      ).run();
    }
  });

  it("a step that throws pauses the alarm instead of re-firing at once", async () => {
    const o = await createOrder(partner, BTC_TO_USDT);
    await faults("BTC", { read_fail_rate: 1 });
    try {
      await step(o.id);
      const alarm = await runInDurableObject(env.ORDERS.getByName(o.id), (_obj, state) =>
        state.storage.getAlarm(),
      );
      expect(alarm).toBeGreaterThanOrEqual(Date.now() + 16_000);
    } finally {
      await faults("BTC", {});
    }
  });

  it("a refund that keeps failing → failed (refund_failed)", async () => {
    await faults("BTC", { payout_fail_rate: 1 });
    try {
      const o = await createOrder(partner, { ...BTC_TO_USDT, refund_address: BTC_REFUND });
      await simSend("BTC", o.deposit_address, "0.0003");
      await simMine("BTC", 2);
      for (let i = 0; i < 8; i++) {
        await setPrices(); // the cron keeps prices fresh
        await step(o.id, 60_000);
      }
      expect(await read(partner, o.id)).toMatchObject({
        status: "failed",
        status_reason: "refund_failed",
        refund_txid: null,
      });
    } finally {
      await faults("BTC", {});
    }
  });

  it("a chain provider outage delays detection but loses nothing", async () => {
    await faults("BTC", { read_fail_rate: 1 });
    const o = await createOrder(partner, BTC_TO_USDT);
    await simSend("BTC", o.deposit_address, "0.01");
    await step(o.id);
    await step(o.id);
    expect((await read(partner, o.id)).status).toBe("waiting_deposit");
    await faults("BTC", {});
    await simMine("BTC", 2);
    await step(o.id);
    expect((await read(partner, o.id)).status).toBe("completed");
  });
});

describe("the order's storage: tables made on first write, or all made up front by an earlier version", () => {
  /** Which of the tables a new order does not write yet the order's storage has. */
  const madeTables = (id: string) =>
    runInDurableObject(env.ORDERS.getByName(id), (_obj, state) =>
      state.storage.sql
        .exec<{ name: string }>(
          "SELECT name FROM sqlite_master WHERE name IN ('sends', 'outbox', 'alerts') ORDER BY name",
        )
        .toArray()
        .map((r) => r.name),
    );

  const cases = [
    { layout: "made on first write", earlier: false, ends: "completed", deposit: "0.01" },
    { layout: "an earlier version's", earlier: true, ends: "completed", deposit: "0.01" },
    { layout: "made on first write", earlier: false, ends: "refunded", deposit: "9" },
    { layout: "an earlier version's", earlier: true, ends: "refunded", deposit: "9" },
  ] as const;
  for (const { layout, earlier, ends, deposit } of cases)
    it(`tables ${layout}: the order ends ${ends}, paying once, with every webhook in order`, async () => {
      const o = await createOrder(partner, { ...BTC_TO_USDT, refund_address: BTC_REFUND });
      await step(o.id);
      const stub = env.ORDERS.getByName(o.id);
      // Either layout as its version leaves it: every order created before 2026-11-27 has all six
      // tables from its constructor, a new one only the tables a creation writes. The object then
      // restarts (a deploy), so nothing of this one's memory is left.
      await runInDurableObject(stub, (_obj, state) =>
        state.storage.sql.exec(
          earlier
            ? `${SENDS_TABLE_LATEST}; ${OUTBOX_TABLE}; ${ALERTS_TABLE};`.replaceAll(
                "CREATE TABLE ",
                "CREATE TABLE IF NOT EXISTS ",
              )
            : "DROP TABLE IF EXISTS sends; DROP TABLE IF EXISTS outbox; DROP TABLE IF EXISTS alerts;",
        ),
      );
      await evict(stub);
      // A waiting order's runs read the outbox and the alerts without making them.
      expect(await madeTables(o.id)).toEqual(earlier ? ["alerts", "outbox", "sends"] : []);
      expect(await stub.webhookEvents()).toEqual([]);

      await simSend("BTC", o.deposit_address, deposit);
      await simMine("BTC", 2);
      for (let i = 0; i < 6; i++) await step(o.id, 120_000);
      expect((await read(partner, o.id)).status).toBe(ends);

      const kind = ends === "completed" ? "payout" : "refund";
      const sent = [...(await outgoing("TRX")), ...(await outgoing("BTC"))].filter(
        (t) => t.order_id === o.id,
      );
      expect(sent.map((t) => t.kind)).toEqual([kind]);
      const hooks = await stub.webhookEvents();
      expect(hooks.map((e) => e.sequence)).toEqual(hooks.map((_e, i) => i + 1));
      expect(hooks.every((e) => e.sent)).toBe(true);
      const last = JSON.parse(hooks.at(-1)?.message.body ?? "{}") as {
        data?: { order?: { status?: string } };
      };
      expect(last.data?.order?.status).toBe(ends);
      expect(await madeTables(o.id)).toEqual(earlier ? ["alerts", "outbox", "sends"] : ["outbox", "sends"]);
    });
});
