/**
 * What wallets require of a swap provider (issue 28, docs/integrate.md "For wallet teams"):
 * assets by chain id and contract, every reason at once, region restrictions.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  admin,
  BCH_ROW_ID,
  call,
  createPartner,
  delistDuringTest,
  expectError,
  json,
  setPrices,
  type TestPartner,
} from "../../helpers";
import { BTC_REFUND, BTC_TO_USDT, postOrder, TRON_ADDR } from "../../support/orders";

describe("wallet-assets", () => {
  interface Currency {
    coin: string;
    network: string;
    contract_address: string | null;
    chain_id: number | null;
  }
  interface Quote {
    coin_from: string;
    network_from: string;
    coin_to: string;
    network_to: string;
    amount_from: number;
    amount_to: number;
  }
  interface Item {
    code: string;
    detail: string;
    [k: string]: unknown;
  }

  const USDT_BSC = "0x55d398326f99059fF775485246999027B3197955";
  const rates = (query: string, init: RequestInit = {}) => call(`/api/v1/partner/rates?${query}`, init);
  const from = (country: string) => ({ cf: { country } }) as RequestInit;
  const errorsOf = async (res: Response) => ((await res.json()) as { errors: Item[] }).errors;

  let partner: TestPartner;

  beforeAll(async () => {
    await setPrices();
    partner = await createPartner({ name: "wallet", rate_limit_per_minute: 100_000 });
  });

  describe("§1 assets by chain id and contract", () => {
    it("every currency names its contract (null for a native coin) and its EVM chain id (null elsewhere)", async () => {
      const list = await json<Currency[]>(await call("/api/v1/currencies"));
      const pick = (coin: string, network: string) => {
        const c = list.find((x) => x.coin === coin && x.network === network);
        return { contract_address: c?.contract_address, chain_id: c?.chain_id };
      };
      expect(pick("USDT", "BSC")).toEqual({ contract_address: USDT_BSC, chain_id: 56 });
      expect(pick("BNB", "BSC")).toEqual({ contract_address: null, chain_id: 56 });
      expect(pick("ETH", "ETH")).toEqual({ contract_address: null, chain_id: 1 });
      expect(pick("USDT", "TRX")).toEqual({ contract_address: TRON_ADDR, chain_id: null });
      expect(pick("BTC", "BTC")).toEqual({ contract_address: null, chain_id: null });
    });

    it("a quote by chain id and contract (any letter case on EVM) is the quote by ticker, and names what it resolved", async () => {
      const byTicker = await json<Quote>(
        await rates("coin_from=USDT&network_from=BSC&coin_to=BTC&amount=100"),
      );
      for (const token of [USDT_BSC, USDT_BSC.toLowerCase()]) {
        const res = await rates(`chain_id_from=56&token_from=${token}&coin_to=BTC&amount=100`);
        expect(res.status).toBe(200);
        const q = await json<Quote>(res);
        expect(q).toMatchObject({
          coin_from: "USDT",
          network_from: "BSC",
          coin_to: "BTC",
          network_to: "BTC",
        });
        expect(q.amount_to).toBe(byTicker.amount_to);
      }
      // network + contract, and a ticker that agrees with it
      const same = await rates(
        `network_from=bsc&token_from=${USDT_BSC}&coin_from=usdt&coin_to=BTC&amount=100`,
      );
      expect(same.status).toBe(200);
    });

    it("no contract names the network's native coin", async () => {
      const q = await json<Quote>(await rates("chain_id_from=56&coin_to=BTC&amount=1"));
      expect(q).toMatchObject({ coin_from: "BNB", network_from: "BSC" });
      const eth = await json<Quote>(
        await rates(`chain_id_from=1&network_to=TRX&token_to=${TRON_ADDR}&amount=1`),
      );
      expect(eth).toMatchObject({ coin_from: "ETH", coin_to: "USDT", network_to: "TRX" });
    });

    it("a ticker contradicting the contract → 422 asset_mismatch; an unknown contract or chain id → 422 unsupported_asset", async () => {
      const mismatch = await expectError(
        await rates(`coin_from=USDC&chain_id_from=56&token_from=${USDT_BSC}&coin_to=BTC&amount=100`),
        422,
        "asset_mismatch",
      );
      expect(mismatch.detail).toMatch(/USDT on BSC/);
      const netMismatch = await rates(`network_from=ETH&chain_id_from=56&coin_to=BTC&amount=1`);
      await expectError(netMismatch, 422, "asset_mismatch");
      const unknown = await rates(
        "chain_id_from=56&token_from=0x0000000000000000000000000000000000000001&coin_to=BTC",
      );
      const body = await expectError(unknown, 422, "unsupported_asset");
      expect(body.errors).toEqual([expect.objectContaining({ code: "unsupported_asset", side: "from" })]);
      await expectError(await rates("chain_id_from=11155111&coin_to=BTC"), 422, "unsupported_asset");
      // TRON addresses are case-sensitive: another case is another (unknown) contract.
      await expectError(
        await rates(`network_from=TRX&token_from=${TRON_ADDR.toLowerCase()}&coin_to=BTC&amount=100`),
        422,
        "unsupported_asset",
      );
    });

    it("an order by chain id and contract is created on the resolved asset", async () => {
      const res = await postOrder(partner, {
        chain_id_from: 56,
        token_from: USDT_BSC.toLowerCase(),
        coin_to: "BTC",
        network_to: "BTC",
        amount_from: "100",
        rate_type: "float",
        recipient_address: BTC_REFUND,
      });
      expect(res.status).toBe(201);
      expect(await json(res)).toMatchObject({ coin_from: "USDT", network_from: "BSC", coin_to: "BTC" });
      // An order still names each side's network (or chain id): a bare ticker is a schema error, as before.
      const bare = await postOrder(partner, {
        coin_from: "BTC",
        coin_to: "USDT",
        network_to: "TRX",
        amount_from: "0.01",
        rate_type: "float",
        recipient_address: TRON_ADDR,
      });
      const e = await expectError(bare, 400, "invalid_request");
      expect(e.errors?.map((x) => x.field)).toEqual(["network_from"]);
    });
  });

  describe("§2 every reason at once", () => {
    it("schema errors: every item has code and detail besides field and message", async () => {
      const e = await expectError(
        await rates("coin_from=BTC&coin_to=ETH&amount=abc&rate_type=weird"),
        400,
        "invalid_request",
      );
      expect(e.errors?.length).toBe(2);
      for (const item of e.errors ?? [])
        expect(item).toEqual({
          code: "invalid_request",
          detail: `${item.field}: ${item.message}`,
          field: expect.any(String),
          message: expect.any(String),
        });
    });

    it("both sides unknown: both reasons, with their side; the top stays pair_unavailable as before", async () => {
      const res = await rates("coin_from=NOPE&coin_to=ZZZ");
      const body = await expectError(res.clone(), 400, "pair_unavailable");
      expect(body.detail).toBe("Pair unavailable: unknown coin NOPE.");
      expect(await errorsOf(res)).toEqual([
        { code: "unsupported_asset", side: "from", detail: "Pair unavailable: unknown coin NOPE." },
        { code: "unsupported_asset", side: "to", detail: "Pair unavailable: unknown coin ZZZ." },
      ]);
    });

    it("a disabled deposit side and an inactive destination: both, the asset first", async () => {
      await delistDuringTest(BCH_ROW_ID);
      const res = await rates("coin_from=DASH&coin_to=BCH");
      await expectError(res.clone(), 400, "pair_unavailable");
      expect((await errorsOf(res)).map((i) => [i.code, i.side])).toEqual([
        ["unsupported_asset", "to"],
        ["deposit_disabled", "from"],
      ]);
    });

    it("an amount below the minimum names the limits in both assets", async () => {
      // BTC 60000, ETH 3000: 19.9 ETH per BTC after the 50 bps spread, 0.0015 ETH payout fee.
      const res = await rates("coin_from=BTC&coin_to=ETH&amount=0.0001");
      await expectError(res.clone(), 422, "amount_below_min");
      expect(await errorsOf(res)).toEqual([
        {
          code: "amount_below_min",
          detail: expect.stringContaining("below the minimum"),
          min_amount_from: 0.0005,
          min_amount_to: 0.00845,
          max_amount_from: 10,
          max_amount_to: 198.9985,
        },
      ]);
    });

    it("insufficient liquidity names its maximum in both coins", async () => {
      expect(
        (await admin("/liquidity", { method: "PUT", json: { coin: "XLM", network: "XLM", balance: "100" } }))
          .status,
      ).toBe(200);
      try {
        const res = await postOrder(partner, {
          coin_from: "BTC",
          network_from: "BTC",
          coin_to: "XLM",
          network_to: "XLM",
          amount_from: "0.01",
          rate_type: "float",
          recipient_address: "GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ",
          recipient_address_tag: "1",
        });
        await expectError(res.clone(), 422, "insufficient_liquidity");
        const [item] = await errorsOf(res);
        expect(item).toMatchObject({ code: "insufficient_liquidity", max_amount_to: 100 });
        expect(item?.max_amount_from).toBeGreaterThan(0);
        expect(item?.max_amount_from).toBeLessThan(0.01);
      } finally {
        await admin("/liquidity", { method: "PUT", json: { coin: "XLM", network: "XLM", balance: null } });
      }
    });
  });

  describe("§6 fees named", () => {
    interface Fees {
      gross: number;
      service: number;
      partner: number;
      network: number;
      coin: string;
    }
    // Exact decimal arithmetic on the figures as strings, so the identity is checked without floats.
    const units = (x: number, decimals: number) => BigInt(Math.round(x * 10 ** decimals));
    const expectIdentity = (amountTo: number, f: Fees, decimals: number) =>
      expect(
        units(f.gross, decimals) -
          units(f.service, decimals) -
          units(f.partner, decimals) -
          units(f.network, decimals),
      ).toBe(units(amountTo, decimals));

    it("float and fixed, quote and order: amount_to = gross − service − partner − network, each fee as priced", async () => {
      const marked = await createPartner({ name: "fees", markup_bps: 100 });
      const auth = { headers: { Authorization: `Bearer ${marked.key}` } };
      // BTC → USDT/TRX (6 decimals), 0.01 BTC = 600 USDT at mid; payout fee 1 USDT.
      for (const [rateType, spreadBps] of [
        ["float", 50],
        ["fixed", 100],
      ] as const) {
        const q = await json<Quote & { fees: Fees }>(
          await rates(`coin_from=BTC&coin_to=USDT&network_to=TRX&amount=0.01&rate_type=${rateType}`, auth),
        );
        expectIdentity(q.amount_to, q.fees, 6);
        expect(q.fees).toEqual({
          gross: 600,
          service: (600 * spreadBps) / 10_000,
          partner: 6,
          network: 1,
          coin: "USDT",
        });
        const res = await postOrder(marked, {
          coin_from: "BTC",
          network_from: "BTC",
          coin_to: "USDT",
          network_to: "TRX",
          amount_from: "0.01",
          rate_type: rateType,
          recipient_address: TRON_ADDR,
        });
        expect(res.status).toBe(201);
        const o = await json<{ amount_to_expected: number; fees: Fees; completed_at: string | null }>(res);
        expectIdentity(o.amount_to_expected, o.fees, 6);
        expect(o.fees).toEqual(q.fees);
        expect(o.completed_at).toBeNull();
      }
      // Without a key there is no markup; an amount that does not divide evenly keeps the identity.
      const odd = await json<Quote & { fees: Fees }>(
        await rates("coin_from=BTC&coin_to=ETH&amount=0.01234567"),
      );
      expect(odd.fees.partner).toBe(0);
      expectIdentity(odd.amount_to, odd.fees, 18);
      expect(Math.abs(odd.fees.gross - 0.01234567 * 20)).toBeLessThan(1e-12);
    });
  });

  describe("§8 a partner's own reference, §5 reporting", () => {
    const order = { ...BTC_TO_USDT, amount_from: "0.01" };
    const send = (p: TestPartner, body: unknown, key?: string) =>
      call("/api/v1/partner/orders", {
        method: "POST",
        headers: {
          Authorization: `Bearer ${p.key}`,
          "content-type": "application/json",
          ...(key ? { "Idempotency-Key": key } : {}),
        },
        body: JSON.stringify(body),
      });
    const list = async (p: TestPartner, query: string) =>
      (
        await json<{ data: Record<string, unknown>[] }>(
          await call(`/api/v1/partner/orders?${query}`, { headers: { Authorization: `Bearer ${p.key}` } }),
        )
      ).data;
    /** The index row is projected just after the answer. */
    const listed = async (p: TestPartner, query: string, n: number) => {
      for (let i = 0; i < 50; i++) {
        const rows = await list(p, query);
        if (rows.length >= n) return rows;
        await new Promise((r) => setTimeout(r, 50));
      }
      return list(p, query);
    };

    it("partner_order_id and metadata are kept and returned; a second order with the reference → 409; the same Idempotency-Key and body → the same order", async () => {
      const p = await createPartner({ name: "reference", rate_limit_per_minute: 100_000 });
      const body = {
        ...order,
        partner_order_id: "inv-2026-0042",
        metadata: { user: "u-1", note: "é ünïcode" },
      };
      const first = await send(p, body, "k-1");
      expect(first.status).toBe(201);
      const o = await json<{ id: string; partner_order_id: string; metadata: Record<string, string> }>(first);
      expect(o).toMatchObject({
        partner_order_id: "inv-2026-0042",
        metadata: { user: "u-1", note: "é ünïcode" },
      });
      const read = await json(
        await call(`/api/v1/partner/orders/${o.id}`, { headers: { Authorization: `Bearer ${p.key}` } }),
      );
      expect(read).toMatchObject({
        partner_order_id: "inv-2026-0042",
        metadata: { user: "u-1", note: "é ünïcode" },
      });
      // The same key and body: a retry, the same order.
      const again = await send(p, body, "k-1");
      expect(again.status).toBe(201);
      expect((await json<{ id: string }>(again)).id).toBe(o.id);
      // Another order with that reference, with another key, without one, or with another amount.
      for (const [b, key] of [
        [body, "k-2"],
        [body, undefined],
        [{ ...body, amount_from: "0.02" }, undefined],
      ] as const) {
        const e = await expectError(await send(p, b, key), 409, "duplicate_partner_order_id");
        expect(e.detail).toContain(o.id);
      }
      // Another partner may use the same reference.
      const other = await createPartner({ name: "reference-2" });
      expect((await send(other, body)).status).toBe(201);
      // Lists filter by it.
      const rows = await listed(p, "partner_order_id=inv-2026-0042", 1);
      expect(rows.map((r) => [r.id, r.partner_order_id])).toEqual([[o.id, "inv-2026-0042"]]);
      expect(await list(p, "partner_order_id=nope")).toEqual([]);
    });

    it("bounds: reference ≤ 64 characters, metadata ≤ 20 keys of ≤ 500 characters", async () => {
      const p = await createPartner({ name: "reference-bounds" });
      const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, "v"]));
      for (const [patch, field] of [
        [{ partner_order_id: "x".repeat(65) }, "partner_order_id"],
        [{ partner_order_id: "" }, "partner_order_id"],
        [{ metadata: many }, "metadata"],
        [{ metadata: { k: "v".repeat(501) } }, "metadata.k"],
        [{ metadata: { k: 1 } }, "metadata.k"],
      ] as const) {
        const e = await expectError(await send(p, { ...order, ...patch }), 400, "invalid_request");
        expect(e.errors?.map((x) => x.field)).toContain(field);
      }
    });

    it("lists filter by updated_from; completed_at is null until the order completes, then set on reads and lists", async () => {
      const p = await createPartner({ name: "reporting", rate_limit_per_minute: 100_000 });
      const keyRes = await admin(`/partners/${p.id}/keys`, { method: "POST", json: { mode: "test" } });
      const t: TestPartner = { ...p, key: (await json<{ key: string }>(keyRes)).key };
      const o = await json<{ id: string; completed_at: string | null }>(await send(t, order));
      expect(o.completed_at).toBeNull();
      const before = new Date().toISOString();
      await new Promise((r) => setTimeout(r, 5));
      for (const step of ["deposit", "confirm"]) {
        const res = await call(`/api/v1/partner/test/orders/${o.id}/${step}`, {
          method: "POST",
          headers: { Authorization: `Bearer ${t.key}` },
        });
        expect(res.status).toBe(200);
      }
      const done = await json<{ status: string; updated_at: string; completed_at: string }>(
        await call(`/api/v1/partner/orders/${o.id}`, { headers: { Authorization: `Bearer ${t.key}` } }),
      );
      expect(done.status).toBe("completed");
      expect(done.completed_at).toBe(done.updated_at);
      const rows = await listed(t, `updated_from=${before}&status=completed`, 1);
      expect(rows.map((r) => r.id)).toEqual([o.id]);
      for (let i = 0; i < 50 && rows[0]?.completed_at === null; i++)
        rows.splice(0, 1, ...(await list(t, "status=completed")));
      expect(rows[0]?.completed_at).toBe(done.completed_at);
      expect(await list(t, `updated_from=${new Date(Date.now() + 60_000).toISOString()}`)).toEqual([]);
    });
  });

  describe("§3 region restrictions", () => {
    const restrict = (config: unknown) => admin("/region-restrictions", { method: "PUT", json: config });
    beforeAll(async () => {
      expect(
        (await restrict({ countries: ["kp", "IR", "KP"], coins: { doge: ["gb"], XRP: [] } })).status,
      ).toBe(200);
    });
    afterAll(async () => {
      await restrict({ countries: [], coins: {} });
    });

    it("PUT stores the configuration normalised, audited; GET returns it", async () => {
      const stored = { countries: ["IR", "KP"], coins: { DOGE: ["GB"] } };
      expect(await json(await admin("/region-restrictions"))).toEqual(stored);
      const audit = await json<{ data: { action: string; after: unknown }[] }>(
        await admin("/audit?entity_type=region_restrictions"),
      );
      expect(audit.data[0]).toMatchObject({ action: "region_restrictions.set", after: stored });
      await expectError(await restrict({ countries: ["KPX"], coins: {} }), 400, "invalid_request");
    });

    it("GET /partner/permissions answers for the caller's country; X-End-User-Country wins", async () => {
      const ask = (init: RequestInit) => call("/api/v1/partner/permissions", init);
      expect(await json(await ask(from("DE")))).toEqual({
        country: "DE",
        allowed: true,
        restricted_coins: [],
      });
      expect(await json(await ask(from("GB")))).toEqual({
        country: "GB",
        allowed: true,
        restricted_coins: ["DOGE"],
      });
      const res = await ask({
        ...from("GB"),
        headers: { "X-End-User-Country": "kp", Authorization: `Bearer ${partner.key}` },
      });
      expect(await json(res)).toEqual({ country: "KP", allowed: false, restricted_coins: [] });
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      await expectError(await ask({ headers: { "X-End-User-Country": "Germany" } }), 400, "invalid_request");
    });

    it("quotes from a restricted country → 451 region_restricted, listed before the limits", async () => {
      expect((await rates("coin_from=BTC&coin_to=ETH&amount=0.1", from("DE"))).status).toBe(200);
      const res = await rates("coin_from=BTC&coin_to=ETH&amount=0.0001", from("KP"));
      await expectError(res.clone(), 451, "region_restricted");
      expect((await errorsOf(res)).map((i) => i.code)).toEqual(["region_restricted", "amount_below_min"]);
      // A coin restricted in the country: 451 with its side; other coins are quoted.
      const doge = await rates("coin_from=BTC&coin_to=DOGE&amount=0.1", from("GB"));
      await expectError(doge.clone(), 451, "region_restricted");
      expect(await errorsOf(doge)).toEqual([
        { code: "region_restricted", side: "to", detail: "DOGE is not available in GB." },
      ]);
      expect((await rates("coin_from=BTC&coin_to=ETH&amount=0.1", from("GB"))).status).toBe(200);
      // The partner's server (a secret key) speaks for its end user: its word wins over where the
      // request came from. A keyless caller's header cannot move it out of the country seen.
      const told = await rates("coin_from=BTC&coin_to=ETH&amount=0.1", {
        ...from("DE"),
        headers: { "X-End-User-Country": "IR", Authorization: `Bearer ${partner.key}` },
      });
      await expectError(told, 451, "region_restricted");
      const claimed = await rates("coin_from=BTC&coin_to=ETH&amount=0.1", {
        ...from("KP"),
        headers: { "X-End-User-Country": "DE" },
      });
      await expectError(claimed, 451, "region_restricted");
      // An app key lives in the user's app: its header is the user's own word, not the partner's.
      const made = await admin(`/partners/${partner.id}/keys`, { method: "POST", json: { kind: "app" } });
      const app = await json<{ key: string }>(made);
      const fromApp = await rates("coin_from=BTC&coin_to=ETH&amount=0.1", {
        ...from("KP"),
        headers: { "X-End-User-Country": "DE", "X-API-Key": app.key },
      });
      await expectError(fromApp, 451, "region_restricted");
    });

    it("order creation from a restricted country → 451 and no order", async () => {
      const list = async () =>
        (
          await json<{ data: unknown[] }>(
            await call("/api/v1/partner/orders?limit=100", {
              headers: { Authorization: `Bearer ${partner.key}` },
            }),
          )
        ).data.length;
      const before = await list();
      const res = await call("/api/v1/partner/orders", {
        method: "POST",
        headers: {
          Authorization: `Bearer ${partner.key}`,
          "content-type": "application/json",
          "X-End-User-Country": "KP",
        },
        body: JSON.stringify({ ...BTC_TO_USDT, amount_from: "0.01" }),
      });
      await expectError(res, 451, "region_restricted");
      expect(await list()).toBe(before);
    });
  });
});
