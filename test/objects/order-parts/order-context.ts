/**
 * What an order object's parts share for one call (src/objects/order/context.ts), the adapters it
 * builds (src/objects/order/adapters.ts), and the parts wired over it (src/objects/order/parts.ts).
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { getConfig } from "../../../src/config";
import type { OrderRecord } from "../../../src/domain/order";
import { catalogMarket } from "../../../src/objects/order/adapters";
import { orderContext } from "../../../src/objects/order/context";
import { OrderParts } from "../../../src/objects/order/parts";
import { DUE } from "../../../src/objects/order/schedule";
import { loadCatalog } from "../../../src/storage/catalog";
import { createPartner, setPrices, type TestPartner } from "../../helpers";
import { BTC_TO_USDT, createOrder, simMine, simSend } from "../../support/orders";

let partner: TestPartner;
beforeAll(async () => {
  await setPrices();
  partner = await createPartner({ name: "context", rate_limit_per_minute: 100_000 });
});

describe("orderContext", () => {
  it("keeps the record, and the order's clock: real time plus what a test order ran ahead", async () => {
    await runInDurableObject(env.ORDERS.getByName(`context-${crypto.randomUUID()}`), async (_obj, state) => {
      const c = orderContext(state.storage, env);
      expect(c.record()).toBeUndefined();
      c.saveRecord({ id: "o" } as OrderRecord);
      expect(orderContext(state.storage, env).record()).toEqual({ id: "o" });
      const before = Date.now();
      c.runAhead(60_000);
      c.runAhead(1_000);
      expect(c.now()).toBeGreaterThanOrEqual(before + 61_000);
      expect(c.now()).toBeLessThan(Date.now() + 62_000);
      // Due moments are on the order's clock, the alarm on real time.
      const due = c.now() + 30_000;
      c.schedule.set(DUE.expiry, due);
      await c.arm(c.now());
      expect(await state.storage.getAlarm()).toBe(due - 61_000);
    });
  });

  it("a part's host may be the context spread: its transitions still write through the one journal", async () => {
    const o = await createOrder(partner, BTC_TO_USDT);
    await runInDurableObject(env.ORDERS.getByName(o.id), (_obj, state) => {
      const c = orderContext(state.storage, env);
      const host = { ...c };
      const r = c.record() as OrderRecord;
      host.note(r, Date.now(), "through a spread host", null);
      expect(host.apply(r, { type: "expire" }, Date.parse(r.expiresAt) + 1)?.status).toBe("expired");
      expect(c.record()?.status).toBe("expired");
      expect(c.journal.events().map((e) => e.reason)).toContain("through a spread host");
    });
  });
});

describe("catalogMarket", () => {
  it("reads withdraw fees from the catalog and refuses a coin it does not list", async () => {
    const market = catalogMarket(env, getConfig(env));
    const usdt = (await loadCatalog(env.DB)).find((c) => c.coin === "USDT" && c.network === "TRX");
    expect(await market.withdrawFee("USDT", "TRX")).toBe(usdt?.withdraw_fee);
    await expect(market.withdrawFee("NOPE", "NOWHERE")).rejects.toThrow(
      "NOPE on NOWHERE is not in the catalog",
    );
  });
});

describe("OrderParts", () => {
  it("a step with no order does nothing", async () => {
    await runInDurableObject(
      env.ORDERS.getByName(`lifecycle-${crypto.randomUUID()}`),
      async (_obj, state) => {
        const o = new OrderParts(state.storage, env);
        await o.step(Date.now());
        expect(o.c.journal.events()).toEqual([]);
        expect(o.c.schedule.rows()).toEqual([]);
      },
    );
  });

  it("a step reads the deposit through the order's adapters and moves the order in its journal", async () => {
    const order = await createOrder(partner, BTC_TO_USDT);
    await simSend("BTC", order.deposit_address, "0.01");
    await simMine("BTC", 1);
    await runInDurableObject(env.ORDERS.getByName(order.id), async (_obj, state) => {
      const o = new OrderParts(state.storage, env);
      await o.step(o.c.now() + 60_000);
      const r = o.c.record() as OrderRecord;
      expect(r.status).not.toBe("waiting_deposit");
      expect(o.c.journal.events().some((e) => e.from_status === "waiting_deposit")).toBe(true);
      expect(o.view.needsAction(r)).toBe(false);
    });
  });
});
