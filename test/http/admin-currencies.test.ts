import { env } from "cloudflare:workers";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  admin,
  call,
  createPartner,
  expectError,
  json,
  setPrices,
  TEST_PRICES,
  type TestPartner,
} from "../helpers";
import { BTC_TO_USDT, createOrder, read, simMine, simSend, startClock, step } from "../support/orders";

interface AdminCurrency {
  id: string;
  coin: string;
  network: string;
  is_active: boolean;
  is_deposit_enabled: boolean;
  is_withdraw_enabled: boolean;
  min_amount: string;
  max_amount: string;
  decimals: number;
  withdraw_fee: string;
  contract_address: string | null;
  explorer_tx_url: string | null;
}
interface PublicCurrency {
  coin: string;
  network: string;
  is_deposit_enabled: boolean;
  min_amount: number;
}
interface AuditEntry {
  operator: string;
  action: string;
  entity_id: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown>;
}

const BTC_ID = "6f1c1f2e-0c1a-4b7e-9a01-000000000001";
const PEPE = {
  coin: "pepe",
  network: "ETH",
  name: "Pepe (ERC-20)",
  min_amount: "100000",
  max_amount: "1000000000",
  min_confirmations: 12,
  decimals: 6,
  withdraw_fee: "50000",
  contract_address: "0x6982508145454ce325ddbe47a25d4ec3d2311933",
  explorer_tx_url: "https://etherscan.io/tx/{txid}",
};

const patch = (id: string, body: unknown, headers: Record<string, string> = {}) =>
  admin(`/currencies/${id}`, { method: "PATCH", json: body, headers });
const publicRow = async (coin: string, network: string) =>
  (await json<PublicCurrency[]>(await call("/api/v1/currencies"))).find(
    (c) => c.coin === coin && c.network === network,
  );
const audit = async (entityId?: string) =>
  (await json<{ data: AuditEntry[] }>(await admin(`/audit${entityId ? `?entity_id=${entityId}` : ""}`))).data;

let partner: TestPartner;

beforeAll(async () => {
  partner = await createPartner({ name: "catalog", rate_limit_per_minute: 100_000 });
});

beforeEach(async () => {
  vi.useRealTimers();
  await setPrices({ ...TEST_PRICES, PEPE: "0.00001" });
});

afterEach(async () => {
  vi.useRealTimers();
  // Later tests expect the seeded BTC row as it was.
  await patch(BTC_ID, { is_deposit_enabled: true, min_amount: "0.0005", decimals: 8 });
});

