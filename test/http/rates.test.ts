import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { base64urlnopad } from "@scure/base";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { getConfig } from "../../src/config";
import worker from "../../src/index";
import { FREE_CACHE_MS } from "../../src/services/liquidity-cap";
import { refreshPrices } from "../../src/storage/market";
import {
  admin,
  BASE,
  BCH_ROW_ID,
  call,
  createPartner,
  delistDuringTest,
  expectError,
  freshIp,
  json,
  setPrices,
  type TestPartner,
} from "../helpers";

interface RateQuote {
  coin_from: string;
  coin_to: string;
  network_from: string;
  network_to: string;
  rate_type: string;
  rate: number;
  amount_from: number;
  amount_to: number;
  min_amount: number;
  max_amount: number;
  expires_in: number | null;
  quote_id?: string;
}

const rates = (query: string, headers: Record<string, string> = {}) =>
  call(`/api/v1/partner/rates?${query}`, { headers });

beforeAll(async () => {
  await setPrices();
});

afterEach(() => {
  vi.useRealTimers();
});

describe("GET /api/v1/partner/rates: quotes", () => {
  // BTC 60000 USD, ETH 3000 USD → mid 20. Float spread 50 bps → 19.9 before fee.
  // ETH payout fee 0.0015. Pair min = max(0.0005 BTC, (0.005+0.0015)/19.9) = 0.0005;
  // max = min(10 BTC, (200+0.0015)/19.9 = 10.05…) = 10.
  it("float quote for an amount: every contract field, hand-checked", async () => {
    const res = await rates("coin_from=BTC&coin_to=ETH&amount=0.1");
    expect(res.status).toBe(200);
    const q = await json<RateQuote>(res);
    // 0.1 × 19.9 − 0.0015 = 1.9885; rate = 1.9885 / 0.1 = 19.885
    expect(q).toEqual({
      coin_from: "BTC",
      coin_to: "ETH",
      network_from: "BTC",
      network_to: "ETH",
      rate_type: "float",
      rate: 19.885,
      amount_from: 0.1,
      amount_to: 1.9885,
      // The floor at the default 100 bps: (1.9885 + 0.0015) × 0.99 − 0.0015 = 1.9686.
      amount_to_min: 1.9686,
      min_amount: 0.0005,
      max_amount: 10,
      // 0.1 × 20 = 2 at mid; spread 0.5 % of it = 0.01; 2 − 0.01 − 0.0015 = 1.9885
      fees: { gross: 2, service: 0.01, partner: 0, network: 0.0015, coin: "ETH" },
      // No history yet: BTC's 2 confirmations at 600 s a block (gamma median ≈ 1.68 block times,
      // 90th percentile ≈ 3.87), plus a poll (2 s here) and the exchange and payout (90 s).
      eta_seconds: { p50: 1_103, p90: 2_417 },
      eta_source: "estimate",
      expires_in: null,
    });
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("amount_to_min: the partner's max_slippage_bps off the gross, less the fee; fixed quotes pay amount_to", async () => {
    const floor = async (query: string) => {
      const q = await json<RateQuote & { amount_to_min: number }>(
        await rates(`coin_from=BTC&coin_to=ETH&amount=0.1${query}`),
      );
      return [q.amount_to, q.amount_to_min];
    };
    // (1.9885 + 0.0015) × (1 − 5 %) − 0.0015 = 1.889
    expect(await floor("&max_slippage_bps=500")).toEqual([1.9885, 1.889]);
    expect(await floor("&max_slippage_bps=0")).toEqual([1.9885, 1.9885]);
    const [fixedTo, fixedMin] = await floor("&rate_type=fixed&max_slippage_bps=500");
    expect(fixedMin).toBe(fixedTo);
  });

  it("max_slippage_bps outside 0–1000 or not an integer: 400 invalid_request", async () => {
    for (const bad of ["1001", "-1", "1.5", "abc"])
      await expectError(
        await rates(`coin_from=BTC&coin_to=ETH&amount=0.1&max_slippage_bps=${bad}`),
        400,
        "invalid_request",
      );
  });

  it("without amount uses the pair's min_amount", async () => {
    const q = await json<RateQuote>(await rates("coin_from=btc&coin_to=eth"));
    // 0.0005 × 19.9 − 0.0015 = 0.00845; rate = 16.9
    expect(q).toMatchObject({ amount_from: 0.0005, amount_to: 0.00845, rate: 16.9, coin_from: "BTC" });
  });

  it("fixed quote: larger spread, expires_in seconds, a quote_id that carries the signed terms", async () => {
    const p = await createPartner();
    const before = Date.now();
    const fixed = () =>
      rates("coin_from=BTC&coin_to=ETH&amount=0.1&rate_type=fixed", { Authorization: `Bearer ${p.key}` });
    const q = await json<RateQuote>(await fixed());
    // Fixed spread 100 bps → 19.8; 0.1 × 19.8 − 0.0015 = 1.9785
    expect(q).toMatchObject({ rate_type: "fixed", rate: 19.785, amount_to: 1.9785, expires_in: 60 });
    const [prefix, payload, tag] = (q.quote_id ?? "").split(".");
    expect(prefix).toBe("q1");
    expect(tag).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const terms = JSON.parse(new TextDecoder().decode(base64urlnopad.decode(payload ?? "")));
    // [partner, coin/network from, coin/network to, amount_from, amount_to, rate, expires_at, nonce]
    expect(terms.slice(0, 8)).toEqual([p.id, "BTC", "BTC", "ETH", "ETH", "0.1", "1.9785", "19.785"]);
    expect(terms[8]).toBeGreaterThanOrEqual(before + 60_000);
    expect(terms[8]).toBeLessThanOrEqual(Date.now() + 60_000);
    // Two identical requests still get distinct ids.
    const again = await json<RateQuote>(await fixed());
    expect(again.quote_id).not.toBe(q.quote_id);
  });

  it("a keyless fixed quote prices at the fixed spread but has nothing to lock: no quote_id, expires_in null", async () => {
    const q = await json<RateQuote>(await rates("coin_from=BTC&coin_to=ETH&amount=0.1&rate_type=fixed"));
    expect(q).toMatchObject({ rate_type: "fixed", rate: 19.785, amount_to: 1.9785, expires_in: null });
    expect(q).not.toHaveProperty("quote_id");
  });

  it("reverse quote with amount_to gives the smallest amount that delivers it", async () => {
    const q = await json<RateQuote>(await rates("coin_from=BTC&coin_to=ETH&amount_to=1.9885"));
    expect(q).toMatchObject({ amount_from: 0.1, amount_to: 1.9885, rate: 19.885 });
    // 1 ETH needs (1 + 0.0015) / 19.9 = 0.05032663… → 0.05032664 BTC (rounded up to 8 places)
    const r = await json<RateQuote>(await rates("coin_from=BTC&coin_to=ETH&amount_to=1"));
    expect(r.amount_from).toBe(0.05032664);
    expect(r.amount_to).toBeGreaterThanOrEqual(1);
  });

  it("partner pricing differs from public pricing by exactly the markup", async () => {
    const p = await createPartner({ markup_bps: 30 });
    const pub = await json<RateQuote>(await rates("coin_from=BTC&coin_to=ETH&amount=0.1"));
    const priv = await json<RateQuote>(
      await rates("coin_from=BTC&coin_to=ETH&amount=0.1", { "X-API-Key": p.key }),
    );
    // 20 × (1 − 0.0080) = 19.84 → 0.1 × 19.84 − 0.0015 = 1.9825
    expect(priv).toMatchObject({ amount_to: 1.9825, rate: 19.825 });
    // The difference is amount × mid × markup = 0.1 × 20 × 0.003 = 0.006 ETH.
    expect(Math.round((pub.amount_to - priv.amount_to) * 1e8) / 1e8).toBe(0.006);
    const bearer = await json<RateQuote>(
      await rates("coin_from=BTC&coin_to=ETH&amount=0.1", { Authorization: `Bearer ${p.key}` }),
    );
    expect(bearer.amount_to).toBe(1.9825);
  });

  it("a pair priced again and again: each quote from the prices, spread and markup in force", async () => {
    // The isolate keeps a pair's pricing input and model per price rows, spread and markup; a
    // new price, another rate type or another partner's markup must each be priced afresh.
    const p = await createPartner({ markup_bps: 30 });
    const q = (query: string, headers?: Record<string, string>) =>
      rates(`coin_from=BTC&coin_to=ETH&amount=0.1${query}`, headers).then((r) => json<RateQuote>(r));
    expect((await q("")).amount_to).toBe(1.9885);
    expect((await q("&rate_type=fixed")).amount_to).toBe(1.9785);
    expect((await q("", { "X-API-Key": p.key })).amount_to).toBe(1.9825);
    expect((await q("")).amount_to).toBe(1.9885);
    try {
      // BTC 66000 → mid 22; 0.1 × 22 × 0.995 − 0.0015 = 2.1875; fixed: 0.1 × 22 × 0.99 − 0.0015 = 2.1765
      await setPrices({ BTC: "66000" });
      expect(await q("")).toMatchObject({ amount_to: 2.1875, rate: 21.875 });
      expect((await q("&rate_type=fixed")).amount_to).toBe(2.1765);
    } finally {
      await setPrices();
    }
    expect((await q("")).amount_to).toBe(1.9885);
  });

  it("a query asked again is answered as that query; another query, valid or not, as itself", async () => {
    // The isolate remembers each valid query text's parse (repeatableQuery in src/http/router.ts).
    const amountTo = async (query: string) => (await json<RateQuote>(await rates(query))).amount_to;
    for (let i = 0; i < 2; i++) {
      expect(await amountTo("coin_from=BTC&coin_to=ETH&amount=0.1")).toBe(1.9885);
      expect(await amountTo("coin_from=BTC&coin_to=ETH&amount=0.2")).toBe(3.9785);
      expect(await amountTo("coin_from=BTC&coin_to=ETH&amount=0.1&rate_type=fixed")).toBe(1.9785);
      await expectError(
        await rates("coin_from=BTC&coin_to=ETH&amount=0.1&rate_type=fixd"),
        400,
        "invalid_request",
      );
    }
  });

  it("X-End-User-Country asked again is checked as itself: a valid one (or none) answers, a malformed one never", async () => {
    // The isolate remembers each valid header set's parse (repeatableHeaders in src/http/router.ts).
    const query = "coin_from=BTC&coin_to=ETH&amount=0.1";
    for (let i = 0; i < 2; i++) {
      expect((await rates(query)).status).toBe(200);
      expect((await rates(query, { "X-End-User-Country": "de" })).status).toBe(200);
      const bad = await rates(query, { "X-End-User-Country": "D1" });
      await expectError(bad.clone(), 400, "invalid_request");
      expect((await json<{ errors: { field: string }[] }>(bad)).errors[0]?.field).toBe("x-end-user-country");
    }
  });

  it("a stablecoin pair on chosen networks, rounded to 6 decimals", async () => {
    // USDT/TRX → USDC/ETH: mid 1, 0.995 × 100 − 5 = 94.5
    const q = await json<RateQuote>(
      await rates("coin_from=USDT&network_from=TRX&coin_to=USDC&network_to=ETH&amount=100"),
    );
    expect(q).toMatchObject({ network_from: "TRX", network_to: "ETH", amount_to: 94.5, rate: 0.945 });
  });
});

describe("GET /api/v1/partner/rates: where the caller is, read only when it matters", () => {
  /** A quote whose `request.cf` counts its reads (the runtime parses it on the first). */
  const quoteCountingCf = async (query: string, headers: Record<string, string> = {}) => {
    const req = new Request(`${BASE}/api/v1/partner/rates?${query}`, {
      headers: { "cf-connecting-ip": freshIp(), ...headers },
    });
    let reads = 0;
    Object.defineProperty(req, "cf", {
      get: () => {
        reads++;
        return { country: "DE", continent: "EU" };
      },
    });
    // Straight to the Worker's handler: through `exports` the request would be copied, getter and all.
    const ctx = createExecutionContext();
    const res = await worker.fetch(req, env, ctx);
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(200);
    return reads;
  };

  it("without region restrictions, a coin the ledger does not limit is quoted without request.cf", async () => {
    const query = "coin_from=BTC&coin_to=ETH&amount=0.1";
    // Past what earlier quotes learnt: the first quote asks its region's shard again, and the
    // shard's "not limited" then holds for the coin.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + FREE_CACHE_MS);
    expect(await quoteCountingCf(query)).toBeGreaterThan(0);
    expect(await quoteCountingCf(query)).toBe(0);
    expect(await quoteCountingCf(`${query}&rate_type=fixed`)).toBe(0);
  });
});

describe("GET /api/v1/partner/rates: errors", () => {
  let partner: TestPartner;
  beforeAll(async () => {
    partner = await createPartner();
  });

  it("coin on several networks without a network → 400 listing them", async () => {
    const e = await expectError(await rates("coin_from=USDT&coin_to=BTC"), 400, "network_required");
    expect(e.detail).toMatch(/ETH, TRX, BSC/);
    expect(e.detail).toMatch(/network_from/);
    const e2 = await expectError(await rates("coin_from=BTC&coin_to=USDC"), 400, "network_required");
    expect(e2.detail).toMatch(/network_to/);
  });

  it("unavailable pairs → 400 pair_unavailable with the reason", async () => {
    await delistDuringTest(BCH_ROW_ID);
    const cases: [string, RegExp][] = [
      ["coin_from=NOPE&coin_to=BTC", /unknown coin NOPE/],
      ["coin_from=BCH&coin_to=BTC", /BCH is not active/],
      ["coin_from=BTC&coin_to=BCH&network_to=BCH", /BCH on BCH is not active/],
      ["coin_from=DASH&coin_to=BTC", /deposits of DASH on DASH are disabled/],
      ["coin_from=BTC&coin_to=BTC", /on both sides/],
      [
        "coin_from=USDT&network_from=XRP&coin_to=BTC",
        /not available on network XRP; it is on ETH, TRX, BSC, AVAXC, SOL/,
      ],
    ];
    for (const [query, reason] of cases) {
      const e = await expectError(await rates(query), 400, "pair_unavailable");
      expect(e.detail).toMatch(reason);
    }
    // DASH is still a valid destination: only deposits are disabled.
    expect((await rates("coin_from=BTC&coin_to=DASH&amount=0.01")).status).toBe(200);
  });

  it("no deposit address to give, or withdrawals disabled → 400 pair_unavailable", async () => {
    const sol = "coin_from=SOL&coin_to=BTC&amount=1";
    const e = await expectError(await rates(sol), 400, "pair_unavailable");
    expect(e.detail).toMatch(/no free deposit address for SOL/);
    const load = await admin("/address-pool/SOL", {
      method: "POST",
      json: { addresses: ["11111111111111111111111111111111"] },
    });
    expect(load.status).toBe(201);
    expect((await rates(sol)).status).toBe(200);

    await env.DB.prepare("UPDATE currencies SET is_withdraw_enabled = 0 WHERE coin = 'LTC'").run();
    try {
      // The catalog is cached for 5 s.
      vi.useFakeTimers({ now: Date.now() + 6_000, toFake: ["Date"] });
      const w = await expectError(
        await rates("coin_from=BTC&coin_to=LTC&amount=0.01"),
        400,
        "pair_unavailable",
      );
      expect(w.detail).toMatch(/withdrawals of LTC on LTC are disabled/);
      expect((await rates("coin_from=LTC&coin_to=BTC&amount=1")).status).toBe(200);
    } finally {
      await env.DB.prepare("UPDATE currencies SET is_withdraw_enabled = 1 WHERE coin = 'LTC'").run();
    }
  });

  it("schema problems → 400 invalid_request naming the field", async () => {
    const cases: [string, string][] = [
      ["coin_to=BTC", "coin_from"],
      ["coin_from=BTC", "coin_to"],
      ["coin_from=BTC&coin_to=ETH&rate_type=weird", "rate_type"],
      ["coin_from=BTC&coin_to=ETH&amount=abc", "amount"],
      ["coin_from=BTC&coin_to=ETH&amount=-1", "amount"],
      ["coin_from=BTC&coin_to=ETH&amount=1e5", "amount"],
      ["coin_from=BTC&coin_to=ETH&amount=0x10", "amount"],
      ["coin_from=BTC&coin_to=ETH&amount=", "amount"],
    ];
    for (const [query, field] of cases) {
      const e = await expectError(await rates(query), 400, "invalid_request");
      expect(e.errors?.map((x) => x.field)).toContain(field);
      expect(e.detail).toContain(field);
    }
    await expectError(await rates("coin_from=BTC&coin_to=ETH&amount=1&amount_to=1"), 400, "invalid_request");
  });

  it("zero and over-precise amounts → 400 invalid_amount", async () => {
    const zero = await expectError(await rates("coin_from=BTC&coin_to=ETH&amount=0"), 400, "invalid_amount");
    expect(zero.detail).toMatch(/greater than 0/);
    const precise = await expectError(
      await rates("coin_from=BTC&coin_to=ETH&amount=0.123456789"),
      400,
      "invalid_amount",
    );
    expect(precise.detail).toMatch(/8 decimal places/);
  });

  it("amount outside [min, max] → 422 naming both limits", async () => {
    const low = await expectError(
      await rates("coin_from=BTC&coin_to=ETH&amount=0.0001"),
      422,
      "amount_below_min",
    );
    expect(low.detail).toContain("min 0.0005 BTC");
    expect(low.detail).toContain("max 10 BTC");
    const high = await expectError(
      await rates("coin_from=BTC&coin_to=ETH&amount=11"),
      422,
      "amount_above_max",
    );
    expect(high.detail).toContain("min 0.0005 BTC, max 10 BTC");
    await expectError(await rates("coin_from=BTC&coin_to=ETH&amount_to=0.001"), 422, "amount_below_min");
  });

  it("a bad key on rates → 401, an inactive partner → 403", async () => {
    await expectError(
      await rates("coin_from=BTC&coin_to=ETH", { "X-API-Key": "plaintext" }),
      401,
      "invalid_api_key",
    );
    await admin(`/partners/${partner.id}`, { method: "PATCH", json: { is_active: false } });
    await expectError(
      await rates("coin_from=BTC&coin_to=ETH", { "X-API-Key": partner.key }),
      403,
      "partner_inactive",
    );
  });

  it("stale prices → 503 prices_stale with Retry-After", async () => {
    vi.useFakeTimers({ now: Date.now() + 301_000, toFake: ["Date"] });
    const res = await rates("coin_from=BTC&coin_to=ETH");
    const e = await expectError(res, 503, "prices_stale");
    expect(e.detail).toMatch(/BTC/);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("prices", () => {
  it("the operator sets static prices; bad values → 400 and nothing changes", async () => {
    await expectError(
      await admin("/prices", { method: "PUT", json: { prices: { BTC: "-5" } } }),
      400,
      "invalid_request",
    );
    await expectError(
      await admin("/prices", { method: "PUT", json: { prices: { BTC: 5 } } }),
      400,
      "invalid_request",
    );
    await expectError(
      await admin("/prices", { method: "PUT", json: { prices: { btc: "5" } } }),
      400,
      "invalid_request",
    );
    const list = await json<{ data: { coin: string; usd: string; source: string }[] }>(
      await admin("/prices"),
    );
    expect(list.data.find((p) => p.coin === "BTC")).toMatchObject({ usd: "60000", source: "static" });
  });

  it("refreshPrices (the cron job) stores every catalog coin from the simulated source", async () => {
    const config = { ...getConfig(env), PRICE_SOURCE: "simulated" as const };
    const n = await refreshPrices(env, config, Date.now());
    expect(n).toBe(18);
    const { results } = await env.DB.prepare("SELECT coin, usd, source FROM prices ORDER BY coin").all<{
      coin: string;
      usd: string;
      source: string;
    }>();
    expect(results.map((r) => r.coin)).toEqual([
      "AVAX",
      "BCH",
      "BNB",
      "BTC",
      "DASH",
      "DOGE",
      "ETC",
      "ETH",
      "LINK",
      "LTC",
      "POL",
      "SOL",
      "TON",
      "TRX",
      "USDC",
      "USDT",
      "XLM",
      "XRP",
    ]);
    expect(results.find((r) => r.coin === "USDT")?.usd).toBe("1");
    expect(results.every((r) => Number(r.usd) > 0)).toBe(true);
    await setPrices();
  });
});

describe("real payouts need real deposits", () => {
  const quote = async (vars: Record<string, string>, query = "coin_from=BTC&coin_to=ETH&amount=0.1") => {
    const patched = {
      ...env,
      PAYOUT_MODE: "http",
      PAYOUT_GATEWAY_URL: "https://signer.test",
      EXCHANGE_MODE: "binance",
      CABINET_ORIGIN: "https://api.example.test",
      ...vars,
    } as unknown as Env;
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(`http://local.test/api/v1/partner/rates?${query}`, {
        headers: { "CF-Connecting-IP": freshIp() },
      }),
      patched,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    return res;
  };

  it("a source network read from SimChain, or a dev deposit key, is pair_unavailable; a real setup quotes", async () => {
    const simulated = await expectError(await quote({}), 400, "pair_unavailable");
    expect(simulated.detail).toContain(
      "BTC deposits are read from the simulated chain while payouts are real",
    );

    const real = { CHAIN_MODE: "BTC:esplora,*:simulated", CHAIN_URL_BTC: "https://esplora.test/api" };
    const devKey = await expectError(await quote(real), 400, "pair_unavailable");
    expect(devKey.detail).toContain("public dev key");

    // Any other xpub passes this rule (it is parsed when an order derives from it).
    const ok = await quote({ ...real, DEPOSIT_XPUB_BTC: "xpub-of-the-operator" });
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();
  });

  it("with the venue as liquidity, a destination it cannot withdraw to is pair_unavailable (venue_network_unsupported)", async () => {
    const real = {
      CHAIN_MODE: "BTC:esplora,*:simulated",
      CHAIN_URL_BTC: "https://esplora.test/api",
      DEPOSIT_XPUB_BTC: "xpub-of-the-operator",
    };
    // DASH has catalog rows but no row in the network table, so no venue code.
    const toDash = "coin_from=BTC&coin_to=DASH&amount=0.1";
    const refused = await expectError(await quote(real, toDash), 400, "pair_unavailable");
    expect(refused.errors?.[0]).toMatchObject({ code: "venue_network_unsupported", side: "to" });
    expect(refused.detail).toContain("the venue cannot withdraw to DASH");

    const simulated = await quote({ PAYOUT_MODE: "simulated", EXCHANGE_MODE: "simulated" }, toDash);
    expect(simulated.status).toBe(200);
    await simulated.arrayBuffer();
  });

  it("with a real reader named for every active network, every source network is offered", async () => {
    const pool = await admin("/address-pool/SOL", {
      method: "POST",
      json: { addresses: ["5waJka9MrCgPFoLo3SQSjLDTGnkoDcwYYPnpk4YNJS6i"] },
    });
    expect(pool.status).toBeLessThan(300);
    const networks = ["BTC", "BCH", "LTC", "DOGE", "ETH", "BSC", "TRX", "SOL", "XRP", "XLM", "TON"];
    const vars: Record<string, string> = {
      PAYOUT_MODE: "http",
      PAYOUT_GATEWAY_URL: "https://signer.test",
      EXCHANGE_MODE: "binance",
      CABINET_ORIGIN: "https://api.example.test",
      CHAIN_MODE:
        "BTC:blockbook,BCH:blockbook,LTC:esplora,DOGE:blockbook,ETH:evm,BSC:evm,TRX:trongrid,SOL:solana,XRP:rippled,XLM:horizon,TON:toncenter",
      DEPOSIT_ADDRESS_XRP: "rPT1Sjq2YGrBMTttX4GZHjKu9dyfzbpAYe",
      DEPOSIT_ADDRESS_XLM: "GCUB7JL4APK7LKJ6MZF7Q2JTLHAGNBIUA7XIXD5SQTG52GQ2DAT6XZMK",
      DEPOSIT_ADDRESS_TON: "UQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqEBI",
    };
    for (const family of ["BTC", "BCH", "LTC", "DOGE", "EVM", "TRON"])
      vars[`DEPOSIT_XPUB_${family}`] = `xpub-${family}`;
    for (const network of networks) vars[`CHAIN_URL_${network}`] = `https://${network.toLowerCase()}.test/`;
    const patched = { ...env, ...vars } as unknown as Env;
    // One native coin per network, for an amount inside its limits; USDC on SOL is the SPL row.
    const amounts: Record<string, string> = {
      BTC: "0.1",
      BCH: "1",
      LTC: "1",
      DOGE: "1000",
      ETH: "1",
      BSC: "1",
      TRX: "1000",
      SOL: "1",
      XRP: "100",
      XLM: "1000",
      TON: "20",
    };
    const offered: string[] = [];
    for (const [coin, network] of [
      ...networks.map((n) => [n === "BSC" ? "BNB" : n, n]),
      ["USDC", "SOL"],
    ] as const) {
      const q = `coin_from=${coin}&network_from=${network}&coin_to=USDT&network_to=ETH&amount=${coin === "USDC" ? "100" : amounts[network]}`;
      const ctx = createExecutionContext();
      const res = await worker.fetch(
        new Request(`http://local.test/api/v1/partner/rates?${q}`, {
          headers: { "CF-Connecting-IP": freshIp() },
        }),
        patched,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      if (res.status === 200) offered.push(`${coin}/${network}`);
      else expect(await res.json()).toEqual({ network }); // shows the refusal when one is not offered
    }
    expect(offered).toHaveLength(12);
  });
});
