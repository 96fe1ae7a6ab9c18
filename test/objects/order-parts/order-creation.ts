/**
 * An order's creation (src/objects/order/creation.ts): once, whatever the concurrency; the first
 * 201 body replayed to the same Idempotency-Key; a conflict for another request under it, `taken`
 * for another creation; nothing written when no deposit address can be had.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { getConfig } from "../../../src/config";
import type { DepositScheme } from "../../../src/domain/deposit";
import { nextPoll } from "../../../src/domain/deposit-tracking";
import type { OrderDraft, OrderRecord } from "../../../src/domain/order";
import { orderIdOf } from "../../../src/domain/order-id";
import { newShortId } from "../../../src/domain/short-id";
import { orderContext } from "../../../src/objects/order/context";
import { CREATED_VIEW, OrderCreation, replayCreation } from "../../../src/objects/order/creation";
import { PROJECTION_RETRY_MS, projectionPending } from "../../../src/objects/order/projection";
import { DUE } from "../../../src/objects/order/schedule";
import { createPartner, setPrices } from "../../helpers";
import { BTC_TO_USDT, createOrder, indexed } from "../../support/orders";

let template: OrderRecord;
beforeAll(async () => {
  await setPrices();
  const partner = await createPartner({ name: "creation", rate_limit_per_minute: 100_000 });
  const o = await createOrder(partner, BTC_TO_USDT);
  const r = await runInDurableObject(env.ORDERS.getByName(o.id), (_obj, state) =>
    state.storage.kv.get<OrderRecord>("order"),
  );
  if (!r) throw new Error("no record");
  template = r;
});

/** A new order's draft under Idempotency-Key `k`, with the request hash `h`. */
function draft(k = "key-1", h = "hash-1"): OrderDraft {
  const { shortId: _s, depositAddress: _a, depositAddressTag: _t, ...rest } = template;
  return { ...rest, id: orderIdOf(newShortId()), idempotencyKey: k, requestHash: h };
}

const btc = (): DepositScheme => ({
  kind: "derive",
  family: "btc",
  xpub: getConfig(env).deposit.xpubs.BTC ?? "",
});
const never = () => false;

const indexVersion = async (id: string) =>
  (await env.DB.prepare("SELECT version FROM orders WHERE id = ?").bind(id).first<{ version: number }>())
    ?.version ?? null;

