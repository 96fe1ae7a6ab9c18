/**
 * The order's webhook outbox (src/objects/order/outbox.ts) over real object storage, with a queue
 * that behaves like Cloudflare Queues at its limit (a sendBatch of more than 100 messages is
 * refused): 250 pending events leave in order, in batches it takes; a failing batch keeps itself
 * and every later event for the next run.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { getConfig } from "../../../src/config";
import type { OrderRecord } from "../../../src/domain/order";
import type { WebhookMessage } from "../../../src/domain/webhooks";
import { orderTables, partnerFeed } from "../../../src/objects/order/context";
import { OrderOutbox } from "../../../src/objects/order/outbox";
import { createPartner, setPrices, type TestPartner } from "../../helpers";
import { BTC_TO_USDT, createOrder } from "../../support/orders";

let partner: TestPartner;
beforeAll(async () => {
  await setPrices();
  partner = await createPartner({ name: "outbox", rate_limit_per_minute: 100_000 });
});

/** Queues' documented batch limit, and a switch to make the next batch fail. */
function limitedQueue() {
  const sent: WebhookMessage[] = [];
  const batches: number[] = [];
  let failAt: number | null = null;
  const queue = {
    async sendBatch(messages: Iterable<MessageSendRequest<WebhookMessage>>) {
      const list = [...messages];
      if (list.length > 100) throw new Error("Queues: a batch holds at most 100 messages");
      if (failAt !== null && batches.length === failAt) throw new Error("queue unavailable");
      batches.push(list.length);
      sent.push(...list.map((m) => m.body));
    },
  } as unknown as Queue;
  return { queue, sent, batches, failOnBatch: (n: number | null) => (failAt = n) };
}

describe("OrderOutbox.flush", () => {
  it("sends 250 pending events in batches of at most 100, in order; a failed batch waits with the rest", async () => {
    const o = await createOrder(partner, BTC_TO_USDT);
    await runInDurableObject(env.ORDERS.getByName(o.id), async (_obj, state) => {
      const q = limitedQueue();
      const outbox = new OrderOutbox(
        orderTables(state.storage.sql).outbox,
        q.queue,
        getConfig(env).CABINET_ORIGIN,
        partnerFeed(state.storage.kv, env),
      );
      const record = state.storage.kv.get<OrderRecord>("order")!;
      // The object's own creation event went out already; these 250 wait.
      const before = outbox.entries().length;
      for (let i = 0; i < 250; i++) outbox.enqueue(record, record.status, new Date().toISOString());

      q.failOnBatch(1);
      await outbox.flush(Date.now(), o.id);
      expect(q.batches).toEqual([100]);
      expect(outbox.entries().filter((e) => !e.sent)).toHaveLength(150);

      q.failOnBatch(null);
      await outbox.flush(Date.now(), o.id);
      expect(q.batches).toEqual([100, 100, 50]);
      expect(outbox.pending()).toBe(false);
      const sequences = q.sent.map((m) => m.sequence);
      expect(sequences).toEqual(Array.from({ length: 250 }, (_, i) => before + i + 1));
    });
  });
});
