/**
 * Extra deposits (issue 14): a transfer to an order's address beyond the one it runs on gets a
 * refund action of its own, decided through the partner or operator API and paid exactly once
 * through the sends ledger, over SimChain and a payout gateway that does not deduplicate.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { sweepAfterWatch, sweepLostAlarms } from "../../src/services/sweep";
import { admin, call, createPartner, expectError, json, setPrices, type TestPartner } from "../helpers";
import { useFakeGateway } from "../support/fake-gateway";
import {
  advance,
  BTC_REFUND,
  BTC_TO_USDT,
  createOrder,
  events,
  NEW_BTC,
  type Order,
  read,
  simMine,
  simSend,
  step,
} from "../support/orders";

interface ExtraAction {
  deposit: string;
  txid: string;
  index: number;
  amount_received: number;
  refund: { available: boolean; amount: number | null; address: string | null; requires_address: boolean };
}
interface Actions {
  reason: string | null;
  refund: { available: boolean };
  extra_deposits: ExtraAction[];
}
type WithActions = Order & { actions: Actions | null };

let partner: TestPartner;
let other: TestPartner;

beforeAll(async () => {
  partner = await createPartner({ name: "extras", rate_limit_per_minute: 100_000 });
  other = await createPartner({ name: "extras-other", rate_limit_per_minute: 100_000 });
});

const fake = useFakeGateway();

function refund(p: TestPartner, id: string, body: unknown) {
  return call(`/api/v1/partner/orders/${id}/refund`, {
    method: "POST",
    body: JSON.stringify(body),
    headers: { Authorization: `Bearer ${p.key}`, "content-type": "application/json" },
  });
}

async function stepUntil(id: string, done: (o: WithActions) => boolean, max = 12): Promise<WithActions> {
  for (let i = 0; i < max; i++) {
    const r = (await read(partner, id)) as WithActions;
    if (done(r)) return r;
    await setPrices();
    await step(id, 120_000);
  }
  return (await read(partner, id)) as WithActions;
}

const paid = (id: string) => fake.gw.paidFor(id);

async function inQueue(id: string): Promise<boolean> {
  const page = await json<{ data: { id: string }[] }>(await admin("/orders?needs_action=true&limit=100"));
  return page.data.some((r) => r.id === id);
}

/**
 * A completed order (paid 0.01 BTC) with an extra 0.005 BTC deposit seen while it confirmed;
 * `extraConfirmed` false leaves the extra in the mempool.
 */
async function completedWithExtra(
  body: Record<string, unknown> = BTC_TO_USDT,
  extraConfirmed = true,
): Promise<{ o: Order; extra: string; held: WithActions }> {
  const o = await createOrder(partner, body);
  await fake.attach(o.id);
  await simSend("BTC", o.deposit_address, "0.01");
  // Mined before the extra one, so it is the deposit the order runs on.
  await simMine("BTC", extraConfirmed ? 1 : 2);
  const extra = await simSend("BTC", o.deposit_address, "0.005");
  if (extraConfirmed) await simMine("BTC", 2);
  const held = await stepUntil(o.id, (r) => r.status === "completed");
  expect(held.status).toBe("completed");
  await step(o.id); // the projection into the index
  return { o, extra, held };
}

