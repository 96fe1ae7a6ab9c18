import { env } from "cloudflare:workers";
import { afterEach, beforeAll, beforeEach, describe, expect, it, type MockInstance, vi } from "vitest";
import { LiquidityShard } from "../../src/objects/liquidity-shard";
import type { LiquidityEntry } from "../../src/services/liquidity";
import { admin, createPartner, json, setPrices, TEST_PRICES, type TestPartner } from "../helpers";
import {
  advance,
  BTC_TO_USDT,
  createOrder,
  events,
  type Order,
  outgoing,
  read,
  simMine,
  simSend,
  startClock,
  TRON_ADDR,
} from "../support/orders";

// The exchange-time liquidity check (docs/liquidity.md, "At exchange time"): BTC 60000, so 0.01 BTC
// is ~597 USDT after the float spread, reserved as ~600 at creation.
const ETH_ADDR = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94";

let partner: TestPartner;
let extend: MockInstance<LiquidityShard["extend"]>;
let errors: MockInstance<typeof console.error>;

const setBalance = async (coin: string, network: string, balance: string | null) => {
  const res = await admin("/liquidity", { method: "PUT", json: { coin, network, balance } });
  expect(res.status).toBe(200);
  return json<LiquidityEntry>(res);
};
const ledger = async (coin: string, network: string) =>
  (await json<{ data: LiquidityEntry[] }>(await admin("/liquidity"))).data.find(
    (l) => l.coin === coin && l.network === network,
  );
const withBtcAt = (btc: string) => setPrices({ ...TEST_PRICES, BTC: btc });
const liquidityAlerts = (orderId: string) =>
  errors.mock.calls
    .map((c) => JSON.parse(String(c[0])) as { order?: string; msg?: string })
    .filter((a) => a.order === orderId && a.msg?.includes("waits for liquidity"));
const paidOut = async (o: Order) => (await outgoing(o.network_to)).filter((t) => t.order_id === o.id);

/** Runs the order's due work `ms` later, with BTC priced at `btc` just then (prices stay fresh). */
async function tickAt(o: Order, ms: number, btc: string): Promise<void> {
  advance(ms);
  await withBtcAt(btc);
  await env.ORDERS.getByName(o.id).tick();
}

/** Deposits the order's amount and confirms it: the next step exchanges at `btc`. */
async function depositAndConfirm(o: Order, btc: string): Promise<void> {
  await simSend("BTC", o.deposit_address, "0.01");
  await tickAt(o, 60_000, btc);
  await simMine("BTC", 2);
  await tickAt(o, 60_000, btc);
}

async function runUntilCompleted(o: Order, btc: string): Promise<Order> {
  for (let i = 0; i < 6 && (await read(partner, o.id)).status !== "completed"; i++)
    await tickAt(o, 15 * 60_000, btc);
  return read(partner, o.id);
}

