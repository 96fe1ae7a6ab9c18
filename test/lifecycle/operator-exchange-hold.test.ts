/**
 * An exchange stuck after a filled leg, settled by the operator (docs/operators.md, "An exchange
 * stuck on the venue"): the hold stops its legs, `resolve` records the hand-made payout or refund,
 * and the service then never trades or pays for the order, whatever the venue does. Against the
 * fake Binance of test/support/fake-venue.ts, counting its POSTs and the payouts SimChain received.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { admin, createPartner, json, setPrices, type TestPartner } from "../helpers";
import { createFakeVenue, type FakeVenue } from "../support/fake-venue";
import {
  BTC_REFUND,
  BTC_TO_USDT,
  createOrder,
  events,
  outgoing,
  read,
  simMine,
  simSend,
  startClock,
  step,
  TRON_ADDR,
} from "../support/orders";

const BTC_TO_TRX = { ...BTC_TO_USDT, coin_to: "TRX", network_to: "TRX", recipient_address: TRON_ADDR };
const HAND_TXID = "c".repeat(64);
const FIVE_MIN = 5 * 60_000;

let partner: TestPartner;
let venue: FakeVenue;

beforeAll(async () => {
  partner = await createPartner({ name: "exchange-hold", rate_limit_per_minute: 100_000 });
});

beforeEach(async () => {
  vi.useRealTimers();
  await setPrices();
  startClock();
  venue = createFakeVenue();
});

afterEach(() => {
  venue.detach();
  vi.useRealTimers();
});

/** An order whose first leg (BTC → USDT) filled and whose second (USDT → TRX) the venue refuses. */
async function stuckOrder() {
  await setPrices(); // fresh at the order's creation, after the steps of an earlier one
  venue.placeFaults.length = 0;
  venue.placeFaults.push("ok", ...Array<"filter">(20).fill("filter"));
  const o = await createOrder(partner, { ...BTC_TO_TRX, refund_address: BTC_REFUND });
  await venue.attach(o.id);
  await simSend("BTC", o.deposit_address, "0.01");
  await simMine("BTC", 2);
  await step(o.id);
  await step(o.id, FIVE_MIN);
  expect(await read(partner, o.id)).toMatchObject({ status: "exchanging" });
  expect(venue.posts.length).toBeGreaterThanOrEqual(2);
  return o;
}

/** The order's schedule rows: a `send:` row wakes it for that send. */
const schedule = (id: string) =>
  runInDurableObject(env.ORDERS.getByName(id), (_o, state) =>
    state.storage.sql
      .exec<{ name: string }>("SELECT name FROM schedule")
      .toArray()
      .map((r) => r.name),
  );

const hold = (id: string) =>
  admin(`/orders/${id}/hold`, { method: "POST", json: { note: "market delisted: settling by hand" } });
/** The payouts and refunds SimChain received for the order. */
const sentFor = async (orderId: string) =>
  [...(await outgoing("TRX")), ...(await outgoing("BTC"))].filter((t) => t.order_id === orderId);

describe("an exchange stuck after a filled leg, settled by the operator", () => {
  it("held: no leg is placed and nothing is paid when the market returns; resolved, it never pays", async () => {
    const o = await stuckOrder();
    const held = await hold(o.id);
    expect(held.status).toBe(200);
    expect(await json<{ status: string }>(held)).toMatchObject({ status: "exchanging" });
    // Nothing wakes the order for its exchange while held (no alarm firing for a step that waits).
    expect(await schedule(o.id)).not.toContain(`send:${o.id}:exchange`);
    const posts = venue.posts.length;
    venue.placeFaults.length = 0; // the market is back
    for (let i = 0; i < 6; i++) await step(o.id, FIVE_MIN);
    expect(venue.posts).toHaveLength(posts);
    expect(await read(partner, o.id)).toMatchObject({ status: "exchanging" });
    expect(await sentFor(o.id)).toEqual([]);

    const resolved = await admin(`/orders/${o.id}/resolve`, {
      method: "POST",
      json: { kind: "payout", txid: HAND_TXID, note: "USDT sold back, user paid from the hot wallet" },
    });
    expect(resolved.status).toBe(200);
    expect(await json(resolved)).toMatchObject({ status: "completed", payout_txid: HAND_TXID });
    for (let i = 0; i < 6; i++) await step(o.id, FIVE_MIN);
    expect(venue.posts).toHaveLength(posts);
    expect(await sentFor(o.id)).toEqual([]);
    const log = await events(o.id);
    expect(log.filter((e) => e.data?.event === "payout_resolved")).toHaveLength(1);
  });

  it("a refund made by hand ends it refunded (exchange_failed); released instead, the exchange goes on and pays once", async () => {
    const refunded = await stuckOrder();
    expect((await hold(refunded.id)).status).toBe(200);
    const res = await admin(`/orders/${refunded.id}/resolve`, {
      method: "POST",
      json: { kind: "refund", txid: HAND_TXID, note: "USDT sold back to BTC, refunded by hand" },
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ status: "refunded", status_reason: "exchange_failed" });
    for (let i = 0; i < 3; i++) await step(refunded.id, FIVE_MIN);
    expect(await sentFor(refunded.id)).toEqual([]);

    const released = await stuckOrder();
    expect((await hold(released.id)).status).toBe(200);
    venue.placeFaults.length = 0;
    await step(released.id, FIVE_MIN);
    expect(await read(partner, released.id)).toMatchObject({ status: "exchanging" });
    expect((await admin(`/orders/${released.id}/hold`, { method: "DELETE" })).status).toBe(200);
    expect(await schedule(released.id)).toContain(`send:${released.id}:exchange`);
    for (let i = 0; i < 4; i++) await step(released.id, FIVE_MIN);
    expect(await read(partner, released.id)).toMatchObject({ status: "completed" });
    expect(venue.filledTwice()).toEqual([]);
    expect(await sentFor(released.id)).toHaveLength(1);
  });
});
