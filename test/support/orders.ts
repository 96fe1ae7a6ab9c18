import { evictDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, vi } from "vitest";
import { admin, call, json, type TestPartner } from "../helpers";

export interface Order {
  [k: string]: unknown;
  id: string;
  short_id: string;
  status: string;
  status_reason: string | null;
  deposit_address: string;
  deposit_address_tag: string | null;
  deposit_txid: string | null;
  deposit_confirmations: number | null;
  amount_from_received: number | null;
  amount_to_expected: number;
  amount_to_actual: number | null;
  payout_txid: string | null;
  refund_txid: string | null;
  expires_at: string;
  network_from: string;
  network_to: string;
  /** The order's keyless tracking page and status API (docs/widget.md). */
  tracking_url: string;
  status_url: string;
}

export interface LogEntry {
  from_status: string | null;
  to_status: string;
  reason: string;
  data: Record<string, unknown> | null;
}

export interface Outgoing {
  txid: string;
  order_id: string;
  kind: "payout" | "refund";
  to: string;
  tag: string | null;
  amount: string;
  coin: string;
}

export const TRON_ADDR = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
export const BTC_REFUND = "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4";
/** Another valid BTC address: a refund address an order is given after its creation. */
export const NEW_BTC = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";
export const XRP_ADDR = "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh";

export const BTC_TO_USDT = {
  coin_from: "BTC",
  network_from: "BTC",
  coin_to: "USDT",
  network_to: "TRX",
  amount_from: 0.01,
  rate_type: "float",
  recipient_address: TRON_ADDR,
};

/**
 * How many orders the fault runs (test/lifecycle/chaos.test.ts, venue-exchange.test.ts) push through.
 * `npm test` uses 60: the least common multiple of the runs' 3-, 4- and 5-way order plans, so every
 * combination of rate type, network and funding still occurs. `CHAOS_ORDERS=200` (what `.ci/run`
 * adds) is the deep run; the seeds are the same.
 */
export function chaosOrders(): number {
  if (env.CHAOS_ORDERS === "") return 60;
  const n = Number(env.CHAOS_ORDERS);
  if (!Number.isInteger(n) || n < 60)
    throw new Error(`CHAOS_ORDERS must be a whole number ≥ 60: ${env.CHAOS_ORDERS}`);
  return n;
}

/** Fake `Date` (shared by the Worker and its objects in this isolate), moved forward explicitly. */
export function startClock(): void {
  vi.useFakeTimers({ now: Date.now(), toFake: ["Date"] });
}

/**
 * Moves the clock forward: the fake one while it runs (it stands still otherwise), else from now.
 * Read from `Date`, not kept here, so the clock is the one the Worker sees.
 */
export function advance(ms: number): void {
  vi.setSystemTime(Date.now() + ms);
}

/** POST /partner/orders as the partner, whatever the answer (`init` adds e.g. `cf`). */
export function postOrder(p: TestPartner, body: unknown, init: RequestInit = {}): Promise<Response> {
  return call("/api/v1/partner/orders", {
    ...init,
    method: "POST",
    body: JSON.stringify(body),
    headers: { Authorization: `Bearer ${p.key}`, "content-type": "application/json" },
  });
}

export async function createOrder(p: TestPartner, body: Record<string, unknown>): Promise<Order> {
  const res = await postOrder(p, body);
  expect(res.status).toBe(201);
  return json<Order>(res);
}

export async function read(p: TestPartner, id: string): Promise<Order> {
  const res = await call(`/api/v1/partner/orders/${id}`, { headers: { "X-API-Key": p.key } });
  expect(res.status).toBe(200);
  return json<Order>(res);
}

/**
 * Evicts an object, as a deploy or an idle timeout would; false when it could not be now. An object
 * that is not running has nothing to evict, and one still serving a request (another order's round
 * holds no reference to it, but workerd may, longer on a loaded machine) is evicted in a later round.
 */
export async function evict(stub: DurableObjectStub): Promise<boolean> {
  try {
    await evictDurableObject(stub);
    return true;
  } catch (err) {
    if (/not currently running|still has active references/.test(String(err))) return false;
    throw err;
  }
}

/** Moves time past the poll interval and runs the order's due work, as its alarm would. */
export async function step(orderId: string, ms = 60_000): Promise<void> {
  advance(ms);
  await env.ORDERS.getByName(orderId).tick();
}

export async function simSend(
  network: string,
  to: string,
  amount: string,
  tag?: string | null,
  coin?: string,
): Promise<string> {
  const res = await admin(`/sim/${network}/transfers`, {
    method: "POST",
    json: { to, amount, ...(tag ? { tag } : {}), ...(coin ? { coin } : {}) },
  });
  expect(res.status).toBe(201);
  return (await json<{ txid: string }>(res)).txid;
}

export async function simMine(network: string, count = 1): Promise<void> {
  const res = await admin(`/sim/${network}/blocks`, { method: "POST", json: { count } });
  expect(res.status).toBe(200);
}

export async function outgoing(network: string): Promise<Outgoing[]> {
  return (await json<{ data: Outgoing[] }>(await admin(`/sim/${network}/outgoing`))).data;
}

export async function events(orderId: string): Promise<LogEntry[]> {
  return (await json<{ events: LogEntry[] }>(await admin(`/orders/${orderId}`))).events;
}

/** The status path of an order: its log's status changes, in order. */
export async function statusPath(orderId: string): Promise<string[]> {
  const log = await events(orderId);
  return log.filter((e) => e.from_status !== e.to_status).map((e) => e.to_status);
}

/**
 * Waits for an order's D1 index row, projected from its object right after the 201 (or by its
 * alarm). The bound partners get is measured by `npm run bench`, not here: this only gives up
 * after 10 s, so a loaded machine cannot fail a test on timing.
 */
export async function indexed(id: string, status?: string): Promise<void> {
  const until = performance.now() + 10_000;
  for (;;) {
    const row = await env.DB.prepare("SELECT status FROM orders WHERE id = ?")
      .bind(id)
      .first<{ status: string }>();
    if (row && (status === undefined || row.status === status)) return;
    if (performance.now() > until) throw new Error(`order ${id} not in the index within 10 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
