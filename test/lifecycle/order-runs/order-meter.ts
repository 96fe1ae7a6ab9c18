/**
 * ORDER_METER (src/objects/order/meter.ts): an order's object counts its alarms, storage and D1
 * rows written, chain reads and venue calls into its `_meter` table, which the soak's cost table
 * reads. Off, nothing is counted and no table exists.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { type Config, getConfig } from "../../../src/config";
import { createPartner, setPrices, type TestPartner } from "../../helpers";
import { advance, BTC_TO_USDT, createOrder, read, simMine, simSend, startClock } from "../../support/orders";

describe("order meter", () => {
  let partner: TestPartner;
  let config: Config;

  beforeAll(async () => {
    partner = await createPartner({ name: "meter", rate_limit_per_minute: 100_000 });
    // The objects' config, cached per env object (shared by every object in this isolate).
    config = await runInDurableObject(env.ORDERS.getByName("meter-probe"), (obj) =>
      getConfig((obj as unknown as { env: Env }).env),
    );
  });

  beforeEach(async () => {
    vi.useRealTimers();
    await setPrices();
    startClock();
  });

  afterEach(() => {
    config.ORDER_METER = false;
    vi.useRealTimers();
  });

  async function meter(id: string): Promise<Record<string, number>> {
    return runInDurableObject(env.ORDERS.getByName(id), (_obj, state) => {
      const exists = state.storage.sql
        .exec("SELECT name FROM sqlite_master WHERE name = '_meter'")
        .toArray().length;
      if (!exists) return {};
      return Object.fromEntries(
        state.storage.sql
          .exec<{ k: string; n: number }>("SELECT k, n FROM _meter")
          .toArray()
          .map((r) => [r.k, r.n]),
      );
    });
  }

  /** Creation, a deposit, its confirmations and every step to the end, run by alarms. */
  async function completeByAlarms(): Promise<{ id: string; alarms: number }> {
    const o = await createOrder(partner, BTC_TO_USDT);
    await simSend("BTC", o.deposit_address, "0.01");
    await simMine("BTC", 6);
    const stub = env.ORDERS.getByName(o.id);
    let alarms = 0;
    for (; alarms < 30 && (await read(partner, o.id)).status !== "completed"; alarms++) {
      advance(60_000);
      expect(await runDurableObjectAlarm(stub)).toBe(true);
    }
    expect((await read(partner, o.id)).status).toBe("completed");
    return { id: o.id, alarms };
  }

  describe("ORDER_METER", () => {
    it("counts a completed order's alarms, storage and D1 rows written, chain reads and venue calls", async () => {
      config.ORDER_METER = true;
      const run = await completeByAlarms();
      const m = await meter(run.id);
      expect(m.alarms).toBe(run.alarms);
      expect(m[`order:${run.id}`]).toBe(0);
      // Creation alone writes the record, its log row and its schedule; the projection writes D1.
      expect(m.storage_rows_written).toBeGreaterThan(m.alarms!);
      expect(m.d1_rows_written).toBeGreaterThanOrEqual(1);
      expect(m.chain_reads).toBeGreaterThanOrEqual(2);
      expect(m.venue_calls).toBe(1);
    });

    it("off, nothing is counted", async () => {
      expect(await meter((await completeByAlarms()).id)).toEqual({});
    });
  });
});
