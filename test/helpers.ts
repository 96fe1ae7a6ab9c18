import { exports } from "cloudflare:workers";
import { expect, onTestFinished } from "vitest";

export const BASE = "http://localhost";
export const ADMIN_TOKEN = "test-admin-token";

let ipCounter = 0;
/** A fresh client address, so tests that are not about rate limits never share an IP bucket. */
export function freshIp(): string {
  ipCounter++;
  return `198.18.${(ipCounter >> 8) & 255}.${ipCounter & 255}`;
}

/**
 * Calls the Worker's real fetch handler (router, middleware, bindings) as a partner would. Unless
 * the test sets CF-Connecting-IP itself, each call comes from a fresh client address.
 */
export function call(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (!headers.has("cf-connecting-ip")) headers.set("cf-connecting-ip", freshIp());
  return exports.default.fetch(new Request(`${BASE}${path}`, { ...init, headers }));
}

export function admin(path: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
  const { json: body, ...rest } = init;
  const headers = new Headers(rest.headers);
  headers.set("authorization", `Bearer ${ADMIN_TOKEN}`);
  if (body !== undefined) headers.set("content-type", "application/json");
  return call(`/admin/v1${path}`, {
    ...rest,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

export async function json<T = unknown>(res: Response): Promise<T> {
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  return (await res.json()) as T;
}

export interface ErrorBody {
  detail: string;
  code: string;
  errors?: { field: string; message: string }[];
}

/** Asserts the uniform error shape and returns it. */
export async function expectError(res: Response, status: number, code: string): Promise<ErrorBody> {
  const body = await json<ErrorBody>(res);
  expect({ status: res.status, code: body.code, detail: body.detail }).toMatchObject({ status, code });
  expect(typeof body.detail).toBe("string");
  expect(body.detail.length).toBeGreaterThan(0);
  expect(res.headers.get("x-request-id")).toBeTruthy();
  return body;
}

export interface TestPartner {
  id: string;
  key: string;
  keyId: string;
}

/** Every key scope: the tests' partners may do everything (partner-routes/key-scopes.ts tests less). */
export const ALL_SCOPES = ["read", "orders:write", "orders:act", "webhooks:write"];

/** Creates a partner and an API key (with every scope) through the operator API. */
export async function createPartner(
  fields: { name?: string; markup_bps?: number; rate_limit_per_minute?: number } = {},
): Promise<TestPartner> {
  const res = await admin("/partners", { method: "POST", json: { name: "acme", ...fields } });
  expect(res.status).toBe(201);
  const partner = await json<{ id: string }>(res);
  const keyRes = await admin(`/partners/${partner.id}/keys`, {
    method: "POST",
    json: { scopes: ALL_SCOPES },
  });
  expect(keyRes.status).toBe(201);
  const key = await json<{ key: string; key_id: string }>(keyRes);
  return { id: partner.id, key: key.key, keyId: key.key_id };
}

/** Round figures so quotes can be checked by hand. */
export const TEST_PRICES: Record<string, string> = {
  BTC: "60000",
  ETH: "3000",
  USDT: "1",
  USDC: "1",
  LTC: "80",
  DOGE: "0.1",
  BNB: "600",
  TRX: "0.12",
  SOL: "150",
  XRP: "0.5",
  XLM: "0.1",
  TON: "5",
  POL: "0.5",
  AVAX: "30",
  ETC: "20",
  DASH: "30",
  BCH: "400",
  LINK: "15",
};

/** Sets market prices through the operator API (tests run with PRICE_SOURCE=static). */
export async function setPrices(prices: Record<string, string> = TEST_PRICES): Promise<void> {
  const res = await admin("/prices", { method: "PUT", json: { prices } });
  expect(res.status).toBe(200);
}

/** The seed's BCH row: tests that need a delisted row delist it through the catalog API. */
export const BCH_ROW_ID = "6f1c1f2e-0c1a-4b7e-9a01-000000000011";

/** Delists a catalog row as an operator would, relisting it when the current test ends. */
export async function delistDuringTest(id: string): Promise<void> {
  const set = (is_active: boolean) => admin(`/currencies/${id}`, { method: "PATCH", json: { is_active } });
  expect((await set(false)).status).toBe(200);
  onTestFinished(async () => void (await set(true)));
}
