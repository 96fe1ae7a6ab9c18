import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { networkFacts } from "../../src/domain/networks";
import { BCH_ROW_ID, call, delistDuringTest, json } from "../helpers";

interface Currency {
  [k: string]: unknown;
  coin: string;
  network: string;
}

const REQUIRED: Record<string, string> = {
  id: "string",
  coin: "string",
  network: "string",
  name: "string",
  is_active: "boolean",
  is_deposit_enabled: "boolean",
  is_withdraw_enabled: "boolean",
  min_amount: "number",
  max_amount: "number",
  min_confirmations: "number",
  decimals: "number",
  is_memo: "boolean",
};
const NULLABLE_STRINGS = [
  "explorer_tx_url",
  "explorer_address_url",
  "icon_url",
  "contract_address",
  // Beyond the contract: CAIP ids (test/http/asset-ids.test.ts).
  "caip2",
  "caip19",
];
// Beyond the contract: the EIP-155 chain id of EVM networks (test/http/partner-routes/wallet-assets.ts).
const NULLABLE_NUMBERS = ["chain_id"];

describe("GET /api/v1/currencies", () => {
  it("returns every contract field with its type on every element", async () => {
    const res = await call("/api/v1/currencies");
    expect(res.status).toBe(200);
    const list = await json<Currency[]>(res);
    expect(list.length).toBeGreaterThanOrEqual(16);
    for (const c of list) {
      expect(Object.keys(c).sort()).toEqual(
        [...Object.keys(REQUIRED), ...NULLABLE_STRINGS, ...NULLABLE_NUMBERS].sort(),
      );
      for (const field of NULLABLE_NUMBERS)
        expect(c[field] === null || Number.isInteger(c[field])).toBe(true);
      for (const [field, type] of Object.entries(REQUIRED))
        expect(typeof c[field], `${c.coin}/${c.network}.${field}`).toBe(type);
      for (const field of NULLABLE_STRINGS)
        expect(c[field] === null || typeof c[field] === "string").toBe(true);
      expect(c.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(Number.isInteger(c.min_confirmations)).toBe(true);
      expect(Number.isInteger(c.decimals)).toBe(true);
      expect(c.min_amount as number).toBeLessThan(c.max_amount as number);
      expect(c.network).toMatch(/^[A-Z0-9]{2,10}$/);
      if (c.explorer_tx_url) expect(c.explorer_tx_url).toContain("{txid}");
      if (c.explorer_address_url) expect(c.explorer_address_url).toContain("{address}");
      expect(c.icon_url).toMatch(/^\/api\/v1\/icons\/[a-z0-9-]+\.svg\?v=[0-9a-f]{12}$/);
    }
  });

  it("lists active rows only, keeps the deposit-disabled row, and orders stably", async () => {
    await delistDuringTest(BCH_ROW_ID);
    const list = await json<Currency[]>(await call("/api/v1/currencies"));
    const keys = list.map((c) => `${c.coin}/${c.network}`);
    expect(keys).not.toContain("BCH/BCH");
    expect(list.every((c) => c.is_active === true)).toBe(true);
    const dash = list.find((c) => c.coin === "DASH");
    expect(dash).toMatchObject({ is_deposit_enabled: false, is_withdraw_enabled: true });
    for (const k of [
      "BTC/BTC",
      "USDT/ETH",
      "USDT/TRX",
      "USDT/BSC",
      "XRP/XRP",
      "XLM/XLM",
      "TON/TON",
      "SOL/SOL",
    ]) {
      expect(keys).toContain(k);
    }
    expect(
      list
        .filter((c) => c.is_memo)
        .map((c) => c.coin)
        .sort(),
    ).toEqual(["TON", "XLM", "XRP"]);
    const again = await json<Currency[]>(await call("/api/v1/currencies"));
    expect(again.map((c) => c.id)).toEqual(list.map((c) => c.id));
    // The D1 row for BCH exists: it is filtered, not missing.
    const bch = await env.DB.prepare("SELECT is_active FROM currencies WHERE coin = 'BCH'").first();
    expect(bch).toEqual({ is_active: 0 });
  });

  it("carries real-world parameters (decimals, confirmations)", async () => {
    const list = await json<Currency[]>(await call("/api/v1/currencies"));
    const by = (k: string) => list.find((c) => `${c.coin}/${c.network}` === k);
    expect(by("BTC/BTC")).toMatchObject({ decimals: 8, min_confirmations: 2, name: "Bitcoin" });
    expect(by("ETH/ETH")).toMatchObject({ decimals: 18 });
    expect(by("USDT/TRX")).toMatchObject({ decimals: 6 });
    expect(by("TON/TON")?.icon_url).toMatch(/^\/api\/v1\/icons\/ton\.svg\?v=/);
  });

  it("seeds at least 35 active rows, each with its coin's own icon", async () => {
    const list = await json<Currency[]>(await call("/api/v1/currencies"));
    expect(list.length).toBeGreaterThanOrEqual(35);
    const generic = list.filter((c) => /\/generic\.svg\?/.test(c.icon_url as string)).map((c) => c.coin);
    expect(generic).toEqual([]);
  });

  it("seeds every listed network's rows with the network table's confirmations and explorers", async () => {
    const list = await json<Currency[]>(await call("/api/v1/currencies"));
    for (const c of list) {
      const facts = networkFacts(c.network);
      if (!facts) continue; // a network without address rules (DASH: deposits disabled)
      expect(
        { confirmations: c.min_confirmations, tx: c.explorer_tx_url, address: c.explorer_address_url },
        `${c.coin}/${c.network}`,
      ).toEqual({
        confirmations: facts.confirmations.count,
        tx: facts.explorer.tx,
        address: facts.explorer.address,
      });
    }
  });

  it("is cacheable by clients and carries a request id", async () => {
    const res = await call("/api/v1/currencies");
    expect(res.headers.get("cache-control")).toBe("public, max-age=60, stale-while-revalidate=300");
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await call("/api/v1/currencies", { headers: { "X-Request-Id": "partner-req-42" } });
    expect(echoed.headers.get("x-request-id")).toBe("partner-req-42");
    const unsafe = await call("/api/v1/currencies", { headers: { "X-Request-Id": "bad id\twith spaces" } });
    expect(unsafe.headers.get("x-request-id")).not.toBe("bad id\twith spaces");
  });
});
