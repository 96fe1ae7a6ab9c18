import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { getConfig } from "../../src/config";
import { sha256Hex } from "../../src/domain/credentials";
import { memoTagCandidate, memoTagName } from "../../src/domain/deposit-allocation";
import { idempotentOrderId, type OrderRecord, orderView } from "../../src/domain/order";
import { idempotentShortId, orderIdOf } from "../../src/domain/order-id";
import { newShortId } from "../../src/domain/short-id";
import { projectOrder } from "../../src/objects/order/projection";
import { canonicalJson } from "../../src/services/orders";
import { call, createPartner, expectError, json, setPrices, type TestPartner } from "../helpers";
import { BTC_TO_USDT, indexed, type Order } from "../support/orders";

let partner: TestPartner;
let other: TestPartner;

beforeAll(async () => {
  await setPrices();
  partner = await createPartner({ name: "ids-a", rate_limit_per_minute: 5000 });
  other = await createPartner({ name: "ids-b", rate_limit_per_minute: 5000 });
});

afterEach(() => {
  vi.useRealTimers();
});

function post(body: unknown, p: TestPartner = partner, headers: Record<string, string> = {}) {
  return call("/api/v1/partner/orders", {
    method: "POST",
    body: JSON.stringify(body),
    headers: { Authorization: `Bearer ${p.key}`, "content-type": "application/json", ...headers },
  });
}
const get = (id: string, p: TestPartner = partner) =>
  call(`/api/v1/partner/orders/${id}`, { headers: { "X-API-Key": p.key } });

const XRP_ORDER = { ...BTC_TO_USDT, coin_from: "XRP", network_from: "XRP", amount_from: 100 };

async function recordOf(id: string): Promise<OrderRecord> {
  const r = await runInDurableObject(env.ORDERS.getByName(id), (_o, state) =>
    state.storage.kv.get<OrderRecord>("order"),
  );
  if (!r) throw new Error(`no record in ${id}`);
  return r;
}

async function indexRows(id: string) {
  const { results } = await env.DB.prepare("SELECT status, version FROM orders WHERE id = ?").bind(id).all();
  return results;
}

/** An order as created before the current id layout: a v4 UUID, a random short_id, a D1 row. */
async function legacyOrder(from: Order, fields: Partial<OrderRecord> = {}): Promise<OrderRecord> {
  const record: OrderRecord = {
    ...(await recordOf(from.id)),
    id: crypto.randomUUID(),
    shortId: newShortId(),
    depositAddress: `legacy-${crypto.randomUUID()}`,
    ...fields,
  };
  await runInDurableObject(env.ORDERS.getByName(record.id), (_o, state) => {
    state.storage.kv.put("order", record);
  });
  await projectOrder(env.DB, record, 1);
  return record;
}

describe("every id form names the order's object", () => {
  it("UUID and short_id, in any case, read the order with its D1 index row gone", async () => {
    const o = await json<Order>(await post(BTC_TO_USDT));
    await indexed(o.id);
    await env.DB.prepare("DELETE FROM orders WHERE id = ?").bind(o.id).run();
    expect(o.id).toBe(orderIdOf(o.short_id));
    const mixed = [...o.short_id].map((ch, i) => (i % 2 ? ch.toLowerCase() : ch)).join("");
    for (const ref of [o.id, o.id.toUpperCase(), o.short_id, o.short_id.toLowerCase(), mixed]) {
      const res = await get(ref);
      expect(res.status).toBe(200);
      expect(await json<Order>(res)).toEqual(o);
    }
    // Ownership is still the object's: another partner gets the same 404 as for no order at all.
    const unknown = await expectError(await get(newShortId()), 404, "order_not_found");
    for (const ref of [o.id, o.short_id]) {
      const foreign = await expectError(await get(ref, other), 404, "order_not_found");
      expect(foreign.detail).toBe(unknown.detail);
    }
  });

  it("orders from before the layout: the UUID reaches the object directly, the short_id falls back to D1", async () => {
    const o = await json<Order>(await post(BTC_TO_USDT));
    const legacy = await legacyOrder(o);
    const view = orderView(legacy, getConfig(env).CABINET_ORIGIN);
    for (const ref of [legacy.id, legacy.id.toUpperCase(), legacy.shortId, legacy.shortId.toLowerCase()]) {
      const res = await get(ref);
      expect(res.status).toBe(200);
      expect(await json(res)).toEqual(JSON.parse(JSON.stringify(view)));
    }
    await expectError(await get(legacy.shortId, other), 404, "order_not_found");
    await expectError(await get(legacy.id, other), 404, "order_not_found");
  });
});

