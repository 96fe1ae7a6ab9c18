/**
 * The money path against a payout gateway that does not deduplicate (test/support/fake-gateway.ts):
 * every accepted POST pays, so a lost lookup or a rebuilt request would show as a double payment.
 * Each test closes one finding of issue 12 and fails on the code before it.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { admin, createPartner, setPrices, type TestPartner } from "../helpers";
import { useFakeGateway } from "../support/fake-gateway";
import {
  BTC_REFUND,
  BTC_TO_USDT,
  createOrder,
  events,
  read,
  simMine,
  simSend,
  step,
} from "../support/orders";

let partner: TestPartner;

beforeAll(async () => {
  partner = await createPartner({ name: "money-path", rate_limit_per_minute: 100_000 });
});

const fake = useFakeGateway();

/** An order whose deposit has confirmed, its object now sending through the fake gateway. */
async function confirmedOrder(body: Record<string, unknown>, deposit: string) {
  const o = await createOrder(partner, body);
  await fake.attach(o.id);
  await simSend("BTC", o.deposit_address, deposit);
  await simMine("BTC", 2);
  return o;
}

async function stepUntil(id: string, done: (status: string) => boolean, max = 20): Promise<string> {
  for (let i = 0; i < max; i++) {
    await setPrices();
    await step(id, 120_000);
    const { status } = await read(partner, id);
    if (done(status)) return status;
  }
  return (await read(partner, id)).status;
}

describe("sends ledger: the request is frozen on the first attempt (finding 1)", () => {
  it("a refund retried after the withdraw fee changed goes out with the first amount, once", async () => {
    const o = await confirmedOrder({ ...BTC_TO_USDT, refund_address: BTC_REFUND }, "9");
    fake.gw.sendFaults.push("5xx");
    await step(o.id);
    expect((await read(partner, o.id)).status).toBe("refunding");
    // The operator raises BTC's network fee while the refund is pending.
    await env.DB.prepare(
      "UPDATE currencies SET withdraw_fee = '0.001' WHERE coin = 'BTC' AND network = 'BTC'",
    ).run();
    try {
      expect(await stepUntil(o.id, (s) => s === "refunded")).toBe("refunded");
    } finally {
      await env.DB.prepare(
        "UPDATE currencies SET withdraw_fee = '0.0002' WHERE coin = 'BTC' AND network = 'BTC'",
      ).run();
    }
    const sends = fake.gw.ops.filter((x) => x.op === "send" && x.key === `${o.id}:refund`);
    expect(sends).toHaveLength(2);
    // The same transfer; the second try under its own key, after a signed "never received" of the first.
    const transfer = (body = "{}") => ({ ...JSON.parse(body), idempotencyKey: undefined });
    expect(transfer(sends[1]?.body)).toEqual(transfer(sends[0]?.body));
    expect(sends.map((x) => x.tryKey)).toEqual([`${o.id}:refund`, `${o.id}:refund~2`]);
    expect(fake.gw.payments.get(`${o.id}:refund`)).toHaveLength(1);
    expect(fake.gw.resentWithoutLookup()).toEqual([]);
  });
});