describe("OrderCreation", () => {
  it("concurrent creations of one order create it once; the later ones replay the first body", async () => {
    const d = draft();
    await runInDurableObject(env.ORDERS.getByName(d.id), async (_obj, state) => {
      const c = orderContext(state.storage, env);
      expect(replayCreation(c, d)).toBeNull();
      const creation = new OrderCreation();
      const [first, second] = await Promise.all([
        creation.create(c, d, btc(), never),
        creation.create(c, d, btc(), never),
      ]);
      expect(first.kind).toBe("created");
      expect(second).toEqual({ ...first, kind: "replayed" });
      expect(await new OrderCreation().create(c, d, btc(), never)).toEqual(second);
      expect(c.kv.get(CREATED_VIEW)).toEqual((first as { order: unknown }).order);
      expect(c.journal.events().map((e) => e.reason)).toEqual(["order created"]);
      expect(c.record()).toMatchObject({ id: d.id, status: "waiting_deposit" });
      // The outbox row, the index projection's backstop, may already be gone with the projection.
      expect(c.schedule.rows().map((r) => r.name)).toEqual(expect.arrayContaining([DUE.expiry, DUE.poll]));
      expect(await state.storage.getAlarm()).not.toBeNull();
    });
    // The index row follows the answer, without waiting for an alarm, at the creation's log row.
    await indexed(d.id);
    expect(await indexVersion(d.id)).toBe(1);
  });

  it("with D1 down, the creation keeps its first rows and the projection's backstop", async () => {
    // Created now, so that nothing is due yet and no alarm moves the rows under test.
    const now = Date.now();
    const d = {
      ...draft("key-5"),
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + 3_600_000).toISOString(),
    };
    await runInDurableObject(env.ORDERS.getByName(d.id), async (_obj, state) => {
      const down = {
        prepare: () => {
          throw new Error("D1 down");
        },
      } as unknown as D1Database;
      const c = orderContext(state.storage, { ...env, DB: down });
      const before = Date.now();
      expect((await new OrderCreation().create(c, d, btc(), never)).kind).toBe("created");
      const after = Date.now();
      // The projection runs after the answer: let it fail.
      await new Promise((r) => setTimeout(r, 50));
      const due = new Map(c.schedule.rows().map((r) => [r.name, r.dueAt]));
      expect(due.get(DUE.poll)).toBe(
        nextPoll(Date.parse(d.createdAt), 0, true, c.config.CHAIN_POLL_SECONDS * 1000).at,
      );
      expect(due.get(DUE.expiry)).toBe(Date.parse(d.expiresAt));
      expect(due.get(DUE.outbox)).toBeGreaterThanOrEqual(before + PROJECTION_RETRY_MS);
      expect(due.get(DUE.outbox)).toBeLessThanOrEqual(after + PROJECTION_RETRY_MS);
      expect(due.size).toBe(3);
      expect(projectionPending(c.kv)).toBe(true);
      // The failed projection re-arms for the earliest of its retry and the first rows.
      expect(await state.storage.getAlarm()).toBe(Math.min(...due.values()));
    });
    expect(await indexVersion(d.id)).toBeNull();
  });

  it("once its index row is written, a new order waits for its first poll or deadline and nothing else", async () => {
    const now = Date.now();
    const d = {
      ...draft("key-6"),
      idempotencyKey: null,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + 3_600_000).toISOString(),
    };
    await runInDurableObject(env.ORDERS.getByName(d.id), async (_obj, state) => {
      const c = orderContext(state.storage, env);
      const armings = vi.spyOn(state.storage, "setAlarm");
      expect((await new OrderCreation().create(c, d, btc(), never)).kind).toBe("created");
      await indexed(d.id);
      await new Promise((r) => setTimeout(r, 20));
      // One alarm write per creation: armed at the first poll or deadline, left there once indexed.
      expect(armings).toHaveBeenCalledTimes(1);
      const poll = nextPoll(now, 0, true, c.config.CHAIN_POLL_SECONDS * 1000).at;
      expect(c.schedule.rows()).toEqual(
        [
          { name: DUE.poll, dueAt: poll },
          { name: DUE.expiry, dueAt: Date.parse(d.expiresAt) },
        ].sort((a, b) => a.dueAt - b.dueAt),
      );
      expect(projectionPending(c.kv)).toBe(false);
      expect(await state.storage.getAlarm()).toBe(Math.min(poll, Date.parse(d.expiresAt)));
      // Without an Idempotency-Key nothing can replay it: no first body is kept.
      expect(c.kv.get(CREATED_VIEW)).toBeUndefined();
    });
    expect(await indexVersion(d.id)).toBe(1);
  });

  it("the same key with another request conflicts; another creation finds the id taken", async () => {
    const d = draft("key-2", "hash-2");
    await runInDurableObject(env.ORDERS.getByName(d.id), async (_obj, state) => {
      const c = orderContext(state.storage, env);
      const created = await new OrderCreation().create(c, d, btc(), never);
      expect(created.kind).toBe("created");
      expect(replayCreation(c, { ...d, requestHash: "other" })).toEqual({ kind: "conflict" });
      expect(replayCreation(c, { ...d, idempotencyKey: "key-3" })).toEqual({ kind: "taken" });
      expect(replayCreation(c, { ...d, idempotencyKey: null })).toEqual({ kind: "taken" });
      // The body first sent, even after the record has moved on.
      c.saveRecord({ ...(c.record() as OrderRecord), status: "expired" });
      expect(replayCreation(c, d)).toEqual({ ...created, kind: "replayed" });
    });
  });

  it("no deposit address: unavailable, and nothing written", async () => {
    const d = draft("key-4");
    await runInDurableObject(env.ORDERS.getByName(d.id), async (_obj, state) => {
      const c = orderContext(state.storage, env);
      expect(await new OrderCreation().create(c, d, { kind: "none", reason: "no xpub" }, never)).toEqual({
        kind: "unavailable",
        reason: "no xpub",
      });
      expect(c.record()).toBeUndefined();
      expect(c.journal.events()).toEqual([]);
      expect(c.schedule.rows()).toEqual([]);
      expect(projectionPending(c.kv)).toBe(false);
    });
  });
});
