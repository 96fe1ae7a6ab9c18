/**
 * The order's schedule (src/objects/order/schedule.ts): one row per concern, the alarm always at
 * the earliest row (never before a pause), and no alarm once no concern is left.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { DUE, nextAlarm, OrderSchedule } from "../../src/objects/order/schedule";
import { createPartner, setPrices, type TestPartner } from "../helpers";
import { BTC_TO_USDT, createOrder, read, simMine, simSend, startClock, step } from "../support/orders";

describe("nextAlarm", () => {
  const now = 1_000_000;
  /** The alarm for rows given as [name, due in ms from now]. */
  const alarm = (...rows: [string, number][]) =>
    nextAlarm(
      rows.map(([name, inMs]) => ({ name, dueAt: now + inMs })),
      now,
    );

  it("is the earliest row, never before now", () => {
    expect(alarm()).toBeNull();
    expect(alarm([DUE.poll, 5], [DUE.expiry, 3])).toBe(now + 3);
    expect(alarm([DUE.send("k"), -now])).toBe(now);
  });

  it("a pause is a floor, not a reason to wake", () => {
    expect(alarm([DUE.pause, 16])).toBeNull();
    expect(alarm([DUE.pause, 16], [DUE.send("k"), 0])).toBe(now + 16);
    expect(alarm([DUE.pause, 16], [DUE.send("k"), 0], [DUE.poll, 40])).toBe(now + 16);
    expect(alarm([DUE.pause, 16], [DUE.poll, 40])).toBe(now + 40);
  });
});

describe("OrderSchedule in an order's storage", () => {
  it("upserts and clears rows; the alarm follows the earliest, on the order's clock, and goes with the last", async () => {
    const stub = env.ORDERS.getByName(`schedule-${crypto.randomUUID()}`);
    await runInDurableObject(stub, async (_obj, state) => {
      const s = new OrderSchedule(state.storage.sql);
      const now = Date.now();
      s.set(DUE.poll, now + 60_000);
      s.set(DUE.expiry, now + 30_000);
      s.set(DUE.poll, now + 10_000);
      expect(s.get(DUE.poll)).toBe(now + 10_000);
      s.setAll([
        { name: DUE.outbox, dueAt: now + 1 },
        { name: DUE.expiry, dueAt: now + 30_000 },
      ]);
      s.clear(DUE.outbox);
      expect(s.rows().map((r) => r.name)).toEqual([DUE.poll, DUE.expiry]);
      // A test order 5 s ahead: its due moments come 5 s sooner in real time.
      await s.arm(state.storage, now, 5_000);
      expect(await state.storage.getAlarm()).toBe(now + 5_000);
      s.clear(DUE.poll);
      expect(s.get(DUE.poll)).toBeNull();
      await s.arm(state.storage, now, 0);
      expect(await state.storage.getAlarm()).toBe(now + 30_000);
      s.clear(DUE.expiry);
      await s.arm(state.storage, now, 0);
      expect(await state.storage.getAlarm()).toBeNull();
    });
  });
});

describe("an order's schedule over its life", () => {
  let partner: TestPartner;
  beforeAll(async () => {
    partner = await createPartner({ name: "schedule", rate_limit_per_minute: 100_000 });
  });

  const rows = (id: string) =>
    runInDurableObject(env.ORDERS.getByName(id), async (_obj, state) => ({
      rows: new OrderSchedule(state.storage.sql).rows(),
      alarm: await state.storage.getAlarm(),
    }));

  it("polls and the deadline while waiting; after completion the extra-deposit watch and retention; then retention only", async () => {
    await setPrices();
    startClock();
    const o = await createOrder(partner, BTC_TO_USDT);
    await step(o.id, 1_000);
    const waiting = await rows(o.id);
    expect(waiting.rows.map((r) => r.name).sort()).toEqual([DUE.expiry, DUE.poll]);
    expect(waiting.rows.find((r) => r.name === DUE.expiry)?.dueAt).toBe(Date.parse(o.expires_at));
    expect(waiting.alarm).toBe(Math.min(...waiting.rows.map((r) => r.dueAt)));

    await simSend("BTC", o.deposit_address, "0.01");
    await simMine("BTC", 2);
    await step(o.id);
    await step(o.id, 1_000);
    expect((await read(partner, o.id)).status).toBe("completed");
    const completed = await rows(o.id);
    expect(completed.rows.map((r) => r.name)).toEqual([DUE.poll, DUE.retention]);
    expect(completed.alarm).toBe(completed.rows[0]?.dueAt);

    // The order's own alarm comes back for its compaction (docs/operators.md, "Retention").
    await step(o.id, 25 * 3_600_000);
    const ended = await rows(o.id);
    expect(ended.rows.map((r) => r.name)).toEqual([DUE.retention]);
    expect(ended.alarm).toBe(ended.rows[0]?.dueAt);
  });
});
