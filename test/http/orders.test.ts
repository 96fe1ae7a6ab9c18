import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { base64urlnopad } from "@scure/base";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { deriveDepositAddress, validateAddress } from "../../src/domain/addresses";
import { depositPath } from "../../src/domain/deposit-allocation";
import { idempotentShortId, orderIdOf } from "../../src/domain/order-id";
import { sweepLostAlarms } from "../../src/services/sweep";
import { listOrdersStatement } from "../../src/storage/orders";
import { admin, call, createPartner, expectError, json, setPrices, type TestPartner } from "../helpers";
import { BTC_REFUND, BTC_TO_USDT, indexed, TRON_ADDR, XRP_ADDR } from "../support/orders";

interface Order {
  [k: string]: unknown;
  id: string;
  short_id: string;
  status: string;
  deposit_address: string;
  deposit_address_tag: string | null;
  created_at: string;
  expires_at: string;
}

// Real published addresses (see test/domain/addresses.test.ts).
const BTC_ADDR = BTC_REFUND;
const ETH_ADDR = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94";
const BASE_ORDER = BTC_TO_USDT;

let partner: TestPartner;
let other: TestPartner;

function post(body: unknown, p: TestPartner = partner, headers: Record<string, string> = {}) {
  return call("/api/v1/partner/orders", {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: { Authorization: `Bearer ${p.key}`, "content-type": "application/json", ...headers },
  });
}
const get = (id: string, p: TestPartner = partner) =>
  call(`/api/v1/partner/orders/${id}`, { headers: { "X-API-Key": p.key } });

/** A created order, once its index row is there (the projection follows the 201). */
async function postIndexed(body: unknown): Promise<Order> {
  const o = await json<Order>(await post(body));
  await indexed(o.id);
  return o;
}

/** D1 as a whole, once the projections of orders created so far have landed. */
async function state() {
  for (let last = await snapshot(); ; ) {
    await new Promise((r) => setTimeout(r, 150));
    const now = await snapshot();
    if (JSON.stringify(now) === JSON.stringify(last)) return now;
    last = now;
  }
}

async function snapshot() {
  const orders = await env.DB.prepare("SELECT COUNT(*) AS n FROM orders").first<{ n: number }>();
  const counters = await env.DB.prepare("SELECT name, next_value FROM address_counters ORDER BY name").all();
  const pool = await env.DB.prepare("SELECT address, order_id FROM address_pool ORDER BY address").all();
  return { orders: orders?.n, counters: counters.results, pool: pool.results };
}

beforeAll(async () => {
  await setPrices();
  partner = await createPartner({ name: "orders-a", rate_limit_per_minute: 5000 });
  other = await createPartner({ name: "orders-b", rate_limit_per_minute: 5000 });
});

afterEach(() => {
  vi.useRealTimers();
});