describe("only the gateway's signed word ends a send (finding 2)", () => {
  it("a paid-then-dropped payout answered by a proxy's unsigned 404s is never failed nor paid twice", async () => {
    const o = await confirmedOrder(BTC_TO_USDT, "0.01");
    fake.gw.sendFaults.push("pay_then_drop");
    fake.gw.lookupFaults.push(...Array<"unsigned_404">(12).fill("unsigned_404"));
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    for (let i = 0; i < 12; i++) await step(o.id, 120_000);
    expect((await read(partner, o.id)).status).toBe("sending");
    expect(
      errors.mock.calls.some(([m]) => String(m).includes("payout outcome unknown: needs an operator")),
    ).toBe(true);
    // The proxy is fixed: the next lookup (after its backoff) finds the payment.
    fake.gw.lookupFaults.length = 0;
    expect(await stepUntil(o.id, (s) => s === "completed")).toBe("completed");
    expect(fake.gw.payments.get(`${o.id}:payout`)).toHaveLength(1);
    expect(fake.gw.ops.filter((x) => x.op === "send")).toHaveLength(1);
  });

  it("401 on send (a rotated secret) is a configuration error: retried and alerted, never fails the order", async () => {
    const o = await confirmedOrder(BTC_TO_USDT, "0.01");
    fake.gw.sendFaults.push(...Array<"401">(10).fill("401"));
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    for (let i = 0; i < 11; i++) await step(o.id, 120_000);
    expect((await read(partner, o.id)).status).toBe("sending");
    expect(
      errors.mock.calls.some(([m]) =>
        String(m).includes("payout gateway configuration error: needs an operator"),
      ),
    ).toBe(true);
    expect(await stepUntil(o.id, (s) => s === "completed")).toBe("completed");
    expect(fake.gw.payments.get(`${o.id}:payout`)).toHaveLength(1);
    expect(fake.gw.resentWithoutLookup()).toEqual([]);
  });

  it("a signed refusal fails the payout at once; nothing is paid", async () => {
    const o = await confirmedOrder(BTC_TO_USDT, "0.01");
    fake.gw.sendFaults.push("refuse");
    expect(await stepUntil(o.id, (s) => s === "failed")).toBe("failed");
    expect(await read(partner, o.id)).toMatchObject({ status_reason: "payout_failed", payout_txid: null });
    expect(fake.gw.payments.size).toBe(0);
  });

  it("a send taken now and paid later: lookups that say 'in progress' keep it waiting; then it completes", async () => {
    const o = await confirmedOrder(BTC_TO_USDT, "0.01");
    fake.gw.sendFaults.push("pay_later");
    for (let i = 0; i < 6; i++) await step(o.id, 120_000);
    expect((await read(partner, o.id)).status).toBe("sending");
    await fake.gw.settle();
    expect(await stepUntil(o.id, (s) => s === "completed")).toBe("completed");
    expect(fake.gw.payments.get(`${o.id}:payout`)).toHaveLength(1);
    expect(fake.gw.ops.filter((x) => x.op === "send")).toHaveLength(1);
  });
});

describe("gateway contract v2 (issue 26, items 5 and 6)", () => {
  it("an unsigned 200 {txid} never completes an order: it is asked about, then paid once under a new key", async () => {
    const o = await confirmedOrder(BTC_TO_USDT, "0.01");
    fake.gw.sendFaults.push("unsigned_ok");
    await step(o.id, 120_000);
    expect(await read(partner, o.id)).toMatchObject({ status: "sending", payout_txid: null });
    expect(await stepUntil(o.id, (s) => s === "completed")).toBe("completed");
    const paid = fake.gw.payments.get(`${o.id}:payout`);
    expect(paid?.map((p) => p.key)).toEqual([`${o.id}:payout~2`]);
    expect((await read(partner, o.id)).payout_txid).toBe(paid?.[0]?.txid);
  });

  it("a POST delayed past the lookup's signed 'unknown key' is refused by the gateway: the send is paid once, under the next key", async () => {
    const o = await confirmedOrder(BTC_TO_USDT, "0.01");
    fake.gw.sendFaults.push("delay");
    await step(o.id, 120_000);
    expect((await read(partner, o.id)).status).toBe("sending");
    // The lookup says "never received" (and the gateway tombstones the key); the next try pays.
    expect(await stepUntil(o.id, (s) => s === "completed")).toBe("completed");
    // Now the first POST arrives: refused, never paid.
    await fake.gw.deliverDelayed();
    expect(fake.gw.refusedLate).toEqual([`${o.id}:payout`]);
    expect(fake.gw.paidTwice()).toEqual([]);
    expect(fake.gw.payments.get(`${o.id}:payout`)?.map((p) => p.key)).toEqual([`${o.id}:payout~2`]);
    expect(fake.gw.resentWithoutLookup()).toEqual([]);
  });
});

