/**
 * The operator's guard rails (docs/operators.md, "Guard rails"): modes that disagree refuse every
 * live quote and order with 503 service_misconfigured and show on GET /admin/v1/guard-rails, while
 * test keys go on.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index";
import {
  ADMIN_TOKEN,
  admin,
  createPartner,
  expectError,
  freshIp,
  json,
  setPrices,
  type TestPartner,
} from "../helpers";
import { BTC_TO_USDT } from "../support/orders";

const HTTP_PAYOUTS = {
  PAYOUT_MODE: "http",
  PAYOUT_GATEWAY_URL: "https://signer.test",
  CABINET_ORIGIN: "https://api.example.test",
};
const REAL_VENUE = {
  EXCHANGE_MODE: "binance",
  EXCHANGE_URL: "https://venue.test",
  EXCHANGE_API_KEY: "k",
  EXCHANGE_API_SECRET: "s",
};

/** One request to the Worker with these vars over the test environment. */
async function withVars(
  vars: Record<string, string>,
  path: string,
  init: RequestInit = {},
): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("CF-Connecting-IP", freshIp());
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`http://local.test${path}`, { ...init, headers }),
    {
      ...env,
      ...vars,
    } as unknown as Env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

const RATES = "/api/v1/partner/rates?coin_from=BTC&coin_to=USDT&network_to=TRX&amount=0.01";
const asKey = (key: string): RequestInit => ({ headers: { Authorization: `Bearer ${key}` } });
const createOrder = (key: string): RequestInit => ({
  method: "POST",
  body: JSON.stringify(BTC_TO_USDT),
  headers: { Authorization: `Bearer ${key}`, "content-type": "application/json" },
});
const guardRails = (vars: Record<string, string>) =>
  withVars(vars, "/admin/v1/guard-rails", { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });

let partner: TestPartner;
let testKey: string;

beforeAll(async () => {
  await setPrices();
  partner = await createPartner({ name: "guard-rails", rate_limit_per_minute: 100_000 });
  const res = await admin(`/partners/${partner.id}/keys`, { method: "POST", json: { mode: "test" } });
  testKey = (await json<{ key: string }>(res)).key;
});

describe("modes that disagree", () => {
  it("real payouts with a simulated venue: live quotes and orders are 503 service_misconfigured, test keys go on", async () => {
    const quote = await expectError(
      await withVars(HTTP_PAYOUTS, RATES, asKey(partner.key)),
      503,
      "service_misconfigured",
    );
    expect(quote.detail).toContain("the venue is simulated (EXCHANGE_MODE=simulated)");
    await expectError(
      await withVars(HTTP_PAYOUTS, "/api/v1/partner/orders", createOrder(partner.key)),
      503,
      "service_misconfigured",
    );
    expect((await withVars(HTTP_PAYOUTS, RATES, asKey(testKey))).status).toBe(200);
    const testOrder = await withVars(HTTP_PAYOUTS, "/api/v1/partner/orders", createOrder(testKey));
    expect(testOrder.status, await testOrder.clone().text()).toBe(201);

    expect(await json(await guardRails(HTTP_PAYOUTS))).toEqual({
      chain_mode: "simulated",
      exchange_mode: "simulated",
      payout_mode: "http",
      cabinet_origin: "https://api.example.test",
      live_orders: false,
      problems: ["payouts are real (PAYOUT_MODE=http) but the venue is simulated (EXCHANGE_MODE=simulated)"],
      // No list downloaded in this file (test/http/operations/screening.ts tests it).
      sanctions_list: {
        version: null,
        fetched_at: null,
        age_seconds: null,
        addresses: 0,
        stale: false,
        last_attempt_at: null,
        last_error: null,
      },
    });
  });

  it("a real chain reader with simulated payouts is refused the same way", async () => {
    const vars = { CHAIN_MODE: "BTC:esplora,*:simulated", CHAIN_URL_BTC: "https://esplora.test/api" };
    const quote = await expectError(
      await withVars(vars, RATES, asKey(partner.key)),
      503,
      "service_misconfigured",
    );
    expect(quote.detail).toContain("payouts are simulated (PAYOUT_MODE=simulated)");
    const rails = await json<{ live_orders: boolean; problems: string[] }>(await guardRails(vars));
    expect(rails.live_orders).toBe(false);
    expect(rails.problems).toHaveLength(1);
  });

  it("real payouts with the cabinet's local default origin: live quotes and orders are refused", async () => {
    const vars = { ...HTTP_PAYOUTS, ...REAL_VENUE, CABINET_ORIGIN: "http://localhost:8787" };
    const quote = await expectError(
      await withVars(vars, RATES, asKey(partner.key)),
      503,
      "service_misconfigured",
    );
    expect(quote.detail).toContain("the cabinet's origin is http://localhost:8787 (CABINET_ORIGIN)");
    await expectError(
      await withVars(vars, "/api/v1/partner/orders", createOrder(partner.key)),
      503,
      "service_misconfigured",
    );
    expect(await json(await guardRails(vars))).toMatchObject({
      cabinet_origin: "http://localhost:8787",
      live_orders: false,
      problems: [
        "payouts are real (PAYOUT_MODE=http) but the cabinet's origin is http://localhost:8787 (CABINET_ORIGIN): set the public https origin",
      ],
    });
  });

  it("modes that agree show no problem and quote live as before", async () => {
    expect(await json(await guardRails({}))).toMatchObject({ live_orders: true, problems: [] });
    expect(await json(await guardRails({ ...HTTP_PAYOUTS, ...REAL_VENUE }))).toMatchObject({
      live_orders: true,
      problems: [],
    });
    expect((await withVars({}, RATES, asKey(partner.key))).status).toBe(200);
  });

  it("the operator route needs the operator", async () => {
    expect((await withVars({}, "/admin/v1/guard-rails")).status).toBe(401);
  });
});
