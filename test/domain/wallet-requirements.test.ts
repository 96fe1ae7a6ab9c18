import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sameContract } from "../../src/domain/asset-identity";
import type { CurrencyRow } from "../../src/domain/currency";
import { byRelevance, type Refusal, refused } from "../../src/domain/errors";
import { feeSplit } from "../../src/domain/fees";
import { Dec, floorTo } from "../../src/domain/money";
import { assessPair } from "../../src/domain/pairs";
import { type PricingInput, quoteForward } from "../../src/domain/pricing";
import { normalizeRestrictions, permissionsFor, regionRefusals } from "../../src/domain/region-restrictions";

const row = (
  coin: string,
  network: string,
  contract: string | null,
  extra: Partial<CurrencyRow> = {},
): CurrencyRow => ({
  id: `${coin}-${network}`,
  coin,
  network,
  name: coin,
  is_active: 1,
  is_deposit_enabled: 1,
  is_withdraw_enabled: 1,
  min_amount: "1",
  max_amount: "1000",
  min_confirmations: 1,
  decimals: 6,
  is_memo: 0,
  withdraw_fee: "0",
  contract_address: contract,
  explorer_tx_url: null,
  explorer_address_url: null,
  sort_order: 0,
  ...extra,
});

const USDT_BSC = "0x55d398326f99059fF775485246999027B3197955";
const CATALOG = [
  row("BNB", "BSC", null),
  row("USDT", "BSC", USDT_BSC),
  row("USDT", "TRX", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"),
  row("BTC", "BTC", null),
  row("DASH", "DASH", null, { is_deposit_enabled: 0 }),
];

describe("assessPair: assets by ticker, contract or chain id, every reason", () => {
  it("a contract (EVM: any case) or a chain id names the same row as the ticker", () => {
    const byTicker = assessPair(CATALOG, { coin: "usdt", network: "bsc" }, { coin: "BTC" });
    const byChain = assessPair(CATALOG, { chainId: 56, token: USDT_BSC.toLowerCase() }, { coin: "BTC" });
    expect(byTicker).toEqual(byChain);
    expect(assessPair(CATALOG, { chainId: 56 }, { coin: "BTC" })).toMatchObject({
      ok: true,
      pair: { from: { coin: "BNB" } },
    });
  });

  it("collects both sides' reasons, and a disabled side, in relevance order", () => {
    const r = assessPair(CATALOG, { coin: "DASH" }, { chainId: 137 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(byRelevance(r.reasons).map((x) => [x.code, x.side])).toEqual([
      ["unsupported_asset", "to"],
      ["deposit_disabled", "from"],
    ]);
    const e = refused(r.reasons);
    expect(e.code).toBe("unsupported_asset");
  });

  it("keeps the legacy top-level code for tickers and disabled sides", () => {
    const r = assessPair(CATALOG, { coin: "NOPE" }, { coin: "BTC" });
    expect(!r.ok && refused(r.reasons).code).toBe("pair_unavailable");
    const d = assessPair(CATALOG, { coin: "DASH" }, { coin: "BTC" });
    expect(!d.ok && refused(d.reasons).code).toBe("pair_unavailable");
  });

  it("EVM contracts compare case-insensitively, others exactly", () => {
    expect(sameContract("BSC", USDT_BSC.toUpperCase().replace("0X", "0x"), USDT_BSC)).toBe(true);
    expect(
      sameContract("TRX", "tr7nhqjekqxgtci8q8zy4pl8otszgjlj6t", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"),
    ).toBe(false);
  });
});

describe("byRelevance", () => {
  it("region before asset before pair before limits, stable within a rank", () => {
    const r = (code: Refusal["code"], side?: "from" | "to"): Refusal => ({
      code,
      detail: code,
      ...(side ? { side } : {}),
    });
    const sorted = byRelevance([
      r("amount_below_min"),
      r("pair_unavailable"),
      r("unsupported_asset", "from"),
      r("region_restricted"),
      r("unsupported_asset", "to"),
    ]);
    expect(sorted.map((x) => `${x.code}${x.side ? `:${x.side}` : ""}`)).toEqual([
      "region_restricted",
      "unsupported_asset:from",
      "unsupported_asset:to",
      "pair_unavailable",
      "amount_below_min",
    ]);
  });
});

describe("region restrictions", () => {
  const r = normalizeRestrictions({
    countries: ["kp", "KP", "ir"],
    coins: { xmr: ["us"], XMR: ["gb"], ZEC: [], doge: ["GB"] },
  });
  it("normalises: upper case, de-duplicated, sorted (coins too), empty coins dropped", () => {
    expect(r).toEqual({ countries: ["IR", "KP"], coins: { DOGE: ["GB"], XMR: ["GB", "US"] } });
    expect(Object.keys(r.coins)).toEqual(["DOGE", "XMR"]);
  });
  it("a restricted country refuses everything; a restricted coin only its side; unknown country nothing", () => {
    expect(regionRefusals(r, "KP", { from: "BTC", to: "ETH" }).map((x) => x.side)).toEqual([undefined]);
    expect(regionRefusals(r, "GB", { from: "XMR", to: "ETH" })).toEqual([
      { code: "region_restricted", side: "from", detail: "XMR is not available in GB." },
    ]);
    expect(regionRefusals(r, null, { from: "XMR" })).toEqual([]);
    expect(permissionsFor(r, "US")).toEqual({ country: "US", allowed: true, restricted_coins: ["XMR"] });
    expect(permissionsFor(r, "GB").restricted_coins).toEqual(["DOGE", "XMR"]);
    expect(permissionsFor(r, "IR")).toEqual({ country: "IR", allowed: false, restricted_coins: [] });
  });
});

describe("feeSplit", () => {
  const side = (coin: string, usd: string, decimals: number, fee = "0") => ({
    coin,
    network: coin,
    decimals,
    minAmount: "0.00000001",
    maxAmount: "1000000",
    withdrawFee: fee,
    usdPrice: usd,
  });
  it("amount_to = gross − service − partner − network exactly, and gross is amount_from at mid within rounding", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 ** 9 }),
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 0, max: 300 }),
        fc.constantFrom("0", "0.5", "1"),
        fc.constantFrom("0.12", "1", "3000", "60000.5"),
        (units, spreadBps, markupBps, fee, usdFrom) => {
          const input: PricingInput = {
            from: side("AAA", usdFrom, 8),
            to: side("BBB", "1.0001", 6, fee),
            spreadBps,
            markupBps,
          };
          const amountFrom = new Dec(units).div(10 ** 4);
          const q = quoteForward(input, amountFrom);
          if (q.amountTo.isZero()) return;
          const f = feeSplit(q.amountTo, { withdrawFee: fee, spreadBps, markupBps, decimals: 6 });
          expect(f.gross.minus(f.service).minus(f.partner).minus(f.network).eq(q.amountTo)).toBe(true);
          expect(f.service.isNegative() || f.partner.isNegative()).toBe(false);
          const atMid = floorTo(amountFrom.times(usdFrom).div("1.0001"), 6);
          expect(f.gross.minus(atMid).abs().lte("0.000003")).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