describe("alerts: one per problem, listed for the operator (issue 26, item 11)", () => {
  type Alert = { order_id: string; kind: string; state: string; message: string; reminders: number };
  const alertsOf = async (id: string) => {
    const res = await admin("/alerts");
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: Alert[] }).data.filter((a) => a.order_id === id);
  };

  it("a gateway whose lookups fail for hours: lookups back off, one alert opens, reminds on a backoff, and clears once", async () => {
    const o = await confirmedOrder(BTC_TO_USDT, "0.01");
    fake.gw.sendFaults.push("pay_then_drop");
    fake.gw.lookupFaults.push(...Array<"5xx">(40).fill("5xx"));
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const info = vi.spyOn(console, "log").mockImplementation(() => {});
    await step(o.id, 0);
    // Six hours, woken every minute: the order asks only when its backoff says.
    for (let i = 0; i < 360; i++) await step(o.id, 60_000);
    const lookups = fake.gw.ops.filter((x) => x.op === "lookup").length;
    expect(lookups).toBeGreaterThan(5);
    expect(lookups).toBeLessThan(25);
    const lines = errors.mock.calls.map(([m]) => String(m)).filter((m) => m.includes("outcome unknown"));
    expect(lines.filter((m) => m.includes('"alert":"opened"'))).toHaveLength(1);
    expect(lines.length).toBeLessThan(8);
    const [open] = await alertsOf(o.id);
    expect(open).toMatchObject({ kind: "payout_outcome_unknown", state: "open" });
    expect(open?.reminders).toBeGreaterThan(0);
    // The gateway answers again: the next lookup finds the payment and the alert clears.
    fake.gw.lookupFaults.length = 0;
    expect(await stepUntil(o.id, (s) => s === "completed", 40)).toBe("completed");
    await step(o.id, 15_000); // the alarm's outbox step projects the cleared alert
    expect(await alertsOf(o.id)).toEqual([
      expect.objectContaining({ kind: "payout_outcome_unknown", state: "cleared" }),
    ]);
    expect(info.mock.calls.filter(([m]) => String(m).includes('"alert":"cleared"'))).toHaveLength(1);
  });

  it("a 401 storm on lookups is a configuration alert, not an unknown outcome: the order waits, never fails, never pays twice; a 5xx after it is the first lookup that could not tell", async () => {
    const o = await confirmedOrder(BTC_TO_USDT, "0.01");
    fake.gw.sendFaults.push("5xx");
    fake.gw.lookupFaults.push(...Array<"401">(20).fill("401"));
    vi.spyOn(console, "error").mockImplementation(() => {});
    for (let i = 0; i < 20; i++) await step(o.id, 120_000);
    expect((await read(partner, o.id)).status).toBe("sending");
    await step(o.id, 15_000);
    expect(await alertsOf(o.id)).toEqual([
      expect.objectContaining({ kind: "payout_gateway_config", state: "open" }),
    ]);
    fake.gw.lookupFaults.length = 0;
    fake.gw.lookupFaults.push("5xx");
    expect(await stepUntil(o.id, (s) => s === "completed", 40)).toBe("completed");
    expect(fake.gw.paidTwice()).toEqual([]);
    await step(o.id, 15_000);
    // The storm's 401s never counted as lookups that could not tell: no "outcome unknown" alert.
    expect(await alertsOf(o.id)).toEqual([
      expect.objectContaining({ kind: "payout_gateway_config", state: "cleared" }),
    ]);
  });
});