describe("creation writes only the object; the index is projected from it", () => {
  it("the 201 needs no D1 write; the row follows once, and stays once through evictions and replayed alarms", async () => {
    const o = await json<Order>(await post(BTC_TO_USDT));
    const stub = env.ORDERS.getByName(o.id);
    // Evicted before or after its projection ran: the alarm (the projection's backstop) finishes it.
    await evictDurableObject(stub);
    await runDurableObjectAlarm(stub);
    await indexed(o.id);
    for (let i = 0; i < 3; i++) {
      await evictDurableObject(stub);
      await runDurableObjectAlarm(stub);
    }
    expect(await indexRows(o.id)).toEqual([{ status: "waiting_deposit", version: 1 }]);
  });

  it("in order: a transition lands with a higher version, and a late copy of the older projection changes nothing", async () => {
    const o = await json<Order>(await post(BTC_TO_USDT));
    await indexed(o.id);
    const created = await recordOf(o.id);
    vi.useFakeTimers({ now: Date.parse(o.expires_at) + 1, toFake: ["Date"] });
    await runDurableObjectAlarm(env.ORDERS.getByName(o.id));
    vi.useRealTimers();
    await indexed(o.id, "expired");
    const [row] = await indexRows(o.id);
    expect(row?.status).toBe("expired");
    expect(row?.version).toBeGreaterThan(1);
    expect(await projectOrder(env.DB, created, 1)).toBe(false);
    expect(await indexRows(o.id)).toEqual([row]);
  });

  it("is listed right after creation (the list reads the projected index)", async () => {
    const o = await json<Order>(await post(BTC_TO_USDT));
    await indexed(o.id);
    const list = await json<{ data: { id: string }[] }>(
      await call("/api/v1/partner/orders?limit=5", { headers: { "X-API-Key": partner.key } }),
    );
    expect(list.data.map((r) => r.id)).toContain(o.id);
  });
});

describe("Idempotency-Key without an index", () => {
  it("a short_id already taken by another order moves the key to its next id; retries find it there", async () => {
    const key = `taken-${crypto.randomUUID()}`;
    const someone = await json<Order>(await post(BTC_TO_USDT, other));
    const squatted = orderIdOf(idempotentShortId(partner.id, key, 0));
    const theirs = { ...(await recordOf(someone.id)), id: squatted, idempotencyKey: null };
    await runInDurableObject(env.ORDERS.getByName(squatted), (_o, state) => {
      state.storage.kv.put("order", theirs);
    });
    const first = await post(BTC_TO_USDT, partner, { "Idempotency-Key": key });
    expect(first.status).toBe(201);
    const o = await json<Order>(first);
    expect(o.id).toBe(orderIdOf(idempotentShortId(partner.id, key, 1)));
    expect(await json<Order>(await post(BTC_TO_USDT, partner, { "Idempotency-Key": key }))).toEqual(o);
    await expectError(
      await post({ ...BTC_TO_USDT, amount_from: 0.02 }, partner, { "Idempotency-Key": key }),
      422,
      "idempotency_conflict",
    );
  });

  it("a key used before the layout still replays its order (the id the key had then)", async () => {
    const key = `old-${crypto.randomUUID()}`;
    const o = await json<Order>(await post(BTC_TO_USDT));
    const requestHash = await sha256Hex(canonicalJson(BTC_TO_USDT));
    const legacy = await legacyOrder(o, {
      id: await idempotentOrderId(partner.id, key),
      idempotencyKey: key,
      requestHash,
    });
    const res = await post(BTC_TO_USDT, partner, { "Idempotency-Key": key });
    expect(res.status).toBe(201);
    expect((await json<Order>(res)).id).toBe(legacy.id);
    await expectError(
      await post({ ...BTC_TO_USDT, amount_from: 0.02 }, partner, { "Idempotency-Key": key }),
      422,
      "idempotency_conflict",
    );
  });
});

describe("deposit uniqueness without a counter", () => {
  it("a memo tag held by another order is skipped for the next candidate", async () => {
    const key = `tag-${crypto.randomUUID()}`;
    const id = orderIdOf(idempotentShortId(partner.id, key, 0));
    const held = memoTagCandidate(id, 0);
    const holder = env.DEPOSIT_TAGS.getByName(memoTagName("XRP", env.DEPOSIT_ADDRESS_XRP!, held));
    expect(await holder.claim("some-other-order")).toBe(true);
    const o = await json<Order>(await post(XRP_ORDER, partner, { "Idempotency-Key": key }));
    expect(o.id).toBe(id);
    expect(o.deposit_address_tag).toBe(memoTagCandidate(id, 1));
    // The claim is the order's for good: asking again (a retried creation) keeps it.
    const mine = env.DEPOSIT_TAGS.getByName(
      memoTagName("XRP", env.DEPOSIT_ADDRESS_XRP!, memoTagCandidate(id, 1)),
    );
    expect(await mine.claim(id)).toBe(true);
    expect(await mine.claim("some-other-order")).toBe(false);
  });

  // The suite's one burst of concurrent creations (test/http/orders.test.ts had a second, of 200).
  it("200 concurrent creations on derived and memo networks → distinct ids, short ids, addresses and tags; all indexed", async () => {
    const bodies = Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? BTC_TO_USDT : XRP_ORDER));
    const res = await Promise.all(bodies.map((b) => post(b)));
    expect(res.map((r) => r.status)).toEqual(Array(200).fill(201));
    const orders = await Promise.all(res.map((r) => json<Order>(r)));
    expect(new Set(orders.map((o) => o.id)).size).toBe(200);
    expect(new Set(orders.map((o) => o.short_id)).size).toBe(200);
    expect(new Set(orders.map((o) => `${o.deposit_address}/${o.deposit_address_tag}`)).size).toBe(200);
    for (const o of orders) await indexed(o.id);
  }, 120_000); // a loaded 2-core machine needs more than the default 30 s for 200 orders
});
