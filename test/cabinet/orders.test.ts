// The cabinet's order pages over HTTP: list, filters and search (lower-case short_id, deposit
// address, txid), keyset paging, CSV of every matching row, the detail with its timeline and the
// state it polls, ownership, and a refund decided from the cabinet (viewers cannot).
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { searchStatement } from "../../src/storage/order-search";
import { projectOrderIndex } from "../../src/storage/orders";
import { admin, call, json, setPrices, type TestPartner } from "../helpers";
import { acceptInvite, cab, csrfOf, invite, partnerWithAdmin, stepUp } from "../support/cabinet";
import { NO_PUBLIC_VIEW } from "../support/index-rows";
import {
  BTC_TO_USDT,
  createOrder,
  NEW_BTC,
  type Order,
  read,
  simMine,
  simSend,
  startClock,
  step,
} from "../support/orders";

type Team = Awaited<ReturnType<typeof partnerWithAdmin>> & { api: TestPartner };

async function team(): Promise<Team> {
  const t = await partnerWithAdmin();
  const res = await admin(`/partners/${t.partnerId}/keys`, { method: "POST" });
  const key = await json<{ key: string; key_id: string }>(res);
  return { ...t, api: { id: t.partnerId, key: key.key, keyId: key.key_id } };
}

const page = async (t: { cookie: string }, path: string) => {
  const res = await cab(path, { cookie: t.cookie });
  expect(res.status, path).toBe(200);
  return res.text();
};
const listed = (html: string) => [...html.matchAll(/data-order-id="([^"]+)"/g)].map((m) => m[1]);

beforeAll(() => setPrices());
afterEach(() => vi.useRealTimers());