describe("operator API: catalog", () => {
  it("lists every row with its operator fields, inactive ones too", async () => {
    await patch(BTC_ID, { is_active: false });
    const rows = (await json<{ data: AdminCurrency[] }>(await admin("/currencies"))).data;
    expect(rows.find((r) => r.id === BTC_ID)).toMatchObject({ coin: "BTC", is_active: false, decimals: 8 });
    expect(await publicRow("BTC", "BTC")).toBeUndefined();
    await patch(BTC_ID, { is_active: true });
    expect(await publicRow("BTC", "BTC")).toBeDefined();
  });

  it("lists a coin: canonical contract, visible in /currencies and quotes at once, audited with the operator", async () => {
    const res = await admin("/currencies", {
      method: "POST",
      json: PEPE,
      headers: { "X-Operator": "alice" },
    });
    expect(res.status).toBe(201);
    const row = await json<AdminCurrency>(res);
    expect(row).toMatchObject({
      coin: "PEPE",
      network: "ETH",
      is_active: true,
      is_deposit_enabled: true,
      contract_address: "0x6982508145454Ce325dDbE47a25d4ec3d2311933",
    });
    expect(await publicRow("PEPE", "ETH")).toMatchObject({ min_amount: 100000 });
    const quote = await call(
      "/api/v1/partner/rates?coin_from=PEPE&coin_to=USDT&network_to=TRX&amount=10000000",
    );
    expect(await json(quote)).toMatchObject({ coin_from: "PEPE", network_from: "ETH" });

    const [entry] = await audit(row.id);
    expect(entry).toMatchObject({ operator: "token:alice", action: "currency.create", before: null });
    expect(entry?.after).toMatchObject({ coin: "PEPE", decimals: 6 });

    await expectError(await admin("/currencies", { method: "POST", json: PEPE }), 409, "currency_exists");
  });

  it("bad input is 400 (schema) or 422 (rules) and changes nothing", async () => {
    const before = (await audit()).length;
    const bad400: unknown[] = [
      { ...PEPE, coin: "DOGE2", extra: 1 },
      { ...PEPE, coin: "DOGE2", min_amount: "-1" },
      { ...PEPE, coin: "DOGE2", min_amount: 1 },
      { ...PEPE, coin: "DOGE2", decimals: 19 },
      { ...PEPE, coin: "" },
    ];
    for (const body of bad400)
      await expectError(await admin("/currencies", { method: "POST", json: body }), 400, "invalid_request");
    const bad422: [unknown, string][] = [
      [{ ...PEPE, coin: "X1", contract_address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t" }, "contract_address"],
      [
        { ...PEPE, coin: "X2", contract_address: "0x6982508145454ce325ddbe47a25d4ec3d231193" },
        "contract_address",
      ],
      [{ ...PEPE, coin: "X3", min_amount: "5", max_amount: "4" }, "max_amount"],
      [{ ...PEPE, coin: "X4", explorer_tx_url: "https://etherscan.io/tx/" }, "explorer_tx_url"],
      [{ ...PEPE, coin: "X5", explorer_tx_url: "javascript:alert({txid})" }, "explorer_tx_url"],
      [{ ...PEPE, coin: "X6", network: "NOPE" }, "network"],
      [{ ...PEPE, coin: "X7", withdraw_fee: "0.0000001" }, "withdraw_fee"],
    ];
    for (const [body, field] of bad422) {
      const err = await expectError(
        await admin("/currencies", { method: "POST", json: body }),
        422,
        "invalid_catalog_change",
      );
      expect(err.detail).toContain(field);
    }
    await expectError(await patch(BTC_ID, {}), 400, "invalid_request");
    await expectError(await patch(BTC_ID, { min_amount: "100" }), 422, "invalid_catalog_change");
    await expectError(await patch("00000000-0000-4000-8000-000000000000", { name: "x" }), 404, "not_found");
    expect((await audit()).length).toBe(before);
    const rows = (await json<{ data: AdminCurrency[] }>(await admin("/currencies"))).data;
    expect(rows.some((r) => /^X\d$/.test(r.coin) || r.coin === "DOGE2")).toBe(false);
  });

  it("a limit change reaches quotes; every update is audited with before and after", async () => {
    expect(await patch(BTC_ID, { min_amount: "0.002" })).toHaveProperty("status", 200);
    const below = await call("/api/v1/partner/rates?coin_from=BTC&coin_to=ETH&amount=0.001");
    await expectError(below, 422, "amount_below_min");
    const [entry] = await audit(BTC_ID);
    expect(entry).toMatchObject({ operator: "token", action: "currency.update" });
    expect(entry?.before).toMatchObject({ min_amount: "0.0005" });
    expect(entry?.after).toMatchObject({ min_amount: "0.002" });
  });

  it("other isolates see a change within the 5 s catalog cache bound", async () => {
    startClock();
    expect(await publicRow("BTC", "BTC")).toMatchObject({ min_amount: 0.0005 });
    // A write that does not pass through this isolate (as another isolate's edit would not).
    await env.DB.prepare("UPDATE currencies SET min_amount = '0.003' WHERE id = ?").bind(BTC_ID).run();
    expect(await publicRow("BTC", "BTC")).toMatchObject({ min_amount: 0.0005 });
    vi.setSystemTime(Date.now() + 5_001);
    expect(await publicRow("BTC", "BTC")).toMatchObject({ min_amount: 0.003 });
  });

  it("decimals change only before the currency's first order", async () => {
    expect((await patch(BTC_ID, { decimals: 7 })).status).toBe(200);
    expect((await patch(BTC_ID, { decimals: 8 })).status).toBe(200);
    await createOrder(partner, BTC_TO_USDT);
    const err = await expectError(await patch(BTC_ID, { decimals: 7 }), 422, "invalid_catalog_change");
    expect(err.detail).toContain("decimals");
  });

  it("disabling deposits stops new orders but never strands an existing one", async () => {
    startClock();
    const o = await createOrder(partner, BTC_TO_USDT);
    expect((await patch(BTC_ID, { is_deposit_enabled: false })).status).toBe(200);
    expect(await publicRow("BTC", "BTC")).toMatchObject({ is_deposit_enabled: false });
    const refused = await call("/api/v1/partner/orders", {
      method: "POST",
      body: JSON.stringify(BTC_TO_USDT),
      headers: { Authorization: `Bearer ${partner.key}`, "content-type": "application/json" },
    });
    await expectError(refused, 400, "pair_unavailable");

    await simSend("BTC", o.deposit_address, "0.01");
    await step(o.id);
    await simMine("BTC", 2);
    await step(o.id);
    expect(await read(partner, o.id)).toMatchObject({ status: "completed", amount_to_actual: 596 });
  });
});