describe("an extra deposit to a completed order", () => {
  it("is offered as a refund of its own; refunded once to the address given, then off the queue", async () => {
    const { o, extra, held } = await completedWithExtra();
    expect(held.actions).toMatchObject({ reason: null, refund: { available: false } });
    const [offer] = held.actions?.extra_deposits ?? [];
    expect(offer).toMatchObject({
      txid: extra,
      amount_received: 0.005,
      // 0.005 less BTC's 0.0001 network fee.
      refund: { available: true, amount: 0.0049, address: null, requires_address: true },
    });
    const deposit = offer?.deposit ?? "";
    expect(deposit).toBe(`${extra}:${offer?.index}`);
    expect(await inQueue(o.id)).toBe(true);

    // Bad input changes nothing.
    await expectError(await refund(partner, o.id, { deposit }), 422, "invalid_address");
    await expectError(
      await refund(partner, o.id, { deposit: "nope", refund_address: NEW_BTC }),
      400,
      "invalid_request",
    );
    await expectError(
      await refund(partner, o.id, { deposit: `${"f".repeat(64)}:0`, refund_address: NEW_BTC }),
      409,
      "action_not_available",
    );
    await expectError(
      await refund(other, o.id, { deposit, refund_address: NEW_BTC }),
      404,
      "order_not_found",
    );
    // The order's own deposit was exchanged: only the extra one can be refunded.
    await expectError(await refund(partner, o.id, { refund_address: NEW_BTC }), 409, "action_not_available");
    const payout = paid(o.id);
    expect(payout).toHaveLength(1);

    const res = await refund(partner, o.id, { deposit, refund_address: NEW_BTC });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ status: "completed", actions: null });
    await expectError(
      await refund(partner, o.id, { deposit, refund_address: NEW_BTC }),
      409,
      "action_not_available",
    );
    await step(o.id);
    const key = `${o.id}:extra:${deposit}`;
    expect(paid(o.id)).toEqual([...payout, { key, to: NEW_BTC, amount: "0.0049" }]);
    expect(fake.gw.paidTwice()).toEqual([]);
    const log = await events(o.id);
    expect(log.find((e) => e.reason === "refund of an extra deposit chosen")?.data).toMatchObject({
      decided_by: `key:${partner.keyId}`,
      deposit,
      refund_address: NEW_BTC,
      amount: 0.0049,
      ledger_key: key,
    });
    expect(log.find((e) => e.reason === "extra deposit refunded")?.data).toMatchObject({
      deposit,
      txid: fake.gw.payments.get(key)?.[0]?.txid,
    });
    expect(await inQueue(o.id)).toBe(false);
    for (let i = 0; i < 3; i++) await step(o.id, 3_600_000);
    expect(paid(o.id)).toHaveLength(2);
  });

  it("defaults to the order's refund address; two refunds fired together pay once", async () => {
    const { o } = await completedWithExtra({ ...BTC_TO_USDT, refund_address: BTC_REFUND });
    const held = (await read(partner, o.id)) as WithActions;
    const deposit = held.actions?.extra_deposits[0]?.deposit ?? "";
    expect(held.actions?.extra_deposits[0]?.refund).toMatchObject({
      address: BTC_REFUND,
      requires_address: false,
    });
    const [a, b] = await Promise.all([
      refund(partner, o.id, { deposit }),
      admin(`/orders/${o.id}/refund`, { method: "POST", json: { deposit, refund_address: NEW_BTC } }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    await expectError(a.status === 409 ? a : b, 409, "action_not_available");
    await step(o.id);
    await step(o.id, 3_600_000);
    const refunds = paid(o.id).filter((p) => p.key.includes(":extra:"));
    expect(refunds).toEqual([
      { key: `${o.id}:extra:${deposit}`, to: a.status === 200 ? BTC_REFUND : NEW_BTC, amount: "0.0049" },
    ]);
    expect(fake.gw.paidTwice()).toEqual([]);
  });

  it("waits for the extra deposit's confirmations before it can be refunded", async () => {
    const { o } = await completedWithExtra(BTC_TO_USDT, false);
    const held = (await read(partner, o.id)) as WithActions;
    const deposit = held.actions?.extra_deposits[0]?.deposit ?? "";
    const early = await expectError(
      await refund(partner, o.id, { deposit, refund_address: NEW_BTC }),
      409,
      "action_not_available",
    );
    expect(early.detail).toMatch(/0 of 2 confirmations/);
    await simMine("BTC", 2);
    expect((await refund(partner, o.id, { deposit, refund_address: NEW_BTC })).status).toBe(200);
    await step(o.id);
    expect(paid(o.id).filter((p) => p.key.includes(":extra:"))).toHaveLength(1);
  });

  it("a refund the gateway refuses is offered again, needing a new address, under a new ledger key", async () => {
    const { o } = await completedWithExtra({ ...BTC_TO_USDT, refund_address: BTC_REFUND });
    const deposit = ((await read(partner, o.id)) as WithActions).actions?.extra_deposits[0]?.deposit ?? "";
    fake.gw.sendFaults.push("refuse");
    expect((await refund(partner, o.id, { deposit })).status).toBe(200);
    await step(o.id);
    const again = (await read(partner, o.id)) as WithActions;
    expect(again.actions?.extra_deposits[0]).toMatchObject({
      deposit,
      refund: { available: true, address: null, requires_address: true },
    });
    await step(o.id);
    expect(await inQueue(o.id)).toBe(true);
    await expectError(await refund(partner, o.id, { deposit }), 422, "invalid_address");
    expect((await refund(partner, o.id, { deposit, refund_address: NEW_BTC })).status).toBe(200);
    await step(o.id);
    expect(paid(o.id).filter((p) => p.key.includes(":extra:"))).toEqual([
      { key: `${o.id}:extra:${deposit}:2`, to: NEW_BTC, amount: "0.0049" },
    ]);
    expect((await read(partner, o.id)).actions).toBeNull();
  });
});

const faults = (network: string, body: Record<string, number>) =>
  admin(`/sim/${network}/faults`, { method: "PUT", json: body });

/** The extra deposits the order offers now, by txid. */
async function offered(id: string): Promise<Map<string, ExtraAction>> {
  const o = (await read(partner, id)) as WithActions;
  return new Map((o.actions?.extra_deposits ?? []).map((e) => [e.txid, e]));
}

/** Refunds each deposit once (a second request is refused), then lets the alarm pay. */
async function refundEach(id: string, txids: string[]): Promise<void> {
  const offers = await offered(id);
  for (const txid of txids) {
    const deposit = offers.get(txid)?.deposit ?? "";
    expect((await refund(partner, id, { deposit, refund_address: NEW_BTC })).status).toBe(200);
    await expectError(
      await refund(partner, id, { deposit, refund_address: NEW_BTC }),
      409,
      "action_not_available",
    );
  }
  for (let i = 0; i < 3; i++) await step(id, 120_000);
}

describe("alerts of two extra deposits' refunds (issue 42)", () => {
  it("each refund's alert is about its own ledger key: one answered clears only its own", async () => {
    const o = await createOrder(partner, BTC_TO_USDT);
    await fake.attach(o.id);
    await simSend("BTC", o.deposit_address, "0.01");
    await simMine("BTC", 1);
    const extras = [
      await simSend("BTC", o.deposit_address, "0.002"),
      await simSend("BTC", o.deposit_address, "0.003"),
    ];
    await simMine("BTC", 2);
    expect((await stepUntil(o.id, (r) => r.status === "completed")).status).toBe("completed");
    const offers = await offered(o.id);
    const keys: string[] = [];
    for (const txid of extras) {
      const res = await refund(partner, o.id, {
        deposit: offers.get(txid)?.deposit,
        refund_address: NEW_BTC,
      });
      expect(res.status).toBe(200);
      const log = await events(o.id);
      keys.push(
        String(log.findLast((e) => e.reason === "refund of an extra deposit chosen")?.data?.ledger_key),
      );
    }
    const openAlerts = async () =>
      (
        await env.DB.prepare(
          "SELECT kind, ledger_key FROM alerts WHERE order_id = ? AND open = 1 ORDER BY ledger_key",
        )
          .bind(o.id)
          .all()
      ).results;
    // Our credentials refused on both sends: one configuration alert each.
    fake.gw.sendFaults.push("401", "401");
    await step(o.id, 120_000);
    const [first, second] = [...keys].sort();
    expect(await openAlerts()).toEqual([
      { kind: "extra_refund_gateway_config", ledger_key: first },
      { kind: "extra_refund_gateway_config", ledger_key: second },
    ]);
    // The first (sends go in key order) goes through; the second is refused again: its alert stays.
    fake.gw.sendFaults.push("ok", "401");
    await step(o.id, 120_000);
    expect(await openAlerts()).toEqual([{ kind: "extra_refund_gateway_config", ledger_key: second }]);
  });
});

describe("the address is watched after the exchange starts and after refunded (finding 4)", () => {
  it("deposits during exchanging, sending and after completed are each offered and refunded once", async () => {
    const o = await createOrder(partner, BTC_TO_USDT);
    await fake.attach(o.id);
    await faults("BTC", { exchange_fail_rate: 1 });
    let duringExchange: string;
    try {
      await simSend("BTC", o.deposit_address, "0.01");
      await simMine("BTC", 2);
      await step(o.id);
      expect((await read(partner, o.id)).status).toBe("exchanging");
      duringExchange = await simSend("BTC", o.deposit_address, "0.002");
      await step(o.id, 120_000);
      expect((await read(partner, o.id)).status).toBe("exchanging");
      expect([...(await offered(o.id)).keys()]).toEqual([duringExchange]);
    } finally {
      await faults("BTC", {});
    }
    fake.gw.sendFaults.push("5xx", "5xx", "5xx");
    expect((await stepUntil(o.id, (r) => r.status !== "exchanging")).status).toBe("sending");
    const duringSend = await simSend("BTC", o.deposit_address, "0.003");
    await setPrices();
    await step(o.id, 120_000);
    expect((await read(partner, o.id)).status).toBe("sending");
    expect([...(await offered(o.id)).keys()].sort()).toEqual([duringExchange, duringSend].sort());
    const done = await stepUntil(o.id, (r) => r.status === "completed");
    expect(done.status).toBe("completed");
    const afterCompleted = await simSend("BTC", o.deposit_address, "0.004");
    await simMine("BTC", 2);
    await step(o.id, 120_000);
    const extras = [duringExchange, duringSend, afterCompleted];
    expect([...(await offered(o.id)).keys()].sort()).toEqual([...extras].sort());
    // The order ran on its first deposit only.
    expect(await read(partner, o.id)).toMatchObject({ status: "completed", amount_from_received: 0.01 });

    await refundEach(o.id, extras);
    const refunds = paid(o.id).filter((p) => p.key.includes(":extra:"));
    expect(refunds.map((p) => p.amount).sort()).toEqual(["0.0019", "0.0029", "0.0039"]);
    expect(new Set(refunds.map((p) => p.key)).size).toBe(3);
    expect(paid(o.id).filter((p) => !p.key.includes(":extra:"))).toHaveLength(1);
    expect(fake.gw.paidTwice()).toEqual([]);
    expect((await read(partner, o.id)).actions).toBeNull();
  });

  it("a deposit after refunded is offered and refunded once; none after the watch ends", async () => {
    const o = await createOrder(partner, { ...BTC_TO_USDT, refund_address: BTC_REFUND });
    await fake.attach(o.id);
    // Below the pair's minimum: refunded.
    await simSend("BTC", o.deposit_address, "0.0003");
    await simMine("BTC", 2);
    const refunded = await stepUntil(o.id, (r) => r.status === "refunded");
    expect(refunded).toMatchObject({ status: "refunded", actions: null });
    const late = await simSend("BTC", o.deposit_address, "0.002");
    await simMine("BTC", 2);
    await step(o.id, 120_000);
    expect([...(await offered(o.id)).keys()]).toEqual([late]);
    expect(await inQueue(o.id)).toBe(true);

    await refundEach(o.id, [late]);
    expect(paid(o.id)).toEqual([
      { key: `${o.id}:refund`, to: BTC_REFUND, amount: "0.0002" },
      { key: expect.stringContaining(`${o.id}:extra:${late}:`), to: NEW_BTC, amount: "0.0019" },
    ]);
    expect((await read(partner, o.id)).actions).toBeNull();

    // LATE_DEPOSIT_WATCH_HOURS after expires_at the address is no longer read.
    await step(o.id, 25 * 3_600_000);
    await simSend("BTC", o.deposit_address, "0.005");
    await simMine("BTC", 2);
    await step(o.id, 120_000);
    expect((await read(partner, o.id)).actions).toBeNull();
    expect(fake.gw.paidTwice()).toEqual([]);
  });

  it("the cron sweep wakes a completed order whose alarm was lost, so a later deposit is still offered", async () => {
    const o = await createOrder(partner, BTC_TO_USDT);
    await fake.attach(o.id);
    await simSend("BTC", o.deposit_address, "0.01");
    await simMine("BTC", 2);
    expect((await stepUntil(o.id, (r) => r.status === "completed")).status).toBe("completed");
    await step(o.id); // the projection into the index
    const stub = env.ORDERS.getByName(o.id);
    await runInDurableObject(stub, (_obj, state) => state.storage.deleteAlarm());
    const late = await simSend("BTC", o.deposit_address, "0.004");
    await simMine("BTC", 2);
    advance(11 * 60_000);
    expect(await runDurableObjectAlarm(stub)).toBe(false); // no alarm left to fire
    expect([...(await offered(o.id)).keys()]).toEqual([]);
    expect(await sweepLostAlarms(env, Date.now())).toBeGreaterThanOrEqual(1);
    expect([...(await offered(o.id)).keys()]).toEqual([late]);
    expect(paid(o.id)).toHaveLength(1);
  });
});

describe("after the watch: the cron's slow sweep reads the address (issue 26, item 10)", () => {
  const HOUR = 3_600_000;
  const DAY = 24 * HOUR;
  const slowSweep = () => sweepAfterWatch(env, Date.now(), 24, 90);

  async function completedPastWatch(): Promise<Order> {
    const o = await createOrder(partner, BTC_TO_USDT);
    await fake.attach(o.id);
    await simSend("BTC", o.deposit_address, "0.01");
    await simMine("BTC", 2);
    expect((await stepUntil(o.id, (r) => r.status === "completed")).status).toBe("completed");
    await step(o.id, 25 * HOUR); // the late-deposit watch ends
    return o;
  }

  const checkedAt = (id: string) =>
    env.DB.prepare("SELECT after_watch_checked_at AS at FROM orders WHERE id = ?")
      .bind(id)
      .first<{ at: string }>()
      .then((r) => r?.at);

  it("a deposit after the watch is offered once the slow sweep reads the address, and refunded once", async () => {
    const o = await completedPastWatch();
    const late = await simSend("BTC", o.deposit_address, "0.003");
    await simMine("BTC", 2);
    await step(o.id, 120_000);
    // The watch is over: the order's own alarm no longer reads the address.
    expect([...(await offered(o.id)).keys()]).toEqual([]);

    // A few orders per run, never read ones first: the earlier tests' orders may come before it.
    for (let run = 0; run < 10 && (await checkedAt(o.id)) === ""; run++)
      expect(await slowSweep()).toBeGreaterThanOrEqual(1);
    expect([...(await offered(o.id)).keys()]).toEqual([late]);
    expect(await inQueue(o.id)).toBe(true);
    // Read once a day: the next minute's run passes it by.
    const at = await checkedAt(o.id);
    advance(60_000);
    await slowSweep();
    expect(await checkedAt(o.id)).toBe(at);

    await refundEach(o.id, [late]);
    expect(paid(o.id).filter((p) => p.key.includes(":extra:"))).toEqual([
      { key: expect.stringContaining(`${o.id}:extra:${late}:`), to: NEW_BTC, amount: "0.0029" },
    ]);
    expect(fake.gw.paidTwice()).toEqual([]);
    expect((await read(partner, o.id)).actions).toBeNull();
  });

  it("past AFTER_WATCH_HORIZON_DAYS the address is not read: the order is retired from the sweep", async () => {
    const o = await completedPastWatch();
    advance(91 * DAY);
    await simSend("BTC", o.deposit_address, "0.003");
    await simMine("BTC", 2);
    for (let run = 0; run < 10 && (await checkedAt(o.id)) === ""; run++) await slowSweep();
    expect([...(await offered(o.id)).keys()]).toEqual([]);
    expect((await read(partner, o.id)).actions).toBeNull();
    expect(await checkedAt(o.id)).toBe("~");
  });
});
