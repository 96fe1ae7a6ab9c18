import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { FREE_CACHE_MS } from "../../src/services/liquidity-cap";
import { admin, call, createPartner, expectError, json, setPrices, type TestPartner } from "../helpers";
import { advance, BTC_REFUND, postOrder, read, simMine, simSend, startClock, step } from "../support/orders";

const ETH_ADDR = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94";
// BTC 60000, ETH 3000: 0.01 BTC buys about 0.2 ETH; a float order reserves that plus 0.5 %.
const BTC_TO_ETH = {
  coin_from: "BTC",
  network_from: "BTC",
  coin_to: "ETH",
  network_to: "ETH",
  amount_from: 0.01,
  rate_type: "float",
  recipient_address: ETH_ADDR,
};

interface Liquidity {
  coin: string;
  network: string;
  balance: string | null;
  paid: string;
  granted: string;
  available: string | null;
  updated_at: string;
}

let partner: TestPartner;

const post = (body: unknown) => postOrder(partner, body);
const setBalance = (coin: string, network: string, balance: string | null) =>
  admin("/liquidity", { method: "PUT", json: { coin, network, balance } });
const reservation = (o: { amount_to_expected: number }) => o.amount_to_expected * 1.005;

beforeAll(async () => {
  partner = await createPartner({ name: "liquidity", rate_limit_per_minute: 100_000 });
});
beforeEach(async () => {
  vi.useRealTimers();
  await setPrices();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("PUT/GET /admin/v1/liquidity", () => {
  it("sets a balance, audited with the operator; lists it with what the ledger holds", async () => {
    const res = await setBalance("usdc", "sol", "1500.5");
    expect(res.status).toBe(200);
    expect(await json<Liquidity>(res)).toMatchObject({
      coin: "USDC",
      network: "SOL",
      balance: "1500.5",
      paid: "0",
      granted: "0",
      available: "1500.5",
    });
    const list = await json<{ data: Liquidity[] }>(await admin("/liquidity"));
    expect(list.data.find((l) => l.coin === "USDC" && l.network === "SOL")).toMatchObject({
      balance: "1500.5",
    });
    const audit = await json<{ data: { action: string; operator: string; after: { balance: string } }[] }>(
      await admin("/audit?entity_type=liquidity&entity_id=USDC:SOL"),
    );
    expect(audit.data[0]).toMatchObject({ action: "liquidity.set", after: { balance: "1500.5" } });
    expect(audit.data[0]?.operator).toMatch(/^token/);
  });

  it("refuses bad input and coins outside the catalog, changing nothing", async () => {
    await expectError(await setBalance("USDC", "SOL", "-1"), 400, "invalid_request");
    await expectError(
      await admin("/liquidity", {
        method: "PUT",
        json: { coin: "USDC", network: "SOL", balance: "1", x: 1 },
      }),
      400,
      "invalid_request",
    );
    await expectError(await setBalance("NOPE", "NOPE", "1"), 422, "invalid_catalog_change");
    const rows = await env.DB.prepare(
      "SELECT COUNT(*) AS n FROM liquidity_balances WHERE coin = 'NOPE'",
    ).first<{
      n: number;
    }>();
    expect(rows?.n).toBe(0);
  });

  it("a coin without a balance is not liquidity-limited; null lifts a limit", async () => {
    // XRP has no balance: a large order is accepted as before this feature.
    const big = {
      ...BTC_TO_ETH,
      coin_to: "XRP",
      network_to: "XRP",
      recipient_address: "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh",
    };
    expect((await post(big)).status).toBe(201);
    expect((await setBalance("XRP", "XRP", "1")).status).toBe(200);
    await expectError(await post(big), 422, "insufficient_liquidity");
    expect((await setBalance("XRP", "XRP", null)).status).toBe(200);
    expect((await post(big)).status).toBe(201);
  });

  it("test orders neither take liquidity nor are refused for it", async () => {
    const res = await admin(`/partners/${partner.id}/keys`, { method: "POST", json: { mode: "test" } });
    const testKey = (await json<{ key: string }>(res)).key;
    const big = {
      ...BTC_TO_ETH,
      coin_to: "XRP",
      network_to: "XRP",
      recipient_address: "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh",
    };
    expect((await setBalance("XRP", "XRP", "1")).status).toBe(200);
    const created = await call("/api/v1/partner/orders", {
      method: "POST",
      body: JSON.stringify(big),
      headers: { Authorization: `Bearer ${testKey}`, "content-type": "application/json" },
    });
    expect(created.status).toBe(201);
    await expectError(await post(big), 422, "insufficient_liquidity");
    expect((await setBalance("XRP", "XRP", null)).status).toBe(200);
  });
});

describe("reservations at order creation", () => {
  it("50 parallel creations against a balance covering ~10: the accepted ones fit, every refusal is 422 with the maximum", async () => {
    expect((await setBalance("ETH", "ETH", "2")).status).toBe(200);
    const responses = await Promise.all(Array.from({ length: 50 }, () => post(BTC_TO_ETH)));
    const accepted = responses.filter((r) => r.status === 201);
    const refused = responses.filter((r) => r.status !== 201);
    const orders = await Promise.all(accepted.map((r) => json<{ amount_to_expected: number }>(r)));
    const reserved = orders.reduce((sum, o) => sum + reservation(o), 0);
    expect(reserved).toBeLessThanOrEqual(2);
    // The balance is used, not merely guarded: ~0.2 ETH each, so at least 9 fit.
    expect(accepted.length).toBeGreaterThanOrEqual(9);
    expect(accepted.length).toBeLessThanOrEqual(10);
    for (const r of refused) {
      const body = await expectError(r, 422, "insufficient_liquidity");
      const max = Number(/at most ([0-9.]+) ETH/.exec(body.detail)?.[1]);
      expect(max).toBeGreaterThanOrEqual(0);
      expect(max).toBeLessThan(reservation(orders[0] as { amount_to_expected: number }));
      expect(body.detail).toMatch(/amount_from up to [0-9.]+ BTC/);
    }
    const ledger = await json<Liquidity>(await setBalance("ETH", "ETH", "2"));
    expect(Number(ledger.granted)).toBeLessThanOrEqual(2);
  });

  it("the maximum a refusal names can be ordered; a retry with the same Idempotency-Key reserves once", async () => {
    // 0.01 BTC buys ~7.5 LTC: a balance of 10 holds one such order and ~2.4 LTC more.
    expect((await setBalance("LTC", "LTC", "10")).status).toBe(200);
    const toLtc = {
      ...BTC_TO_ETH,
      coin_to: "LTC",
      network_to: "LTC",
      recipient_address: "LTVdcw8fdTTK4TcebTZ4jiiCbvTXaRxZNh",
    };
    const keyed = (key: string, body: unknown) =>
      call("/api/v1/partner/orders", {
        method: "POST",
        body: JSON.stringify(body),
        headers: {
          Authorization: `Bearer ${partner.key}`,
          "content-type": "application/json",
          "Idempotency-Key": key,
        },
      });
    expect((await keyed("ltc-1", toLtc)).status).toBe(201);
    expect((await keyed("ltc-1", toLtc)).status).toBe(201);
    const body = await expectError(await post(toLtc), 422, "insufficient_liquidity");
    const maxFrom = Number(/amount_from up to ([0-9.]+) BTC/.exec(body.detail)?.[1]);
    expect(maxFrom).toBeGreaterThan(0.003);
    expect(maxFrom).toBeLessThan(0.0034);
    expect((await post({ ...toLtc, amount_from: Math.floor(maxFrom * 0.999 * 1e8) / 1e8 })).status).toBe(201);
    await expectError(await post({ ...toLtc, amount_from: 0.0005 }), 422, "insufficient_liquidity");
  });
});

describe("release and settlement", () => {
  it("an expired order's reservation is released; a completed one is paid out of the balance", async () => {
    startClock();
    // One order's worth: a second is refused until the first releases.
    expect((await setBalance("DOGE", "DOGE", "2100")).status).toBe(200);
    const toDoge = {
      ...BTC_TO_ETH,
      amount_from: 0.0033,
      coin_to: "DOGE",
      network_to: "DOGE",
      recipient_address: "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L",
    };
    const first = await post(toDoge);
    expect(first.status).toBe(201);
    const expiring = await json<{ id: string; expires_at: string }>(first);
    await expectError(await post(toDoge), 422, "insufficient_liquidity");

    advance(Date.parse(expiring.expires_at) - Date.now() + 1000);
    await env.ORDERS.getByName(expiring.id).tick();
    expect((await read(partner, expiring.id)).status).toBe("expired");
    await setPrices();

    const second = await post(toDoge);
    expect(second.status).toBe(201);
    const o = await json<{ id: string; deposit_address: string }>(second);
    await simSend("BTC", o.deposit_address, "0.0033");
    await step(o.id);
    await simMine("BTC", 2);
    for (let i = 0; i < 6 && (await read(partner, o.id)).status !== "completed"; i++) await step(o.id);
    const done = await read(partner, o.id);
    expect(done.status).toBe("completed");
    const ledger = (await json<{ data: Liquidity[] }>(await admin("/liquidity"))).data.find(
      (l) => l.coin === "DOGE",
    );
    expect(Number(ledger?.paid)).toBeCloseTo(done.amount_to_actual ?? -1, 6);
    // Paid + what the shard still holds never exceeds the balance.
    expect(Number(ledger?.paid) + Number(ledger?.granted)).toBeLessThanOrEqual(2100);
  });
});

describe("release on refund", () => {
  it("a refunded order's reservation is released: the order it blocked is then accepted", async () => {
    startClock();
    // About 198 USDT reserved per order: 250 covers one.
    expect((await setBalance("USDT", "ETH", "250")).status).toBe(200);
    const toUsdt = {
      ...BTC_TO_ETH,
      amount_from: 0.0033,
      coin_to: "USDT",
      network_to: "ETH",
      refund_address: BTC_REFUND,
    };
    const first = await post(toUsdt);
    expect(first.status).toBe(201);
    const o = await json<{ id: string; deposit_address: string }>(first);
    await expectError(await post(toUsdt), 422, "insufficient_liquidity");

    await simSend("BTC", o.deposit_address, "0.0003"); // below the minimum: refunded
    await step(o.id);
    await simMine("BTC", 2);
    for (let i = 0; i < 8 && (await read(partner, o.id)).status !== "refunded"; i++) await step(o.id);
    expect(await read(partner, o.id)).toMatchObject({
      status: "refunded",
      status_reason: "amount_below_min",
    });

    await setPrices();
    expect((await post(toUsdt)).status).toBe(201);
  });
});

describe("GET /partner/rates: max_amount never promises more than the region can pay", () => {
  const SOL_ADDR = "7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV";
  interface RateQuote {
    amount_to: number;
    max_amount: number;
    min_amount: number;
  }
  const rates = async (query: Record<string, string>): Promise<RateQuote> => {
    const res = await call(
      `/api/v1/partner/rates?${new URLSearchParams({ coin_from: "BTC", coin_to: "SOL", ...query })}`,
      { headers: { Authorization: `Bearer ${partner.key}` } },
    );
    expect(res.status).toBe(200);
    return json<RateQuote>(res);
  };
  /** The quote once its background reload landed (stale-while-revalidate: the first answer may be old). */
  const settledMax = async (query: Record<string, string>, done: (max: number) => boolean) => {
    for (let i = 0; i < 50; i++) {
      const { max_amount } = await rates(query);
      if (done(max_amount)) return max_amount;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error("max_amount never settled");
  };
  const toSol = (amount_from: number) => ({
    ...BTC_TO_ETH,
    amount_from,
    coin_to: "SOL",
    network_to: "SOL",
    recipient_address: SOL_ADDR,
  });

  it("caps float and fixed quotes at the balance; the cap can be ordered, more cannot; a raise and null follow", async () => {
    startClock();
    // No balance: the pair's maximum (10 BTC), as before liquidity existed.
    const pairMax = (await rates({})).max_amount;
    expect(pairMax).toBe(10);

    // 10 SOL ≈ 0.025 BTC at 150 / 60000.
    expect((await setBalance("SOL", "SOL", "10")).status).toBe(200);
    const floatMax = (await rates({})).max_amount;
    expect(floatMax).toBeGreaterThan(0.024);
    expect(floatMax).toBeLessThan(0.0255);
    // The payout at the cap, with the float margin, fits the balance; one satoshi more would not be promised.
    const atMax = await rates({ amount: String(floatMax) });
    expect(atMax.amount_to * 1.005).toBeLessThanOrEqual(10);
    expect(atMax.amount_to * 1.005).toBeGreaterThan(9.99);
    // A fixed order reserves its payout exactly (no margin): its cap is a little higher.
    const fixed = await rates({ rate_type: "fixed" });
    expect(fixed.max_amount).toBeGreaterThan(floatMax);
    expect(
      (await rates({ rate_type: "fixed", amount: String(fixed.max_amount) })).amount_to,
    ).toBeLessThanOrEqual(10);

    await expectError(
      await post(toSol(Math.ceil(floatMax * 1.01 * 1e8) / 1e8)),
      422,
      "insufficient_liquidity",
    );
    expect((await post(toSol(floatMax))).status).toBe(201);

    // Everything is reserved: within FREE_CACHE_MS the quote shows (next to) nothing.
    advance(FREE_CACHE_MS);
    expect(await settledMax({}, (max) => max < 0.0001)).toBeLessThan(0.0001);

    // The operator raises the balance by 10 SOL: this isolate's quotes follow at once.
    expect((await setBalance("SOL", "SOL", "20")).status).toBe(200);
    const raised = (await rates({})).max_amount;
    expect(raised).toBeGreaterThan(0.024);
    expect(raised).toBeLessThan(0.0255);

    expect((await setBalance("SOL", "SOL", null)).status).toBe(200);
    expect((await rates({})).max_amount).toBe(pairMax);
    // Still the pair's maximum once the shard's 30 s memory of "not limited" has lapsed.
    // (The first quote past the cache answers the old figure and reloads it in the background.)
    advance(31_000);
    await rates({});
    await new Promise((r) => setTimeout(r, 200));
    expect((await rates({})).max_amount).toBe(pairMax);
  });

  it("a test key's quote is not capped (test orders take no liquidity)", async () => {
    expect((await setBalance("SOL", "SOL", "1")).status).toBe(200);
    const res = await admin(`/partners/${partner.id}/keys`, { method: "POST", json: { mode: "test" } });
    const testKey = (await json<{ key: string }>(res)).key;
    const quote = await call("/api/v1/partner/rates?coin_from=BTC&coin_to=SOL", {
      headers: { Authorization: `Bearer ${testKey}` },
    });
    expect((await json<RateQuote>(quote)).max_amount).toBe(10);
    expect((await setBalance("SOL", "SOL", null)).status).toBe(200);
  });
});

describe("background refill and return of allowance", () => {
  const BNB_ADDR = ETH_ADDR;
  const shardStub = (name: string) => env.LIQUIDITY_SHARDS.get(env.LIQUIDITY_SHARDS.idFromName(name));
  const ledgerOf = async (coin: string) =>
    (await json<{ data: Liquidity[] }>(await admin("/liquidity"))).data.find((l) => l.coin === coin);
  /** The ledger's grants once the shard's alarm ran (run here, or already by workerd). */
  const grantedAfterAlarm = async (shard: string, coin: string, done: (granted: number) => boolean) => {
    await runDurableObjectAlarm(shardStub(shard));
    for (let i = 0; i < 50; i++) {
      const granted = Number((await ledgerOf(coin))?.granted);
      if (done(granted)) return granted;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error("the shard's alarm never rebalanced");
  };
  const inRegion = (continent: string, body: unknown) =>
    postOrder(partner, body, { cf: { continent } } as RequestInit);

  it("an order that leaves the shard below low water is followed by a background refill: the next order does not ask the ledger", async () => {
    // 1250 USDC: the first order (~595 USDC reserved) gets half of it (625), leaving ~30 free,
    // below the low water mark (1250 × 0.25 / 4 ≈ 78).
    expect((await setBalance("USDC", "ETH", "1250")).status).toBe(200);
    const toUsdc = (amount_from: number) => ({ ...BTC_TO_ETH, amount_from, coin_to: "USDC" });
    expect((await post(toUsdc(0.01))).status).toBe(201);
    expect(Number((await ledgerOf("USDC"))?.granted)).toBe(625);
    // The alarm tops the shard up to its target (a quarter of the balance) off the creation path.
    const refilled = await grantedAfterAlarm("USDC:ETH:default", "USDC", (g) => g > 625);
    expect(refilled).toBeGreaterThanOrEqual(625 + 280);
    // The next order is covered by the shard alone: the ledger's grants do not move.
    expect((await post(toUsdc(0.001))).status).toBe(201);
    expect(Number((await ledgerOf("USDC"))?.granted)).toBe(refilled);
  });

  it("a region holding idle allowance above high water returns it, and another region can then use it", async () => {
    // 2 BNB; 0.01 BTC buys ~1 BNB. A refused 3 BNB order in EU pulls all 2 into EU's shard.
    expect((await setBalance("BNB", "BSC", "2")).status).toBe(200);
    const toBnb = (amount_from: number) => ({
      ...BTC_TO_ETH,
      amount_from,
      coin_to: "BNB",
      network_to: "BSC",
      recipient_address: BNB_ADDR,
    });
    await expectError(await inRegion("EU", toBnb(0.03)), 422, "insufficient_liquidity");
    expect((await ledgerOf("BNB"))?.available).toBe("0");
    await expectError(await inRegion("NA", toBnb(0.01)), 422, "insufficient_liquidity");
    // EU's 2 BNB sit idle above high water (1): its alarm gives back all but its target (0.5).
    expect(await grantedAfterAlarm("BNB:BSC:EU", "BNB", (g) => g < 2)).toBe(0.5);
    expect((await ledgerOf("BNB"))?.available).toBe("1.5");
    expect((await inRegion("NA", toBnb(0.01))).status).toBe(201);
  });
});

describe("widget orders reserve when their deposit is seen (docs/liquidity.md, 'Widget orders')", () => {
  const TRON = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
  const form = {
    from: "BTC:BTC",
    to: "USDT:TRX",
    amount_from: "0.01",
    rate_type: "float",
    recipient_address: TRON,
  };
  const widgetOrder = async (wid: string) => {
    const res = await call(`/widget/${wid}/orders`, {
      method: "POST",
      body: new URLSearchParams({ nonce: crypto.randomUUID(), ...form }),
      headers: { "content-type": "application/x-www-form-urlencoded" },
      redirect: "manual",
    });
    expect(res.status, await res.clone().text()).toBe(303);
    const id = /\/track\/([0-9a-f-]{36})/.exec(res.headers.get("location") ?? "")?.[1] ?? "";
    return read(partner, id);
  };
  /** The order's due work a minute later, prices kept fresh. */
  const tick = async (id: string) => {
    advance(60_000);
    await setPrices();
    await env.ORDERS.getByName(id).tick();
  };
  const paidTo = async (id: string) =>
    (await json<{ data: { order_id: string }[] }>(await admin("/sim/TRX/outgoing"))).data.filter(
      (t) => t.order_id === id,
    );

  it("creation locks nothing; the deposit takes the reservation; one the coin cannot cover waits, never pays unreserved", async () => {
    startClock();
    // 0.01 BTC is ~597 USDT, reserved as ~600: 700 covers one such order.
    expect((await setBalance("USDT", "TRX", "700")).status).toBe(200);
    const w = await json<{ id: string }>(
      await admin(`/partners/${partner.id}/widgets`, {
        method: "POST",
        json: { mode: "live", allowed_origins: ["https://shop.example"] },
      }),
    );
    // Three anonymous orders, more than the coin could cover, all accepted and none reserving.
    const [first, second] = [await widgetOrder(w.id), await widgetOrder(w.id), await widgetOrder(w.id)];
    const apiOrder = { ...BTC_TO_ETH, coin_to: "USDT", network_to: "TRX", recipient_address: TRON };
    const probe = await post(apiOrder);
    expect(probe.status).toBe(201);
    // Give the probe's reservation back: it expires.
    const probeId = (await json<{ id: string; expires_at: string }>(probe)).id;
    const expiresAt = Date.parse((await read(partner, probeId)).expires_at);
    advance(expiresAt - Date.now() + 1000);
    await env.ORDERS.getByName(probeId).tick();
    expect((await read(partner, probeId)).status).toBe("expired");
    await setPrices();

    // The first widget order's deposit is seen: it reserves, and the coin has no room for another.
    if (!first || !second) throw new Error("no orders");
    await simSend("BTC", first.deposit_address, "0.01");
    await tick(first.id);
    expect((await read(partner, first.id)).status).toBe("confirming");
    await expectError(await post(apiOrder), 422, "insufficient_liquidity");

    // The second's deposit finds no room: confirmed, it waits in exchanging and pays nothing.
    await simSend("BTC", second.deposit_address, "0.01");
    await tick(second.id);
    await simMine("BTC", 2);
    for (let i = 0; i < 6 && (await read(partner, first.id)).status !== "completed"; i++)
      await tick(first.id);
    expect((await read(partner, first.id)).status).toBe("completed");
    for (let i = 0; i < 4; i++) await tick(second.id);
    expect((await read(partner, second.id)).status).toBe("exchanging");
    expect(await paidTo(second.id)).toEqual([]);

    // The operator raises the balance: it completes, paid once.
    expect((await setBalance("USDT", "TRX", "5000")).status).toBe(200);
    for (let i = 0; i < 8 && (await read(partner, second.id)).status !== "completed"; i++) {
      advance(15 * 60_000);
      await tick(second.id);
    }
    expect((await read(partner, second.id)).status).toBe("completed");
    expect(await paidTo(second.id)).toHaveLength(1);
    expect((await setBalance("USDT", "TRX", null)).status).toBe(200);
  });
});