describe("POST /api/v1/partner/orders", () => {
  it("creates a float order: 201, every contract field, a fresh derived deposit address", async () => {
    const res = await post(BASE_ORDER);
    expect(res.status).toBe(201);
    const o = await json<Order>(res);
    // BTC 60000 / USDT 1, float spread 50 bps: 0.01 × 59700 − 1 USDT fee = 596; rate 59600
    expect(o).toMatchObject({
      status: "waiting_deposit",
      coin_from: "BTC",
      network_from: "BTC",
      coin_to: "USDT",
      network_to: "TRX",
      amount_from_expected: 0.01,
      amount_to_expected: 596,
      rate_type: "float",
      rate_quoted: 59600,
      deposit_address_tag: null,
      recipient_address: TRON_ADDR,
      deposit_txid: null,
      deposit_confirmations: null,
      deposit_confirmations_required: 2,
      payout_txid: null,
      refund_address: null,
      refund_txid: null,
      amount_from_received: null,
      amount_to_actual: null,
      status_reason: null,
    });
    expect(o.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(o.short_id).toMatch(/^[0-9A-HJKMNP-TV-Z]{10}$/);
    expect(Date.parse(o.expires_at) - Date.parse(o.created_at)).toBe(1800 * 1000);
    expect(o.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(validateAddress("BTC", o.deposit_address)).toMatchObject({ ok: true });
    // The address is the xpub's child at the path the order's id names (no counter anywhere).
    expect(o.deposit_address).toBe(
      deriveDepositAddress("btc", env.DEPOSIT_XPUB_BTC!, depositPath(o.short_id)),
    );
    await indexed(o.id);
    const row = await env.DB.prepare("SELECT * FROM orders WHERE id = ?").bind(o.id).first();
    expect(row).toMatchObject({
      short_id: o.short_id,
      partner_id: partner.id,
      status: "waiting_deposit",
      deposit_address: o.deposit_address,
    });
  });

  it("accepts the key as X-API-Key too, and amounts as decimal strings", async () => {
    const res = await call("/api/v1/partner/orders", {
      method: "POST",
      body: JSON.stringify({ ...BASE_ORDER, amount_from: "0.02" }),
      headers: { "X-API-Key": partner.key, "content-type": "application/json" },
    });
    expect(res.status).toBe(201);
    expect((await json<Order>(res)).amount_from_expected).toBe(0.02);
  });

  it("fixed order without quote_id takes the current fixed rate", async () => {
    const o = await json<Order>(await post({ ...BASE_ORDER, rate_type: "fixed" }));
    // fixed spread 100 bps: 0.01 × 59400 − 1 = 593
    expect(o).toMatchObject({ rate_type: "fixed", amount_to_expected: 593, rate_quoted: 59300 });
  });

  it("memo networks: the configured address and a unique tag per order", async () => {
    const a = await json<Order>(
      await post({ ...BASE_ORDER, coin_from: "XRP", network_from: "XRP", amount_from: 100 }),
    );
    const b = await json<Order>(
      await post({ ...BASE_ORDER, coin_from: "XRP", network_from: "XRP", amount_from: 100 }),
    );
    expect(a.deposit_address).toBe(env.DEPOSIT_ADDRESS_XRP!);
    expect(b.deposit_address).toBe(env.DEPOSIT_ADDRESS_XRP!);
    expect(a.deposit_address_tag).toMatch(/^\d{6,}$/);
    expect(b.deposit_address_tag).not.toBe(a.deposit_address_tag);
  });

  it("recipient tags on memo destinations; X-address tags decoded; recipient_address as given", async () => {
    const xrp = await json<Order>(
      await post({
        ...BASE_ORDER,
        coin_to: "XRP",
        network_to: "XRP",
        recipient_address: XRP_ADDR,
        recipient_address_tag: "12345",
      }),
    );
    expect(xrp).toMatchObject({ recipient_address: XRP_ADDR, recipient_address_tag: "12345" });
    const x = await json<Order>(
      await post({
        ...BASE_ORDER,
        coin_to: "XRP",
        network_to: "XRP",
        recipient_address: "XVLhHMPHU98es4dbozjVtdWzVrDjtV18pX8yuPT7y4xaEHi",
      }),
    );
    // recipient_address reads back as given (contract); the tag the payout will carry is decoded.
    expect(x.recipient_address).toBe("XVLhHMPHU98es4dbozjVtdWzVrDjtV18pX8yuPT7y4xaEHi");
    expect(x.recipient_address_tag).toBe("4294967295");
    const eth = await json<Order>(
      await post({
        ...BASE_ORDER,
        coin_to: "ETH",
        network_to: "ETH",
        recipient_address: ETH_ADDR.toLowerCase(),
      }),
    );
    expect(eth.recipient_address).toBe(ETH_ADDR.toLowerCase());
  });

  it("refund_address is validated for network_from and kept", async () => {
    const o = await json<Order>(await post({ ...BASE_ORDER, refund_address: BTC_ADDR }));
    expect(o.refund_address).toBe(BTC_ADDR);
    const e = await expectError(
      await post({ ...BASE_ORDER, refund_address: TRON_ADDR }),
      422,
      "invalid_address",
    );
    expect(e.detail).toMatch(/refund_address is not a valid BTC address/);
  });
});

describe("POST /api/v1/partner/orders: every validation branch changes nothing", () => {
  it("schema errors → 400 invalid_request naming the field", async () => {
    const before = await state();
    for (const field of Object.keys(BASE_ORDER)) {
      const body: Record<string, unknown> = { ...BASE_ORDER };
      delete body[field];
      const e = await expectError(await post(body), 400, "invalid_request");
      expect(e.errors?.map((x) => x.field)).toContain(field);
    }
    const bad: [Record<string, unknown>, string][] = [
      [{ amount_from: 0 }, "amount_from"],
      [{ amount_from: -1 }, "amount_from"],
      [{ amount_from: "abc" }, "amount_from"],
      [{ amount_from: "1e5" }, "amount_from"],
      [{ amount_from: true }, "amount_from"],
      [{ amount_from: 1e300 }, "amount_from"],
      [{ rate_type: "sometimes" }, "rate_type"],
      [{ recipient_address: 42 }, "recipient_address"],
      [{ recipient_address: "" }, "recipient_address"],
      [{ quote_id: "not a quote!" }, "quote_id"],
      [{ surprise: 1 }, ""],
    ];
    for (const [patch, field] of bad) {
      const e = await expectError(await post({ ...BASE_ORDER, ...patch }), 400, "invalid_request");
      if (field) expect(e.errors?.map((x) => x.field)).toContain(field);
    }
    await expectError(await post("{ nope"), 400, "invalid_request");
    await expectError(await post("[]"), 400, "invalid_request");
    await expectError(
      await post(BASE_ORDER, partner, { "Idempotency-Key": "x".repeat(256) }),
      400,
      "invalid_request",
    );
    expect(await state()).toEqual(before);
  });

  it("business rules → 400/422 with the reason", async () => {
    const before = await state();
    const cases: [Record<string, unknown>, number, string, RegExp][] = [
      [{ coin_from: "NOPE" }, 400, "pair_unavailable", /unknown coin NOPE/],
      [{ coin_from: "DASH", network_from: "DASH" }, 400, "pair_unavailable", /deposits of DASH/],
      [{ coin_to: "USDT", network_to: "XRP" }, 400, "pair_unavailable", /not available on network XRP/],
      // USDT's max of 500000 caps the pair: (500000 + 1) / 59700 = 8.37522613… BTC (rounded down).
      [{ amount_from: 0.0001 }, 422, "amount_below_min", /min 0\.0005 BTC, max 8\.37522613 BTC/],
      [{ amount_from: 9 }, 422, "amount_above_max", /min 0\.0005 BTC, max 8\.37522613 BTC/],
      [{ amount_from: 0.123456789 }, 400, "invalid_amount", /8 decimal places/],
      [
        { recipient_address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6T" },
        422,
        "invalid_address",
        /not a valid TRX address/,
      ],
      [{ recipient_address: BTC_ADDR }, 422, "invalid_address", /recipient_address/],
      [{ recipient_address_tag: "123" }, 422, "invalid_tag", /TRX does not use memos/],
      [
        { coin_to: "XRP", network_to: "XRP", recipient_address: XRP_ADDR, recipient_address_tag: "abc" },
        422,
        "invalid_tag",
        /XRP tag/,
      ],
      [
        {
          coin_to: "XRP",
          network_to: "XRP",
          recipient_address: "XVLhHMPHU98es4dbozjVtdWzVrDjtV18pX8yuPT7y4xaEHi",
          recipient_address_tag: "1",
        },
        422,
        "invalid_tag",
        /X-address/,
      ],
      [{ refund_address_tag: "1" }, 422, "invalid_tag", /needs a refund_address/],
      [
        { coin_from: "SOL", network_from: "SOL", amount_from: 1 },
        400,
        "pair_unavailable",
        /no free deposit address for SOL/,
      ],
    ];
    for (const [patch, status, code, detail] of cases) {
      const e = await expectError(await post({ ...BASE_ORDER, ...patch }), status, code);
      expect(e.detail).toMatch(detail);
    }
    expect(await state()).toEqual(before);
  });

  it("quote_id: locks the quote; unknown, foreign, expired and mismatching quotes → 422", async () => {
    const quote = async (p: TestPartner, amount = "0.01") => {
      const r = await call(
        `/api/v1/partner/rates?coin_from=BTC&coin_to=USDT&network_to=TRX&amount=${amount}&rate_type=fixed`,
        {
          headers: { "X-API-Key": p.key },
        },
      );
      return json<{ quote_id: string; rate: number; amount_to: number }>(r);
    };
    const q = await quote(partner);
    const before = await state();
    await expectError(await post({ ...BASE_ORDER, quote_id: q.quote_id }), 422, "quote_mismatch"); // float + quote
    await expectError(
      await post({ ...BASE_ORDER, rate_type: "fixed", quote_id: crypto.randomUUID() }),
      422,
      "quote_not_found",
    );
    // A forged quote: the terms changed (a better rate), the tag kept.
    const [, payload, tag] = q.quote_id.split(".");
    const terms = JSON.parse(new TextDecoder().decode(base64urlnopad.decode(payload ?? "")));
    terms[7] = "99999";
    const forged = `q1.${base64urlnopad.encode(new TextEncoder().encode(JSON.stringify(terms)))}.${tag}`;
    await expectError(
      await post({ ...BASE_ORDER, rate_type: "fixed", quote_id: forged }),
      422,
      "quote_not_found",
    );
    await expectError(
      await post({ ...BASE_ORDER, rate_type: "fixed", quote_id: `${q.quote_id.slice(0, -2)}xx` }),
      422,
      "quote_not_found",
    );
    // A public quote (no key) has nothing to lock: no quote_id at all.
    const anon = await json<{ quote_id?: string }>(
      await call(
        "/api/v1/partner/rates?coin_from=BTC&coin_to=USDT&network_to=TRX&amount=0.01&rate_type=fixed",
      ),
    );
    expect(anon.quote_id).toBeUndefined();
    const foreign = await quote(other);
    await expectError(
      await post({ ...BASE_ORDER, rate_type: "fixed", quote_id: foreign.quote_id }),
      422,
      "quote_not_found",
    );
    await expectError(
      await post({ ...BASE_ORDER, rate_type: "fixed", amount_from: 0.02, quote_id: q.quote_id }),
      422,
      "quote_mismatch",
    );
    await expectError(
      await post({
        ...BASE_ORDER,
        rate_type: "fixed",
        coin_to: "USDT",
        network_to: "ETH",
        recipient_address: ETH_ADDR,
        quote_id: q.quote_id,
      }),
      422,
      "quote_mismatch",
    );
    expect(await state()).toEqual(before);

    // Prices move; the locked quote keeps its rate.
    await setPrices({ BTC: "50000" });
    const locked = await json<Order>(await post({ ...BASE_ORDER, rate_type: "fixed", quote_id: q.quote_id }));
    expect(locked).toMatchObject({ rate_quoted: q.rate, amount_to_expected: q.amount_to });
    expect(locked.rate_quoted).toBe(59300);
    await setPrices();

    const late = await quote(partner);
    vi.useFakeTimers({ now: Date.now() + 61_000, toFake: ["Date"] });
    const e = await expectError(
      await post({ ...BASE_ORDER, rate_type: "fixed", quote_id: late.quote_id }),
      422,
      "quote_expired",
    );
    expect(e.detail).toMatch(/expired/);
  });

  it("SOL: an operator-loaded pool; each order takes one address, then the pair is unavailable again", async () => {
    const addrs = ["11111111111111111111111111111111", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"];
    await expectError(
      await admin("/address-pool/SOL", { method: "POST", json: { addresses: ["nope"] } }),
      400,
      "invalid_request",
    );
    const load = await admin("/address-pool/sol", { method: "POST", json: { addresses: addrs } });
    expect(load.status).toBe(201);
    expect(await json(load)).toEqual({ network: "SOL", added: 2 });
    const body = { ...BASE_ORDER, coin_from: "SOL", network_from: "SOL", amount_from: 1 };
    const a = await json<Order>(await post(body));
    const b = await json<Order>(await post(body));
    expect(new Set([a.deposit_address, b.deposit_address])).toEqual(new Set(addrs));
    await expectError(await post(body), 400, "pair_unavailable");
    // Each assignment reaches D1 from the region's pool shard just after its answer.
    await vi.waitFor(async () =>
      expect(await json(await admin("/address-pool"))).toEqual({
        low_water: 200,
        data: [{ network: "SOL", available: 0, reserved: 0, assigned: 2, free: 0, low: true, shards: [] }],
      }),
    );
  });
});

describe("Idempotency-Key", () => {
  it("same key and body → 201 with the same body; different body → 422; other partner → separate order", async () => {
    const key = `idem-${crypto.randomUUID()}`;
    const first = await post(BASE_ORDER, partner, { "Idempotency-Key": key });
    expect(first.status).toBe(201);
    const a = await json<Order>(first);
    const again = await post(BASE_ORDER, partner, { "Idempotency-Key": key });
    expect(again.status).toBe(201);
    expect(await json<Order>(again)).toEqual(a);
    const before = await state();
    await expectError(
      await post({ ...BASE_ORDER, amount_from: 0.02 }, partner, { "Idempotency-Key": key }),
      422,
      "idempotency_conflict",
    );
    expect(await state()).toEqual(before);
    const theirs = await json<Order>(await post(BASE_ORDER, other, { "Idempotency-Key": key }));
    expect(theirs.id).not.toBe(a.id);
  });

  it("a retry replays the first order even after its quote expired and prices moved", async () => {
    const q = await json<{ quote_id: string }>(
      await call(
        "/api/v1/partner/rates?coin_from=BTC&coin_to=USDT&network_to=TRX&amount=0.01&rate_type=fixed",
        { headers: { "X-API-Key": partner.key } },
      ),
    );
    const body = { ...BASE_ORDER, rate_type: "fixed", quote_id: q.quote_id };
    const key = `later-${crypto.randomUUID()}`;
    const first = await json<Order>(await post(body, partner, { "Idempotency-Key": key }));
    // The quote has expired and the pair's minimum is now above the order's amount.
    vi.useFakeTimers({ now: Date.now() + 120_000, toFake: ["Date"] });
    await setPrices({ BTC: "100" });
    try {
      const retry = await post(body, partner, { "Idempotency-Key": key });
      expect(retry.status).toBe(201);
      expect(await json<Order>(retry)).toEqual(first);
      // A new key is validated as usual.
      await expectError(
        await post(body, partner, { "Idempotency-Key": `${key}-2` }),
        422,
        "amount_below_min",
      );
    } finally {
      vi.useRealTimers();
      await setPrices();
    }
  });

  it("a retry after an eviction between the record and its projection replays the order; the index row lands once", async () => {
    const key = `evicted-${crypto.randomUUID()}`;
    const first = await post(BASE_ORDER, partner, { "Idempotency-Key": key });
    expect(first.status).toBe(201);
    const o = await json<Order>(first);
    expect(o.id).toBe(orderIdOf(idempotentShortId(partner.id, key, 0)));
    // Evicted before the alarm projected it: the record (the truth) is there, the index row not yet.
    const stub = env.ORDERS.getByName(o.id);
    await env.DB.prepare("DELETE FROM orders WHERE id = ?").bind(o.id).run();
    await runInDurableObject(stub, (_obj, state) => state.storage.kv.put("projection_pending", true));
    const retry = await post(BASE_ORDER, partner, { "Idempotency-Key": key });
    expect(retry.status).toBe(201);
    expect(await json<Order>(retry)).toEqual(o);
    expect(await json<Order>(await get(o.short_id.toLowerCase()))).toEqual(o);
    // The pending projection runs on the next alarm, and once only: replays change nothing.
    await runDurableObjectAlarm(stub);
    await runDurableObjectAlarm(stub);
    const rows = await env.DB.prepare("SELECT short_id, deposit_address, version FROM orders WHERE id = ?")
      .bind(o.id)
      .all();
    expect(rows.results).toEqual([{ short_id: o.short_id, deposit_address: o.deposit_address, version: 1 }]);
  });

  it("concurrent duplicates create one order", async () => {
    const key = `race-${crypto.randomUUID()}`;
    const before = (await state()).orders ?? 0;
    const results = await Promise.all(
      Array.from({ length: 10 }, () => post(BASE_ORDER, partner, { "Idempotency-Key": key })),
    );
    const bodies = await Promise.all(results.map((r) => json<Order>(r)));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    expect(new Set(bodies.map((b) => b.id)).size).toBe(1);
    expect(new Set(bodies.map((b) => b.deposit_address)).size).toBe(1);
    expect((await state()).orders).toBe(before + 1);
  });
});

describe("GET /api/v1/partner/orders/{order_id}", () => {
  it("by UUID and by short_id in any case; another partner's order is 404 like an unknown one", async () => {
    const o = await json<Order>(await post(BASE_ORDER));
    expect(await json<Order>(await get(o.id))).toEqual(o);
    expect(await json<Order>(await get(o.short_id.toLowerCase()))).toEqual(o);
    const mixed = [...o.short_id].map((ch, i) => (i % 2 ? ch.toLowerCase() : ch)).join("");
    expect((await get(mixed)).status).toBe(200);
    const unknown = await expectError(await get(crypto.randomUUID()), 404, "order_not_found");
    const foreignUuid = await expectError(await get(o.id, other), 404, "order_not_found");
    const foreignShort = await expectError(await get(o.short_id, other), 404, "order_not_found");
    expect(foreignUuid.detail).toBe(unknown.detail);
    expect(foreignShort.detail).toBe(unknown.detail);
    await expectError(await get("not-an-id"), 404, "order_not_found");
    await expectError(await get("x".repeat(300)), 404, "order_not_found");
  });

  it("needs the key", async () => {
    const o = await json<Order>(await post(BASE_ORDER));
    await expectError(await call(`/api/v1/partner/orders/${o.id}`), 401, "invalid_api_key");
  });

  it("answers the bytes of the order's view, kept by its object until the order changes", async () => {
    const o = await json<Order>(await post(BASE_ORDER));
    const stub = env.ORDERS.getByName(o.id);
    for (let i = 0; i < 2; i++) {
      const res = await get(o.id);
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.headers.get("ratelimit-policy")).toBe('"partner";q=5000;w=60');
      expect(await res.text()).toBe(JSON.stringify(await stub.get(partner.id)));
    }
    vi.useFakeTimers({ now: Date.parse(o.expires_at), toFake: ["Date"] });
    await runDurableObjectAlarm(stub);
    const expired = await get(o.short_id);
    const text = await expired.text();
    expect(JSON.parse(text)).toMatchObject({ status: "expired" });
    expect(text).toBe(JSON.stringify(await stub.get(partner.id)));
  });
});

describe("expiry", () => {
  it("the alarm expires an order still waiting at expires_at, not before; the index and the event log follow", async () => {
    const o = await json<Order>(await post(BASE_ORDER));
    const stub = env.ORDERS.getByName(o.id);
    expect(await runDurableObjectAlarm(stub)).toBe(true); // early run: nothing is due yet
    expect((await json<Order>(await get(o.id))).status).toBe("waiting_deposit");

    vi.useFakeTimers({ now: Date.parse(o.expires_at), toFake: ["Date"] });
    await runDurableObjectAlarm(stub);
    const expired = await json<Order>(await get(o.id));
    expect(expired.status).toBe("expired");
    expect(expired.status_reason).toBeNull();
    const row = await env.DB.prepare("SELECT status, updated_at FROM orders WHERE id = ?").bind(o.id).first();
    expect(row).toEqual({ status: "expired", updated_at: expired.updated_at });
    const view = await json<{ events: { from_status: string | null; to_status: string; reason: string }[] }>(
      await admin(`/orders/${o.id}`),
    );
    expect(view.events.map((e) => [e.from_status, e.to_status])).toEqual([
      [null, "waiting_deposit"],
      ["waiting_deposit", "expired"],
    ]);
    // At-least-once alarms: a second run changes nothing.
    await runDurableObjectAlarm(stub);
    const again = await json<{ events: unknown[] }>(await admin(`/orders/${o.short_id.toLowerCase()}`));
    expect(again.events).toHaveLength(2);
  });

  it("the cron sweep repairs an order whose alarm was lost", async () => {
    const o = await postIndexed(BASE_ORDER);
    const stub = env.ORDERS.getByName(o.id);
    await runInDurableObject(stub, (_obj, state) => state.storage.deleteAlarm());
    vi.useFakeTimers({ now: Date.parse(o.expires_at) + 120_000, toFake: ["Date"] });
    expect(await runDurableObjectAlarm(stub)).toBe(false); // no alarm left to fire
    expect((await json<Order>(await get(o.id))).status).toBe("waiting_deposit");
    const swept = await sweepLostAlarms(env, Date.now());
    expect(swept).toBeGreaterThanOrEqual(1);
    expect((await json<Order>(await get(o.id))).status).toBe("expired");
  });

  it("the sweep wakes each overdue order once per run, even those it cannot move on", async () => {
    const mine = await Promise.all(Array.from({ length: 5 }, () => postIndexed(BASE_ORDER)));
    const faults = (rate: number) =>
      admin("/sim/BTC/faults", {
        method: "PUT",
        json: { read_fail_rate: rate, payout_fail_rate: 0, payout_timeout_rate: 0, exchange_fail_rate: 0 },
      });
    expect((await faults(1)).status).toBe(200);
    try {
      const deadline = Math.max(...mine.map((o) => Date.parse(o.expires_at)));
      vi.useFakeTimers({ now: deadline + 120_000, toFake: ["Date"] });
      const overdue = await env.DB.prepare(
        "SELECT COUNT(*) AS n FROM orders WHERE status = 'waiting_deposit' AND expires_at < ?",
      )
        .bind(new Date(Date.now() - 60_000).toISOString())
        .first<{ n: number }>();
      expect(overdue?.n).toBeGreaterThanOrEqual(5);
      // Chain reads fail, so the BTC orders stay waiting_deposit after their tick; pages of 2.
      const swept = await sweepLostAlarms(env, Date.now(), { batch: 2, maxBatches: 1_000 });
      expect(swept).toBe(overdue?.n);
      for (const o of mine) expect((await json<Order>(await get(o.id))).status).toBe("waiting_deposit");
    } finally {
      expect((await faults(0)).status).toBe(200);
    }
    expect(await sweepLostAlarms(env, Date.now())).toBeGreaterThanOrEqual(5);
    for (const o of mine) expect((await json<Order>(await get(o.id))).status).toBe("expired");
  });

  it("the sweep wakes an order stuck in any non-terminal status, not only waiting_deposit", async () => {
    const o = await json<Order>(await post(BASE_ORDER));
    await admin("/sim/BTC/faults", { method: "PUT", json: { exchange_fail_rate: 1 } });
    try {
      const send = await admin("/sim/BTC/transfers", {
        method: "POST",
        json: { to: o.deposit_address, amount: "0.01" },
      });
      expect(send.status).toBe(201);
      await admin("/sim/BTC/blocks", { method: "POST", json: { count: 3 } });
      const stub = env.ORDERS.getByName(o.id);
      vi.useFakeTimers({ now: Date.now() + 60_000, toFake: ["Date"] });
      await stub.tick();
      expect((await json<Order>(await get(o.id))).status).toBe("exchanging");
    } finally {
      await admin("/sim/BTC/faults", { method: "PUT", json: {} });
    }
    // The alarm is lost while the exchange waits for its retry.
    const stub = env.ORDERS.getByName(o.id);
    await runInDurableObject(stub, (_obj, state) => state.storage.deleteAlarm());
    vi.useFakeTimers({ now: Date.now() + 11 * 60_000, toFake: ["Date"] });
    await setPrices();
    expect(await runDurableObjectAlarm(stub)).toBe(false);
    expect(await sweepLostAlarms(env, Date.now())).toBeGreaterThanOrEqual(1);
    expect((await json<Order>(await get(o.id))).status).not.toBe("exchanging");
  });

  it("a backlog the sweep cannot move on does not starve the orders behind it", async () => {
    // BTC orders whose chain reads fail stay waiting_deposit however often they are woken; the
    // LTC orders behind them expire as soon as the sweep reaches them.
    const stuck = await Promise.all(Array.from({ length: 3 }, () => postIndexed(BASE_ORDER)));
    const ltc = await Promise.all(
      Array.from({ length: 3 }, () =>
        postIndexed({ ...BASE_ORDER, coin_from: "LTC", network_from: "LTC", amount_from: 1 }),
      ),
    );
    await admin("/sim/BTC/faults", { method: "PUT", json: { read_fail_rate: 1 } });
    try {
      const deadline = Math.max(...[...stuck, ...ltc].map((o) => Date.parse(o.expires_at)));
      vi.useFakeTimers({ now: deadline + 120_000, toFake: ["Date"] });
      const overdue = await env.DB.prepare(
        "SELECT COUNT(*) AS n FROM orders WHERE status = 'waiting_deposit' AND expires_at < ?",
      )
        .bind(new Date(Date.now() - 60_000).toISOString())
        .first<{ n: number }>();
      // Small runs: two orders each. Enough runs to go round the backlog once reach every order.
      for (let run = 0; run < Math.ceil((overdue?.n ?? 0) / 2) + 1; run++)
        await sweepLostAlarms(env, Date.now(), { batch: 2, maxBatches: 1 });
      for (const o of ltc) expect((await json<Order>(await get(o.id))).status).toBe("expired");
      for (const o of stuck) expect((await json<Order>(await get(o.id))).status).toBe("waiting_deposit");
    } finally {
      await admin("/sim/BTC/faults", { method: "PUT", json: {} });
    }
  });
});

describe("GET /api/v1/partner/orders: query plan", () => {
  it("a page after a cursor seeks on the index, even with a status filter", async () => {
    const plan = async (q: Parameters<typeof listOrdersStatement>[0]) => {
      const s = listOrdersStatement(q);
      const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${s.sql}`)
        .bind(...s.args)
        .all<{ detail: string }>();
      return results.map((r) => r.detail).join(" | ");
    };
    const after = { createdAt: "2026-01-01T00:00:00.000Z", id: "00000000-0000-4000-8000-000000000000" };
    expect(await plan({ partnerId: "p", livemode: true, after, limit: 51 })).toMatch(
      /USING INDEX \w+ \(partner_id=\? AND livemode=\? AND created_at<\?\)/,
    );
    expect(await plan({ partnerId: "p", livemode: true, status: "completed", after, limit: 51 })).toMatch(
      /USING INDEX \w+ \(partner_id=\? AND livemode=\? AND status=\? AND created_at<\?\)/,
    );
  });
});

describe("POST /api/v1/partner/orders: a numeric amount is bounded", () => {
  it("a JSON number above 1e15 is a 400 naming amount_from, as the document's maximum says", async () => {
    const res = await post({ ...BASE_ORDER, amount_from: 1e16 });
    const body = await expectError(res, 400, "invalid_request");
    expect(JSON.stringify(body)).toContain("amount_from");
    const doc = await json<{
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    }>(await call("/api/v1/openapi.json"));
    expect(
      JSON.stringify(Object.values(doc.components.schemas).map((s) => s.properties?.amount_from)),
    ).toContain('"maximum":1000000000000000');
  });
});