describe("orders list", () => {
  let t: Team;
  let orders: Order[];
  beforeAll(async () => {
    t = await team();
    orders = [];
    for (const body of [BTC_TO_USDT, { ...BTC_TO_USDT, rate_type: "fixed" }, BTC_TO_USDT])
      orders.push(await createOrder(t.api, body));
  });

  it("lists the partner's orders newest first, and only theirs", async () => {
    const other = await team();
    await createOrder(other.api, BTC_TO_USDT);
    const html = await page(t, "/orders");
    expect(listed(html)).toEqual(orders.map((o) => o.id).reverse());
    expect(html).toContain(orders[0]!.short_id);
  });

  it("shows the header switch's view: test orders only under Test, live ones only under Live", async () => {
    const res = await admin(`/partners/${t.partnerId}/keys`, { method: "POST", json: { mode: "test" } });
    const key = await json<{ key: string; key_id: string }>(res);
    const test = await createOrder({ id: t.partnerId, key: key.key, keyId: key.key_id }, BTC_TO_USDT);
    expect(listed(await page(t, "/orders"))).toEqual(orders.map((o) => o.id).reverse());
    expect(listed(await page(t, "/orders?mode=test"))).toEqual([test.id]);
    const csv = await (await cab("/orders.csv?mode=test", { cookie: t.cookie })).text();
    expect(csv).toContain(test.id);
    expect(csv).not.toContain(orders[0]!.id);
  });

  it("finds an order by lower-case short_id, by deposit address and by id; nothing else", async () => {
    const o = orders[1]!;
    expect(listed(await page(t, `/orders?q=${o.short_id.toLowerCase()}`))).toEqual([o.id]);
    expect(listed(await page(t, `/orders?q=${encodeURIComponent(o.deposit_address)}`))).toEqual([o.id]);
    expect(listed(await page(t, `/orders?q=${o.id}`))).toEqual([o.id]);
    const none = await page(t, "/orders?q=nothing-like-this");
    expect(listed(none)).toEqual([]);
    expect(none).toContain("No order matches");
  });

  it("filters by mode, status, pair and day", async () => {
    expect(listed(await page(t, "/orders?rate=fixed"))).toEqual([orders[1]!.id]);
    expect(listed(await page(t, "/orders?status=waiting_deposit&coin_from=btc&coin_to=USDT"))).toHaveLength(
      3,
    );
    expect(listed(await page(t, "/orders?status=completed"))).toEqual([]);
    expect(listed(await page(t, "/orders?coin_from=ETH"))).toEqual([]);
    // The days the orders were made on (one, unless the run crossed midnight UTC meanwhile).
    const days = orders.map((o) => String(o.created_at).slice(0, 10)).sort();
    expect(listed(await page(t, `/orders?from=${days[0]}&to=${days.at(-1)}`))).toHaveLength(3);
    expect(listed(await page(t, "/orders?to=2020-01-01"))).toEqual([]);
  });

  it("exports every matching row as CSV, filters applied", async () => {
    const res = await cab("/orders.csv?rate=float", { cookie: t.cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="orders-\d+T\d+\.csv"$/);
    const lines = (await res.text()).trimEnd().split("\r\n");
    expect(lines[0]).toMatch(/^id,short_id,status,created_at,/);
    expect(lines.slice(1).map((l) => l.split(",")[0])).toEqual([orders[2]!.id, orders[0]!.id]);
    expect(lines[1]).toContain(`,float,BTC,BTC,0.01,USDT,TRX,`);
    // Each row ends with the order's keyless links, exactly as the API gives them.
    expect(lines[0]).toMatch(/,tracking_url,status_url$/);
    // The order's public view, as the API's list rows carry it.
    expect(lines[0]).toContain(",token_from,chain_id_from,token_to,chain_id_to,");
    expect(lines[0]).toContain(",recipient_address,recipient_address_tag,refund_address,");
    expect(lines[1]?.endsWith(`,${orders[2]!.tracking_url},${orders[2]!.status_url}`)).toBe(true);
  });

  it("needs a session", async () => {
    expect((await cab("/orders")).status).toBe(303);
    expect((await cab("/orders.csv")).status).toBe(303);
  });
});

describe("keyset paging", () => {
  it("walks 120 orders in pages of 50 with no repeats, and the CSV streams all of them", async () => {
    const t = await team();
    // Index rows only: paging and export read the D1 index, never the objects.
    const base = Date.parse("2026-01-01T00:00:00Z");
    for (let i = 0; i < 120; i++) {
      // Pairs of orders share a created_at, so the id breaks ties.
      const at = new Date(base + Math.floor(i / 2) * 1000).toISOString();
      const id = crypto.randomUUID();
      await projectOrderIndex(
        env.DB,
        {
          id,
          short_id: `P${String(i).padStart(3, "0")}${id.slice(0, 6).toUpperCase()}`,
          partner_id: t.partnerId,
          status: "completed",
          coin_from: "BTC",
          network_from: "BTC",
          coin_to: "USDT",
          network_to: "TRX",
          deposit_address: `addr-${id}`,
          deposit_address_tag: null,
          created_at: at,
          updated_at: at,
          expires_at: at,
          livemode: 1,
          needs_action: 0,
        },
        {
          rate_type: "float",
          amount_from: "0.01",
          amount_to: "590",
          deposit_txid: `dtx-${i}`,
          payout_txid: `ptx-${i}`,
          refund_txid: null,
          markup_bps: 100,
          completed_at: at,
          markup_amount: "0.0001",
          usd_price_from: "60000",
          markup_usd: "6",
          volume_usd: "600",
          widget_id: null,
          partner_order_id: null,
          metadata: null,
          deposit_seen_at: null,
          track_token: null,
          ...NO_PUBLIC_VIEW,
        },
        1,
      );
    }
    const seen: string[] = [];
    let path: string | null = "/orders";
    let pages = 0;
    while (path) {
      const html = await page(t, path);
      seen.push(...(listed(html) as string[]));
      pages++;
      const next = /href="(\/cabinet\/orders\?[^"]*cursor=[^"]+)" data-testid="older"/.exec(html)?.[1];
      path = next ? next.replace("/cabinet", "").replaceAll("&amp;", "&") : null;
    }
    expect(pages).toBe(3);
    expect(seen).toHaveLength(120);
    expect(new Set(seen).size).toBe(120);
    // Search by a payout txid.
    expect(listed(await page(t, "/orders?q=ptx-7"))).toHaveLength(1);
    const csv = await (await cab("/orders.csv", { cookie: t.cookie })).text();
    expect(csv.trimEnd().split("\r\n")).toHaveLength(121);
    // A forged cursor is refused, not run.
    expect((await cab("/orders?cursor=bm9wZQ", { cookie: t.cookie })).status).toBe(400);
  });
});

describe("order detail", () => {
  it("shows every contract field, the timeline and the state the page polls; another partner's is 404", async () => {
    const t = await team();
    const o = await createOrder(t.api, BTC_TO_USDT);
    const html = await page(t, `/orders/${o.short_id.toLowerCase()}`);
    for (const field of Object.keys(o).filter((k) => k !== "actions"))
      expect(html, field).toContain(`data-field="${field}"`);
    expect(html).toContain(o.deposit_address);
    // The tracking page to hand the person who swaps, as a link.
    expect(html).toContain(`href="${o.tracking_url}"`);
    expect(html).toMatch(/data-testid="timeline"[\s\S]*created → waiting_deposit/);
    expect(html).toContain("No webhook events for this order");
    const state = await json<{ status: string; updated_at: string; events: number }>(
      await cab(`/orders/${o.id}/state`, { cookie: t.cookie }),
    );
    expect(state).toEqual({ status: "waiting_deposit", updated_at: o.updated_at, events: 1 });

    const other = await team();
    expect((await cab(`/orders/${o.id}`, { cookie: other.cookie })).status).toBe(404);
    expect((await cab(`/orders/${o.short_id}/state`, { cookie: other.cookie })).status).toBe(404);
  });
});

describe("the partner's reference and metadata (issue 28 §8)", () => {
  it("show on the detail page and in the CSV export, metadata as its JSON object", async () => {
    const t = await team();
    const metadata = { user: "u-1", note: 'two, "quoted" words' };
    const o = await createOrder(t.api, { ...BTC_TO_USDT, partner_order_id: "inv-42", metadata });
    const html = await page(t, `/orders/${o.id}`);
    expect(html).toMatch(/data-field="partner_order_id"><span class="mono">inv-42<\/span>/);
    const pairs = /<dl class="pairs" data-testid="metadata">([\s\S]*?)<\/dl>/.exec(html)?.[1] ?? "";
    expect(
      [...pairs.matchAll(/<dt class="mono">([^<]*)<\/dt><dd class="mono">([^<]*)<\/dd>/g)].map((m) => [
        m[1],
        m[2],
      ]),
    ).toEqual([
      ["user", "u-1"],
      ["note", "two, &quot;quoted&quot; words"],
    ]);
    expect(html).toMatch(/<dl class="pairs" data-testid="fees"><dt class="mono">gross<\/dt>/);
    expect(html).not.toContain("[object Object]");
    // The ETA the order was quoted and the floor of a float order (issue 46).
    expect(html).toMatch(
      /<dl class="pairs" data-testid="eta_seconds"><dt class="mono">p50<\/dt><dd class="mono">\d+<\/dd>/,
    );
    expect(html).toMatch(/<dt[^>]*>amount_to_min<\/dt>\s*<dd[^>]*><span class="mono">[\d.]+<\/span>/);

    const lines = (await (await cab("/orders.csv", { cookie: t.cookie })).text()).trimEnd().split("\r\n");
    const header = lines[0]?.split(",") ?? [];
    expect(header.slice(5, 8)).toEqual(["partner_order_id", "metadata", "rate_type"]);
    expect(lines[1]).toContain(`,inv-42,"${JSON.stringify(metadata).replaceAll('"', '""')}",float,`);
  });
});

describe("the CSV export takes the partner API's list filters (issue 28 §5)", () => {
  it("created_from / created_to (half-open), updated_from and partner_order_id pick what GET /partner/orders picks", async () => {
    const t = await team();
    const rows: [string, string, string | null][] = [
      ["2026-02-28T23:59:59.000Z", "2026-03-02T00:00:00.000Z", null],
      ["2026-03-01T00:00:00.000Z", "2026-03-01T00:00:00.000Z", "ref-a"],
      ["2026-03-15T12:00:00.000Z", "2026-04-03T00:00:00.000Z", "ref-b"],
      ["2026-04-01T00:00:00.000Z", "2026-04-01T00:00:00.000Z", null],
    ];
    const ids: string[] = [];
    for (const [i, [created, updated, reference]] of rows.entries()) {
      const id = crypto.randomUUID();
      ids.push(id);
      await projectOrderIndex(
        env.DB,
        {
          id,
          short_id: `R${i}${id.slice(0, 8).toUpperCase()}`,
          partner_id: t.partnerId,
          status: "completed",
          coin_from: "BTC",
          network_from: "BTC",
          coin_to: "USDT",
          network_to: "TRX",
          deposit_address: `addr-${id}`,
          deposit_address_tag: null,
          created_at: created,
          updated_at: updated,
          expires_at: created,
          livemode: 1,
          needs_action: 0,
        },
        {
          rate_type: "float",
          amount_from: "0.01",
          amount_to: "590",
          deposit_txid: null,
          payout_txid: null,
          refund_txid: null,
          markup_bps: 0,
          completed_at: updated,
          markup_amount: null,
          usd_price_from: null,
          markup_usd: null,
          volume_usd: null,
          widget_id: null,
          partner_order_id: reference,
          metadata: null,
          deposit_seen_at: null,
          track_token: null,
          ...NO_PUBLIC_VIEW,
        },
        1,
      );
    }
    const csvIds = async (query: string) =>
      (await (await cab(`/orders.csv?${query}`, { cookie: t.cookie })).text())
        .trimEnd()
        .split("\r\n")
        .slice(1)
        .map((l) => l.split(",")[0]);
    const apiIds = async (query: string) =>
      (
        await json<{ data: { id: string }[] }>(
          await call(`/api/v1/partner/orders?limit=100&${query}`, {
            headers: { Authorization: `Bearer ${t.api.key}` },
          }),
        )
      ).data.map((o) => o.id);
    const march = "created_from=2026-03-01T00:00:00Z&created_to=2026-04-01T00:00:00%2B00:00";
    const cases: [string, string[]][] = [
      [march, [ids[2]!, ids[1]!]],
      ["updated_from=2026-03-02T00:00:00Z", [ids[3]!, ids[2]!, ids[0]!]],
      [`${march}&updated_from=2026-03-02T00:00:00Z`, [ids[2]!]],
      ["partner_order_id=ref-a", [ids[1]!]],
      // The page's whole-day filters still apply, and the tighter bound wins.
      ["from=2026-03-15&created_from=2026-03-01T00:00:00Z", [ids[3]!, ids[2]!]],
    ];
    for (const [query, expected] of cases) {
      expect(await csvIds(query), query).toEqual(expected);
      if (!query.includes("from=2026-03-15")) expect(await apiIds(query), query).toEqual(expected);
    }
    // Something that is not an instant is ignored, as every filter of the page is.
    expect(await csvIds("created_from=last-month")).toHaveLength(4);
  });
});

describe("actions from the cabinet", () => {
  beforeEach(async () => {
    await setPrices();
    startClock();
  });

  it("an underpaid order offers a refund; the address is checked, a viewer cannot act, an admin refunds", async () => {
    const t = await team();
    const o = await createOrder(t.api, BTC_TO_USDT);
    await simSend("BTC", o.deposit_address, "0.0003");
    await simMine("BTC", 2);
    await step(o.id);
    expect(await read(t.api, o.id)).toMatchObject({ status: "failed", status_reason: "amount_below_min" });

    const viewer = await acceptInvite(await invite(t.partnerId, "viewer@wallet.example", "viewer"));
    const viewerPage = await page(viewer, `/orders/${o.id}`);
    expect(viewerPage).toContain('data-testid="actions"');
    expect(viewerPage).not.toContain('data-testid="refund"');
    const viewerCsrf = await csrfOf(viewer.cookie);
    expect(
      (
        await cab(`/orders/${o.id}/refund`, {
          cookie: viewer.cookie,
          csrf: viewerCsrf,
          form: { refund_address: NEW_BTC },
        })
      ).status,
    ).toBe(403);

    const html = await page(t, `/orders/${o.id}`);
    expect(html).toContain('data-testid="refund"');
    expect(html).toMatch(/Refund 0\.0002 BTC/);
    expect(html).toContain('data-validate="refund"');

    const check = (address: string) =>
      cab(`/orders/${o.id}/check-address`, {
        cookie: t.cookie,
        csrf: t.csrf,
        json: { kind: "refund", address },
      });
    expect(await json(await check("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"))).toMatchObject({ ok: false });
    expect(await json(await check(NEW_BTC))).toEqual({ ok: true, address: NEW_BTC });

    // Without the address the order needs: refused, nothing changes.
    expect((await cab(`/orders/${o.id}/refund`, { cookie: t.cookie, csrf: t.csrf, form: {} })).status).toBe(
      422,
    );
    expect((await read(t.api, o.id)).status).toBe("failed");

    const res = await cab(`/orders/${o.id}/refund`, {
      cookie: t.cookie,
      csrf: t.csrf,
      form: { refund_address: NEW_BTC, step_up: await stepUp(t) },
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/cabinet/orders/${o.id}`);
    expect(await read(t.api, o.id)).toMatchObject({
      status: "refunding",
      refund_address: NEW_BTC,
      actions: null,
    });
    // Recorded as the member's decision.
    const log = await json<{ events: { data: Record<string, unknown> | null }[] }>(
      await admin(`/orders/${o.id}`),
    );
    expect(log.events.some((e) => e.data?.decided_by === "cabinet:admin@wallet.example")).toBe(true);
    const audit = await page(t, "/audit");
    expect(audit).toMatch(new RegExp(`<code>order\\.refund</code>[\\s\\S]*?${o.short_id}`));
    // A second decision is refused.
    expect((await cab(`/orders/${o.id}/continue`, { cookie: t.cookie, csrf: t.csrf, form: {} })).status).toBe(
      409,
    );
  });
});

describe("a wrong-network deposit in the cabinet", () => {
  beforeEach(async () => {
    await setPrices();
    startClock();
  });

  it("shows USDC sent on Arbitrum to a Base order, and refunds it there to the address typed", async () => {
    const t = await team();
    const o = await createOrder(t.api, {
      coin_from: "USDC",
      network_from: "BASE",
      coin_to: "BTC",
      network_to: "BTC",
      amount_from: "50",
      rate_type: "float",
      recipient_address: NEW_BTC,
    });
    await simSend("ARBITRUM", o.deposit_address, "50", null, "USDC");
    await simMine("ARBITRUM", 3);
    await step(o.id);
    const html = await page(t, `/orders/${o.id}`);
    expect(html).toContain('data-testid="wrong-network-deposit"');
    expect(html).toMatch(
      /<strong>50<\/strong> USDC arrived at this order.{1,6}s address on\s*<strong>ARBITRUM<\/strong>, not BASE/,
    );
    const deposit = html.match(/name="deposit" value="([^"]+)"/)?.[1] ?? "";
    expect(deposit).toMatch(/^ARBITRUM:/);
    const to = "0x9cBaE97Fb54f32820DE834093691FF27A83D5531";
    const res = await cab(`/orders/${o.id}/refund`, {
      cookie: t.cookie,
      csrf: t.csrf,
      form: { deposit, refund_address: to, step_up: await stepUp(t) },
    });
    expect(res.status).toBe(303);
    expect(await read(t.api, o.id)).toMatchObject({ status: "waiting_deposit", actions: null });
    expect(await page(t, `/orders/${o.id}`)).not.toContain('data-testid="wrong-network-deposit"');
  });
});

describe("test helpers from the cabinet", () => {
  beforeEach(() => setPrices());

  it("a test order's page has the buttons and runs the helpers; a live order has none and refuses them", async () => {
    const t = await team();
    const res = await admin(`/partners/${t.partnerId}/keys`, { method: "POST", json: { mode: "test" } });
    const key = await json<{ key: string; key_id: string }>(res);
    const testApi = { id: t.partnerId, key: key.key, keyId: key.key_id };
    const test = await createOrder(testApi, BTC_TO_USDT);
    const live = await createOrder(t.api, BTC_TO_USDT);

    const html = await page(t, `/orders/${test.id}?mode=test`);
    for (const helper of ["deposit", "confirm", "drop-deposit", "expire", "fail"])
      expect(html).toContain(`action="/cabinet/orders/${test.id}/test/${helper}"`);
    expect(await page(t, `/orders/${live.id}?mode=live`)).not.toContain('data-testid="test-helpers"');

    const post = (o: Order, helper: string, form: Record<string, string> = {}) =>
      cab(`/orders/${o.id}/test/${helper}`, { cookie: t.cookie, csrf: t.csrf, form });
    // A live order: refused by name, nothing changes.
    const refused = await post(live, "deposit", { amount: "0.01" });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain(`Order ${live.short_id} is a live order`);
    expect(await post(live, "expire")).toHaveProperty("status", 403);
    expect(await read(t.api, live.id)).toMatchObject({ status: "waiting_deposit", deposit_txid: null });
    // A bad amount: 400, nothing changes.
    expect(await post(test, "deposit", { amount: "-1" })).toHaveProperty("status", 400);
    expect(await read(testApi, test.id)).toMatchObject({ status: "waiting_deposit" });
    // Without the CSRF token: refused.
    expect((await cab(`/orders/${test.id}/test/expire`, { cookie: t.cookie, form: {} })).status).toBe(403);

    const deposited = await post(test, "deposit", { amount: "0.01" });
    expect(deposited.status).toBe(303);
    expect(deposited.headers.get("location")).toBe(`/cabinet/orders/${test.id}`);
    expect(await read(testApi, test.id)).toMatchObject({ status: "confirming", amount_from_received: 0.01 });
    expect((await post(test, "confirm")).status).toBe(303);
    expect(await read(testApi, test.id)).toMatchObject({ status: "completed" });
    const audit = await page(t, "/audit");
    expect(audit).toMatch(new RegExp(`<code>order\\.test\\.confirm</code>[\\s\\S]*?${test.short_id}`));
  });
});

describe("simulated time and the overview's hints", () => {
  beforeEach(() => setPrices());

  it("an expired test order's expiry is shown at its real time, marked with the clock's lead", async () => {
    const t = await team();
    const res = await admin(`/partners/${t.partnerId}/keys`, { method: "POST", json: { mode: "test" } });
    const key = await json<{ key: string; key_id: string }>(res);
    const o = await createOrder({ id: t.partnerId, key: key.key, keyId: key.key_id }, BTC_TO_USDT);
    expect(
      (await cab(`/orders/${o.id}/test/expire`, { cookie: t.cookie, csrf: t.csrf, form: {} })).status,
    ).toBe(303);
    const html = await page(t, `/orders/${o.id}`);
    // Before the field list (whose *_at fields are the order's own clock too).
    const beforeFields = html.slice(0, html.indexOf('data-testid="fields"'));
    const times = [...beforeFields.matchAll(/<time datetime="([^"]+)"/g)].map((m) => Date.parse(m[1]!));
    // The timeline's times (the lead's "updated" is the order's own clock, first on the page).
    const timeline = times.slice(1);
    expect(timeline.length).toBeGreaterThanOrEqual(2);
    expect(timeline).toEqual([...timeline].sort((a, b) => a - b));
    for (const at of timeline) expect(at).toBeLessThanOrEqual(Date.now());
    const marks = [...html.matchAll(/data-testid="simulated"[^>]*>simulated: ([^<]+)</g)].map((m) => m[1]);
    expect(marks).toEqual([expect.stringMatching(/^\+(29|30) min$/)]);
  });

  it("earnings of $0.00 at 0 bps say why and link the setting; with a markup they do not", async () => {
    const t = await team();
    const zero = await page(t, "/overview");
    expect(zero).toContain('data-testid="markup-hint"');
    expect(zero).toContain('href="/cabinet/settings#markup"');
    expect(await page(t, "/settings")).toContain('id="markup"');
    await cab("/settings", { cookie: t.cookie, csrf: t.csrf, form: { markup_bps: "50" } });
    expect(await page(t, "/overview")).not.toContain('data-testid="markup-hint"');
  });
});

describe("step-up before funds go to a new address", () => {
  beforeEach(async () => {
    await setPrices();
    startClock();
  });

  it("a typed refund address needs a fresh passkey assertion with user verification, audited with the address", async () => {
    const t = await team();
    const other = await partnerWithAdmin("other@wallet.example");
    const o = await createOrder(t.api, BTC_TO_USDT);
    await simSend("BTC", o.deposit_address, "0.0003");
    await simMine("BTC", 2);
    await step(o.id);
    expect(await read(t.api, o.id)).toMatchObject({ status: "failed", status_reason: "amount_below_min" });
    const html = await page(t, `/orders/${o.id}`);
    expect(html).toMatch(/<input type="hidden" name="step_up" data-step-up/);

    // The page's form post; `x-csrf-token` as well makes the cabinet answer errors in JSON.
    const post = (step_up?: string, headers: Record<string, string> = { "x-csrf-token": t.csrf }) =>
      cab(`/orders/${o.id}/refund`, {
        cookie: t.cookie,
        csrf: t.csrf,
        headers,
        form: { refund_address: NEW_BTC, ...(step_up !== undefined ? { step_up } : {}) },
      });
    const refused = async (step_up: string | undefined, detail: RegExp) => {
      const res = await post(step_up);
      expect(res.status).toBe(403);
      expect(await json(res)).toEqual({ code: "step_up_required", detail: expect.stringMatching(detail) });
      expect((await read(t.api, o.id)).status).toBe("failed");
    };

    // The session alone, garbage, a presence-only assertion, another member's passkey, a
    // confirmation made for another session: each refused, the order still holds the money.
    expect((await post(undefined, {})).status).toBe(403);
    await refused(undefined, /fresh passkey confirmation/);
    await refused("{", /malformed/);
    await refused(await stepUp(t, { userVerified: false }), /user verification/);
    const mine = JSON.parse(await stepUp(t)) as { challengeId: string };
    const theirs = JSON.parse(await stepUp(other)) as { response: unknown };
    await refused(JSON.stringify({ challengeId: mine.challengeId, response: theirs.response }), /your own/);
    await refused(await stepUp(other), /expired/);

    const proof = await stepUp(t);
    expect((await post(proof)).status).toBe(303);
    expect(await read(t.api, o.id)).toMatchObject({ status: "refunding", refund_address: NEW_BTC });
    // Newest first: the refund, then the step-up that allowed it, with the address.
    const audit = await page(t, "/audit");
    expect(audit).toMatch(
      new RegExp(`<code>order\\.refund</code>[\\s\\S]*?<code>step_up\\.verified</code>[\\s\\S]*?${NEW_BTC}`),
    );
    const rows = await env.DB.prepare(
      "SELECT action, target, detail FROM cabinet_audit_log WHERE partner_id = ? AND action IN ('step_up.verified', 'order.refund') ORDER BY id",
    )
      .bind(t.partnerId)
      .all<{ action: string; target: string; detail: string }>();
    expect(rows.results.map((r) => [r.action, r.target, JSON.parse(r.detail)])).toEqual([
      ["step_up.verified", NEW_BTC, { action: "order.refund", passkey: "Passkey 1" }],
      ["order.refund", o.short_id, { status: "refunding", refund_address: NEW_BTC, step_up: "Passkey 1" }],
    ]);
  });

  it("sign-in needs user verification too", async () => {
    const t = await partnerWithAdmin("uv@wallet.example");
    const opts = await cab("/sign-in/options", { json: {} });
    const { challengeId, options } = await json<{
      challengeId: string;
      options: { challenge: string; userVerification: string };
    }>(opts);
    expect(options.userVerification).toBe("required");
    const res = await cab("/sign-in", {
      json: { challengeId, response: t.authenticator.assert(options, undefined, { userVerified: false }) },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("set-cookie") ?? "").not.toContain("cabinet_session");
  });
});

describe("earnings and overview", () => {
  beforeEach(async () => {
    await setPrices();
    startClock();
  });

  it("a completed order's markup is fixed at completion and shows on the overview, the earnings page and its CSV", async () => {
    const t = await team();
    expect(
      (await admin(`/partners/${t.partnerId}`, { method: "PATCH", json: { markup_bps: 100 } })).status,
    ).toBe(200);
    const o = await createOrder(t.api, BTC_TO_USDT);
    await simSend("BTC", o.deposit_address, "0.01");
    await step(o.id);
    await simMine("BTC", 2);
    await step(o.id);
    const completed = await read(t.api, o.id);
    expect(completed.status).toBe("completed");
    // Later prices change nothing: the price of the completion moment was stored with the order.
    await setPrices({ BTC: "10", USDT: "1" });
    await step(o.id);

    const earnings = await page(t, "/earnings");
    expect(earnings).toMatch(/data-testid="total-usd">\$6\.00</);
    expect(earnings).toMatch(/0\.0001 BTC/);
    const csv = await (await cab("/earnings.csv", { cookie: t.cookie })).text();
    // The completion's UTC day, not the clock's now: a run near midnight crosses it between the two.
    const day = String(completed.completed_at).slice(0, 10);
    expect(day).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(csv).toBe(`day,coin,orders,markup,markup_usd,unpriced_orders\r\n${day},BTC,1,0.0001,6,0\r\n`);

    const overview = await page(t, "/overview");
    expect(overview).toMatch(/data-window="Today"[\s\S]*?1 order[\s\S]*?1 completed · 100\.0 % conversion/);
    expect(overview).toMatch(/Volume <strong>\$600\.00<\/strong>/);
    expect(overview).toContain('data-testid="chart"');

    const rows = (await (await cab("/orders.csv", { cookie: t.cookie })).text()).split("\r\n");
    // markup and markup_usd, then the rest of the public view, then the keyless links.
    expect(rows[1]).toMatch(/,completed,.*,0\.0001,6,.*,http[^,]+,http[^,]+$/);
  });
});

describe("query plans", () => {
  // Keeps "over 100,000 orders without slowing down" true: a page, a status or pair filter and a
  // search each read an index range, never every row of the partner.
  const plan = async (
    f: Parameters<typeof searchStatement>[0],
    after?: { createdAt: string; id: string },
  ) => {
    const s = searchStatement(f, after, 51);
    const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${s.sql}`)
      .bind(...s.args)
      .all<{ detail: string }>();
    return results.map((r) => r.detail).join(" | ");
  };
  const after = { createdAt: "2026-01-01T00:00:00.000Z", id: "00000000-0000-4000-8000-000000000000" };

  it("pages, filters and searches read index ranges only", async () => {
    expect(await plan({ partnerId: "p", livemode: true }, after)).toMatch(
      /^SEARCH o USING INDEX orders_partner_mode_created \(partner_id=\? AND livemode=\? AND created_at<\?\)$/,
    );
    expect(await plan({ partnerId: "p", livemode: true, status: "refunded" })).toMatch(
      /USING INDEX orders_partner_status_created/,
    );
    expect(await plan({ partnerId: "p", livemode: true, coinFrom: "BTC", coinTo: "ETH" })).toMatch(
      /USING INDEX orders_partner_pair_created/,
    );
    const search = await plan({
      partnerId: "p",
      livemode: true,
      search: { id: null, shortId: "ABC", text: "abc" },
    });
    for (const index of [
      "sqlite_autoindex_orders_2",
      "orders_deposit_address",
      "orders_deposit_txid",
      "orders_payout_txid",
      "orders_refund_txid",
    ])
      expect(search).toContain(`USING INDEX ${index}`);
    expect(search).not.toMatch(/SCAN (o|orders)\b/);
  });
});
