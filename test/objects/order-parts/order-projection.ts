/**
 * The order's D1 index row (src/objects/order/projection.ts): written as of the log's position,
 * with needs_action; a completed order's earnings fixed once; the pending flag cleared only when the
 * row written is the record's latest, kept (with the outbox row) when D1 fails.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { orderEarnings } from "../../../src/domain/earnings";
import type { OrderRecord } from "../../../src/domain/order";
import { type OrderContext, orderContext } from "../../../src/objects/order/context";
import {
  markProjection,
  PROJECTION_RETRY_MS,
  projectionPending,
  projectRecord,
  scheduleOutbox,
} from "../../../src/objects/order/projection";
import { DUE } from "../../../src/objects/order/schedule";
import { storedUsdPrice } from "../../../src/storage/prices";
import { createPartner, setPrices, type TestPartner } from "../../helpers";
import { BTC_TO_USDT, createOrder, indexed } from "../../support/orders";

let partner: TestPartner;
beforeAll(async () => {
  await setPrices();
  partner = await createPartner({ name: "projection", rate_limit_per_minute: 100_000 });
});

/** Runs `fn` over a new order's context once its first index row is written. */
async function withOrder(fn: (c: OrderContext, r: OrderRecord) => Promise<void>) {
  const o = await createOrder(partner, BTC_TO_USDT);
  await indexed(o.id);
  await runInDurableObject(env.ORDERS.getByName(o.id), async (_obj, state) => {
    const c = orderContext(state.storage, env);
    const r = c.record();
    if (!r) throw new Error("no record");
    await fn(c, r);
  });
}

const row = (id: string) =>
  env.DB.prepare("SELECT status, needs_action, version FROM orders WHERE id = ?").bind(id).first();

describe("projectRecord", () => {
  it("writes the row as of the log's position with needs_action, and clears the flag", async () => {
    await withOrder(async (c, r) => {
      const expired = c.apply(r, { type: "expire" }, Date.parse(r.expiresAt) + 1);
      if (!expired) throw new Error("not expired");
      expect(projectionPending(c.kv)).toBe(true);
      expect(await projectRecord(c, expired, () => true)).toBe("untouched");
      expect(await row(r.id)).toEqual({ status: "expired", needs_action: 1, version: c.journal.version() });
      expect(projectionPending(c.kv)).toBe(false);
    });
  });

  it("a completed order's earnings are fixed once, with the stored price", async () => {
    await withOrder(async (c, r) => {
      const completed: OrderRecord = { ...r, status: "completed", amountFromReceived: "0.01" };
      c.saveRecord(completed);
      // A log row, so the row is written as of a newer version than the created one.
      c.note(completed, Date.now(), "completed", null);
      markProjection(c.kv, c.schedule, Date.now());
      await projectRecord(c, completed, () => false);
      const usd = await storedUsdPrice(env.DB, r.coinFrom);
      const earnings = orderEarnings(completed, completed.updatedAt, usd);
      expect(c.record()?.earnings).toEqual(earnings);
      expect(await row(r.id)).toMatchObject({ status: "completed" });
      // Once fixed, a later projection keeps them.
      await projectRecord(c, c.record() as OrderRecord, () => false);
      expect(c.record()?.earnings).toEqual(earnings);
    });
  });

  it("keeps the flag when the record moved on meanwhile, or when D1 fails", async () => {
    await withOrder(async (c, r) => {
      markProjection(c.kv, c.schedule, Date.now());
      // needs_action is read as the write starts: the record moving on then is "meanwhile".
      const moved = await projectRecord(c, r, (x) => {
        c.saveRecord({ ...x, updatedAt: new Date(Date.parse(x.updatedAt) + 1).toISOString() });
        return false;
      });
      expect(moved).toBe("pending");
      expect(projectionPending(c.kv)).toBe(true);
      const broken = {
        ...c,
        env: {
          ...env,
          DB: {
            prepare: () => {
              throw new Error("D1 down");
            },
          } as unknown as D1Database,
        },
      };
      expect(await projectRecord(broken, c.record() as OrderRecord, () => false)).toBe("pending");
      expect(projectionPending(c.kv)).toBe(true);
    });
  });

  it("a write meanwhile that leaves the record as it was: the record is read back, and the flag cleared", async () => {
    await withOrder(async (c, r) => {
      markProjection(c.kv, c.schedule, Date.now());
      const projected = await projectRecord(c, r, () => {
        c.kv.put("unrelated", 1);
        return false;
      });
      expect(projected).toBe("cleared");
      expect(projectionPending(c.kv)).toBe(false);
    });
  });
});

describe("scheduleOutbox", () => {
  it("keeps the outbox row while anything is left to send, and removes it after", async () => {
    await withOrder(async (c, r) => {
      const now = Date.now();
      markProjection(c.kv, c.schedule, now);
      scheduleOutbox(c, now + 5);
      expect(c.schedule.get(DUE.outbox)).toBe(now + 5 + PROJECTION_RETRY_MS);
      await projectRecord(c, r, () => false);
      expect(c.outbox.pending()).toBe(false);
      scheduleOutbox(c, now);
      expect(c.schedule.get(DUE.outbox)).toBeNull();
    });
  });
});