beforeAll(async () => {
  partner = await createPartner({ name: "liquidity-wait", rate_limit_per_minute: 100_000 });
});
beforeEach(async () => {
  vi.useRealTimers();
  await setPrices();
  startClock();
  extend = vi.spyOn(LiquidityShard.prototype, "extend");
  errors = vi.spyOn(console, "error").mockImplementation(() => {});
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe("a float order whose payout outgrows liquidity at exchange time", () => {
  it("waits in exchanging with one alert and no payout, then completes once the balance is raised", async () => {
    await setBalance("USDT", "TRX", "700");
    const o = await createOrder(partner, BTC_TO_USDT);
    // BTC +33 %: the payout (~796 USDT) exceeds the reservation (~600) and all the coin has (700).
    await depositAndConfirm(o, "80000");
    for (let i = 0; i < 3; i++) await tickAt(o, 8 * 60_000, "80000");
    const waiting = await read(partner, o.id);
    expect(waiting.status).toBe("exchanging");
    expect(waiting.status_reason).toBeNull();
    expect(await paidOut(o)).toEqual([]);
    expect(liquidityAlerts(o.id)).toHaveLength(1);
    expect(liquidityAlerts(o.id)[0]).toMatchObject({ level: "error", coin: "USDT", network: "TRX" });
    const waits = (await events(o.id)).filter((e) => e.reason === "awaiting_liquidity");
    expect(waits.length).toBeGreaterThanOrEqual(3);
    expect(waits.every((e) => e.from_status === "exchanging" && e.to_status === "exchanging")).toBe(true);
    const first = waits[0]?.data as Record<string, string>;
    expect(Number(first.payout)).toBeGreaterThan(790);
    expect(Number(first.reserved)).toBeCloseTo(o.amount_to_expected * 1.005, 6);
    expect(Number(first.shortfall)).toBeCloseTo(Number(first.payout) - Number(first.reserved), 6);
    expect(Number(first.free)).toBeLessThan(Number(first.shortfall));
    // Waiting is not a failed attempt: however long, the exchange never runs out of attempts.
    expect((await events(o.id)).some((e) => e.reason === "exchange attempt failed")).toBe(false);

    await setBalance("USDT", "TRX", "1000");
    const done = await runUntilCompleted(o, "80000");
    expect(done.status).toBe("completed");
    expect(done.amount_to_actual).toBeGreaterThan(790);
    const paid = await paidOut(o);
    expect(paid).toHaveLength(1);
    expect(paid[0]?.txid).toBe(done.payout_txid);
    expect(liquidityAlerts(o.id)).toHaveLength(1);
    // Settled: the payout is off the balance, the extended reservation off the shard's grant.
    const after = await ledger("USDT", "TRX");
    expect(Number(after?.paid)).toBeCloseTo(done.amount_to_actual ?? -1, 6);
    expect(Number(after?.paid) + Number(after?.granted)).toBeLessThanOrEqual(1000);
  });

  it("a price that stays within the reservation never waits nor asks the shard", async () => {
    await setBalance("TRX", "TRX", "5100");
    const o = await createOrder(partner, { ...BTC_TO_USDT, coin_to: "TRX", recipient_address: TRON_ADDR });
    // +0.3 %: inside the 0.5 % float margin the order reserved.
    await depositAndConfirm(o, "60180");
    const done = await runUntilCompleted(o, "60180");
    expect(done.status).toBe("completed");
    expect(extend).not.toHaveBeenCalled();
    expect((await events(o.id)).some((e) => e.reason === "awaiting_liquidity")).toBe(false);
    expect(liquidityAlerts(o.id)).toEqual([]);
    expect(await paidOut(o)).toHaveLength(1);
  });

  it("an order on a coin not limited at creation never asks the shard at exchange time", async () => {
    const toUsdtEth = { ...BTC_TO_USDT, network_to: "ETH", recipient_address: ETH_ADDR };
    const o = await createOrder(partner, toUsdtEth);
    // Limited after the order was accepted, and the price far past any margin: the order promised
    // without a reservation, so its exchange is not checked (its payout is still settled).
    await setBalance("USDT", "ETH", "1");
    await depositAndConfirm(o, "80000");
    const done = await runUntilCompleted(o, "80000");
    expect(done.status).toBe("completed");
    expect(extend).not.toHaveBeenCalled();
    expect(await paidOut(o)).toHaveLength(1);
    await setBalance("USDT", "ETH", null);
  });

  it("a fixed-rate order pays what it reserved, so it never waits however far the market moves", async () => {
    await setBalance("USDC", "ETH", "650");
    const fixed = {
      ...BTC_TO_USDT,
      coin_to: "USDC",
      network_to: "ETH",
      rate_type: "fixed",
      recipient_address: ETH_ADDR,
    };
    const o = await createOrder(partner, fixed);
    await depositAndConfirm(o, "80000");
    const done = await runUntilCompleted(o, "80000");
    expect(done.status).toBe("completed");
    expect(done.amount_to_actual).toBe(o.amount_to_expected);
    expect(extend).not.toHaveBeenCalled();
    expect(await paidOut(o)).toHaveLength(1);
  });

  it("the shard extends a reservation the ledger can still cover: the order goes on without waiting", async () => {
    await setBalance("USDT", "BSC", "2000");
    const o = await createOrder(partner, { ...BTC_TO_USDT, network_to: "BSC", recipient_address: ETH_ADDR });
    await depositAndConfirm(o, "66000");
    const done = await runUntilCompleted(o, "66000");
    expect(done.status).toBe("completed");
    expect(extend).toHaveBeenCalledTimes(1);
    expect((await events(o.id)).some((e) => e.reason === "awaiting_liquidity")).toBe(false);
    expect(Number((await ledger("USDT", "BSC"))?.paid)).toBeCloseTo(done.amount_to_actual ?? -1, 6);
  });
});