describe("chaos over a gateway that does not deduplicate (finding 3)", () => {
  it("orders under random gateway faults all complete, each key paid once, a lookup before every re-send", async () => {
    fake.gw.random = { sendFault: 0.5, lookupFault: 0.3, seed: 20261123 };
    vi.spyOn(console, "error").mockImplementation(() => {});
    const orders = [];
    for (let i = 0; i < 6; i++) orders.push(await createOrder(partner, BTC_TO_USDT));
    await fake.attach(orders[0]?.id ?? "");
    for (const o of orders) await simSend("BTC", o.deposit_address, "0.01");
    await simMine("BTC", 2);
    for (let round = 0; round < 30; round++) {
      await setPrices();
      if (round % 5 === 4) await fake.gw.settle();
      for (const o of orders) await step(o.id, 20_000);
    }
    await fake.gw.settle();
    for (const o of orders) expect(await stepUntil(o.id, (s) => s === "completed", 30)).toBe("completed");
    expect(fake.gw.paidTwice()).toEqual([]);
    expect(fake.gw.resentWithoutLookup()).toEqual([]);
    expect(fake.gw.payments.size).toBe(orders.length);
    for (const o of orders) {
      const r = await read(partner, o.id);
      expect(r.payout_txid).toBe(fake.gw.payments.get(`${o.id}:payout`)?.[0]?.txid);
    }
  });
});

describe("the exchange step (finding 5)", () => {
  it("a venue call that throws is a counted attempt: the order fails over to its refund, never sits in exchanging", async () => {
    const o = await createOrder(partner, { ...BTC_TO_USDT, refund_address: BTC_REFUND });
    await admin("/sim/BTC/faults", { method: "PUT", json: { exchange_throw_rate: 1 } });
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      await simSend("BTC", o.deposit_address, "0.01");
      await simMine("BTC", 2);
      for (let i = 0; i < 12; i++) {
        await setPrices();
        await step(o.id, 120_000);
      }
    } finally {
      await admin("/sim/BTC/faults", { method: "PUT", json: {} });
    }
    const r = await read(partner, o.id);
    expect(r).toMatchObject({ status: "refunded", status_reason: "exchange_failed" });
    const log = await events(o.id);
    expect(log.filter((e) => e.reason === "exchange attempt failed")).toHaveLength(4);
    expect(errors.mock.calls.some(([m]) => String(m).includes("exchange failed after every attempt"))).toBe(
      true,
    );
  });
});

describe("which deposit drives the order (finding 4)", () => {
  it("a dust first transfer does not push the real payment aside: the payment completes the order", async () => {
    const o = await createOrder(partner, BTC_TO_USDT);
    // The dust is mined a block earlier, so it is the first deposit (same-block order is by txid).
    await simSend("BTC", o.deposit_address, "0.00001");
    await simMine("BTC", 1);
    await simSend("BTC", o.deposit_address, "0.01");
    await simMine("BTC", 2);
    expect(await stepUntil(o.id, (s) => s === "completed" || s === "failed")).toBe("completed");
    expect(await read(partner, o.id)).toMatchObject({ amount_from_received: 0.01, status_reason: null });
    const log = await events(o.id);
    expect(log.some((e) => e.reason.startsWith("first deposit not acceptable"))).toBe(true);
    expect(
      log.some(
        (e) => e.reason.startsWith("extra deposit") && (e.data as { amount?: string })?.amount === "0.00001",
      ),
    ).toBe(true);
  });

  it("with no acceptable deposit the first one decides, as before", async () => {
    const o = await createOrder(partner, BTC_TO_USDT);
    await simSend("BTC", o.deposit_address, "0.00001");
    await simMine("BTC", 1);
    await simSend("BTC", o.deposit_address, "0.00002");
    await simMine("BTC", 2);
    expect(await stepUntil(o.id, (s) => s === "failed")).toBe("failed");
    expect(await read(partner, o.id)).toMatchObject({
      amount_from_received: 0.00001,
      status_reason: "amount_below_min",
    });
  });
});

describe("the counting gateway's paid-twice check can fail", () => {
  it("a gateway that signs 'unknown key' for a key it paid is paid again, and paidTwice() says so", async () => {
    const o = await confirmedOrder(BTC_TO_USDT, "0.01");
    // Paid, the answer lost; then the gateway's signed (lying) word that it never saw the key.
    fake.gw.sendFaults.push("pay_then_drop");
    fake.gw.lookupFaults.push("forget");
    expect(await stepUntil(o.id, (s) => s === "completed")).toBe("completed");
    expect(fake.gw.paidTwice()).toEqual([`${o.id}:payout`]);
    expect(fake.gw.resentWithoutLookup()).toEqual([]);
  });
});
