import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { encodeLogEntry, logBatchText, retentionCutoff } from "../../../src/domain/request-log";
import { admin, call, createPartner, expectError, json, setPrices } from "../../helpers";
import { BTC_TO_USDT } from "../../support/orders";

interface Entry {
  id: string;
  at: string;
  method: string;
  path: string;
  query: string;
  status: number;
  code: string | null;
  latency_ms: number;
  key_id: string;
  request_id: string;
  ip: string | null;
  order_id: string | null;
  order_short_id: string | null;
  error_body: string | null;
}
type Page = { data: Entry[]; next_cursor: string | null };

const as = (key: string, init: RequestInit = {}) => ({
  ...init,
  headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...init.headers },
});
const logs = async (key: string, query = ""): Promise<Page> => {
  const res = await call(`/api/v1/partner/logs${query ? `?${query}` : ""}`, as(key));
  expect(res.status).toBe(200);
  return json<Page>(res);
};

/** Polls until the log holds `count` entries; the contract is within 10 s of the answer. */
async function logged(key: string, count: number, query = ""): Promise<Page> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const page = await logs(key, query);
    if (page.data.length >= count || Date.now() > deadline) return page;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("GET /api/v1/partner/logs", () => {
  it("logs each keyed request within seconds: fields, filters, keyset paging, the key's mode only", async () => {
    await setPrices();
    const p = await createPartner();
    const created = await call(
      "/api/v1/partner/orders",
      as(p.key, { method: "POST", body: JSON.stringify({ ...BTC_TO_USDT, rate_type: "float" }) }),
    );
    expect(created.status).toBe(201);
    const order = await json<{ id: string; short_id: string }>(created);
    const read = await call(`/api/v1/partner/orders/${order.short_id.toLowerCase()}`, as(p.key));
    expect(read.status).toBe(200);
    const missing = await call("/api/v1/partner/orders/NOPE-NOPE", as(p.key));
    expect(missing.status).toBe(404);
    const listed = await call("/api/v1/partner/orders?limit=2&status=completed", as(p.key));
    expect(listed.status).toBe(200);
    const answered = Date.now();

    const page = await logged(p.key, 4);
    expect(Date.now() - answered).toBeLessThan(10_000);
    expect(page.data.map((e) => [e.method, e.path, e.status])).toEqual([
      ["GET", "/api/v1/partner/orders", 200],
      ["GET", "/api/v1/partner/orders/NOPE-NOPE", 404],
      ["GET", `/api/v1/partner/orders/${order.short_id.toLowerCase()}`, 200],
      ["POST", "/api/v1/partner/orders", 201],
    ]);
    const [list, notFound, get, create] = page.data as [Entry, Entry, Entry, Entry];
    expect(list.query).toBe("limit=2&status=completed");
    expect(notFound).toMatchObject({ code: "order_not_found", key_id: p.keyId, order_id: null });
    expect(JSON.parse(notFound.error_body ?? "")).toMatchObject({ code: "order_not_found" });
    expect(notFound.request_id).toBe(missing.headers.get("x-request-id"));
    expect(get).toMatchObject({
      order_id: order.id,
      order_short_id: order.short_id,
      code: null,
      error_body: null,
    });
    expect(create).toMatchObject({ order_id: order.id, request_id: created.headers.get("x-request-id") });
    for (const e of page.data) {
      expect(e.ip).toMatch(/^198\.18\./);
      expect(e.latency_ms).toBeGreaterThanOrEqual(0);
      expect(e.at).toMatch(/\.\d{3}Z$/);
    }

    // Filters: the order by its short id (any case) or UUID, status class or status, code, path
    // prefix, request id, key id.
    const ids = (p: Page) => p.data.map((e) => e.id);
    expect(ids(await logs(p.key, `order_id=${order.short_id.toLowerCase()}`))).toEqual([get.id, create.id]);
    expect(ids(await logs(p.key, `order_id=${order.id}`))).toEqual([get.id, create.id]);
    expect(ids(await logs(p.key, "status=4xx"))).toEqual([notFound.id]);
    expect(ids(await logs(p.key, "status=201"))).toEqual([create.id]);
    expect(ids(await logs(p.key, "code=order_not_found"))).toEqual([notFound.id]);
    expect(ids(await logs(p.key, "path=/api/v1/partner/orders/"))).toEqual([notFound.id, get.id]);
    expect(ids(await logs(p.key, `request_id=${get.request_id}`))).toEqual([get.id]);
    expect(ids(await logs(p.key, "key_id=pk_other"))).toEqual([]);

    // Keyset paging: pages of one, newest first, each once.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const next: Page = await logs(p.key, `limit=1${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...ids(next));
      cursor = next.next_cursor;
    } while (cursor);
    expect(seen).toEqual(ids(page));

    // A test key sees its own mode's log: its requests, not the live key's.
    const res = await admin(`/partners/${p.id}/keys`, { method: "POST", json: { mode: "test" } });
    const testKey = (await json<{ key: string }>(res)).key;
    expect((await call("/api/v1/partner/orders", as(testKey))).status).toBe(200);
    const testLog = await logged(testKey, 1);
    expect(testLog.data.map((e) => e.path)).toEqual(["/api/v1/partner/orders"]);
    // Reading the log was never logged.
    expect((await logs(p.key)).data).toHaveLength(4);
  });

  it("logs a keyed 429; a request without a valid key is in no one's log", async () => {
    const p = await createPartner({ rate_limit_per_minute: 1 });
    expect((await call("/api/v1/partner/orders", as(p.key))).status).toBe(200);
    const limited = await call("/api/v1/partner/orders", as(p.key));
    expect(limited.status).toBe(429);
    expect((await call("/api/v1/partner/orders", as(`${p.keyId}.wrong`))).status).toBe(401);
    // The log itself is rate limited too: wait for the bucket rather than read it at once.
    const entries = await env.REQUEST_LOGS.getByName(`${p.id}:live`).list({}, null, 10, 0);
    const deadline = Date.now() + 10_000;
    let rows = entries;
    while (rows.length < 2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      rows = await env.REQUEST_LOGS.getByName(`${p.id}:live`).list({}, null, 10, 0);
    }
    expect(rows.map((e) => [e.status, e.code])).toEqual([
      [429, "rate_limited"],
      [200, null],
    ]);
  });

  it("refuses bad filters with 400 and changes nothing", async () => {
    const p = await createPartner();
    for (const q of [
      "status=abc",
      "status=6xx",
      "order_id=not-an-order",
      "cursor=abc",
      "limit=0",
      "limit=101",
    ])
      await expectError(await call(`/api/v1/partner/logs?${q}`, as(p.key)), 400, "invalid_request");
    await expectError(await call("/api/v1/partner/logs"), 401, "invalid_api_key");
  });

  it("keeps entries for the retention period only: older ones are not shown and are trimmed", async () => {
    const log = env.REQUEST_LOGS.getByName("retention-test:live");
    const now = Date.now();
    const entry = (at_ms: number, request_id: string) => ({
      at_ms,
      method: "GET",
      path: "/api/v1/partner/orders",
      query: "",
      status: 200,
      code: null,
      latency_ms: 1,
      key_id: "pk_x",
      request_id,
      ip: null,
      order_id: null,
      error_body: null,
    });
    const cutoff = retentionCutoff(now, 7);
    await log.append(
      logBatchText(
        [entry(now - 8 * 86_400_000, "old"), entry(now - 6 * 86_400_000, "recent")].map(encodeLogEntry),
      ),
      0,
    );
    expect((await log.list({}, null, 10, cutoff)).map((e) => e.request_id)).toEqual(["recent"]);
    await log.append(logBatchText([encodeLogEntry(entry(now, "new"))]), cutoff);
    expect((await log.list({}, null, 10, 0)).map((e) => e.request_id)).toEqual(["new", "recent"]);
  });
});
