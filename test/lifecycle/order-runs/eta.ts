/**
 * How long a swap takes (docs/orders.md, "How long it takes"): quotes and orders carry an ETA, the
 * chain's estimate until a pair has ETA_MIN_ORDERS completed live orders, then the pair's own p50
 * and p90 as the cron sums them; an order shows each step's time once it is over.
 */
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { ETA_MIN_ORDERS } from "../../../src/domain/eta";
import { ETA_REFRESH_MINUTES, refreshEtas } from "../../../src/services/eta";
import { projectOrderIndex } from "../../../src/storage/orders";
import { call, createPartner, json, setPrices, type TestPartner } from "../../helpers";
import { NO_PUBLIC_VIEW } from "../../support/index-rows";
import {
  advance,
  BTC_TO_USDT,
  createOrder,
  type Order,
  read,
  simMine,
  simSend,
  startClock,
  step,
} from "../../support/orders";

describe("eta", () => {
  interface Eta {
    p50: number;
    p90: number;
  }
  type Quote = { eta_seconds: Eta; eta_source: string };
  type Timed = Order & {
    eta_seconds: Eta | null;
    eta_source: string | null;
    deposit_confirmation_seconds: number | null;
    payout_seconds: number | null;
  };

  let partner: TestPartner;

  const quote = async (query: string): Promise<Quote> => {
    const res = await call(`/api/v1/partner/rates?${query}`, { headers: { "X-API-Key": partner.key } });
    expect(res.status, await res.clone().text()).toBe(200);
    return json<Quote>(res);
  };

  /** A cron minute the ETA refresh runs at, at or after now. */
  const refreshMinute = () => {
    const period = ETA_REFRESH_MINUTES * 60_000;
    return Math.ceil(Date.now() / period) * period;
  };

  beforeAll(async () => {
    partner = await createPartner({ name: "eta", rate_limit_per_minute: 100_000 });
  });

  beforeEach(async () => {
    await setPrices();
    startClock();
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it("a quote without history carries the source chain's estimate; the order keeps the ETA it was quoted", async () => {
    const q = await quote("coin_from=BTC&coin_to=USDT&network_to=TRX&amount=0.01");
    expect(q.eta_source).toBe("estimate");
    // Two BTC confirmations at 600 s a block (median ≈ 1.68 block times, 90th ≈ 3.89), plus a poll
    // of 15 s and the exchange and payout's 90 s.
    expect(q.eta_seconds.p50).toBeGreaterThan(1_050);
    expect(q.eta_seconds.p50).toBeLessThan(1_200);
    expect(q.eta_seconds.p90).toBeGreaterThan(2_350);
    expect(q.eta_seconds.p90).toBeLessThan(2_550);
    // A chain with faster blocks is quoted faster.
    const tron = await quote("coin_from=USDT&network_from=TRX&coin_to=BTC&amount=100");
    expect(tron.eta_seconds.p90).toBeLessThan(q.eta_seconds.p50);

    const o = (await createOrder(partner, BTC_TO_USDT)) as Timed;
    expect(o.eta_seconds).toEqual(q.eta_seconds);
    expect(o.eta_source).toBe("estimate");
    expect(o.deposit_confirmation_seconds).toBeNull();
    expect(o.payout_seconds).toBeNull();
    // The keyless status and the tracking page show the person who swaps the same figures.
    const links = o as Timed & { status_url: string; tracking_url: string };
    const status = await json<{ eta_seconds: Eta }>(await call(new URL(links.status_url).pathname));
    expect(status.eta_seconds).toEqual(q.eta_seconds);
    const page = await (await call(new URL(links.tracking_url).pathname)).text();
    expect(page).toContain(`about ${Math.round(q.eta_seconds.p50 / 60)} min after your deposit is seen`);
    // And the floor the float order will not pay below (issue 46 §2).
    const floor = (o as Timed & { amount_to_min: number }).amount_to_min;
    expect((status as { amount_to_min?: number }).amount_to_min).toBe(floor);
    expect(page).toContain(`${floor} USDT: below that nothing is exchanged`);
  });

  it("a completed order shows each step's time, and its index row when its deposit was seen", async () => {
    const o = await createOrder(partner, BTC_TO_USDT);
    await simSend("BTC", o.deposit_address, "0.01");
    await step(o.id, 30_000);
    const seen = (await read(partner, o.id)) as Timed;
    expect(seen.status).toBe("confirming");
    expect(seen.deposit_confirmation_seconds).toBeNull();
    await simMine("BTC", 2);
    await step(o.id, 90_000);
    const done = (await read(partner, o.id)) as Timed;
    expect(done.status).toBe("completed");
    // Confirmed 90 s after it was seen; exchanged and paid out in the same run.
    expect(done.deposit_confirmation_seconds).toBe(90);
    expect(done.payout_seconds).toBe(0);
    await step(o.id);
    const row = await env.DB.prepare("SELECT deposit_seen_at, completed_at FROM orders WHERE id = ?")
      .bind(o.id)
      .first<{ deposit_seen_at: string | null; completed_at: string | null }>();
    expect(row?.deposit_seen_at).toBe(seen.updated_at);
    expect(Date.parse(row?.completed_at ?? "") - Date.parse(row?.deposit_seen_at ?? "")).toBe(90_000);
  });

  it("from ETA_MIN_ORDERS completed live orders of a pair, its quotes carry their p50 and p90; test, old and fewer orders do not count", async () => {
    const now = Date.now();
    let n = 0;
    /** An index row of a completed LTC → XRP order whose payout left `seconds` after its deposit was seen. */
    const completed = async (seconds: number, opts: { live?: boolean; daysAgo?: number } = {}) => {
      const done = now - (opts.daysAgo ?? 1) * 86_400_000;
      const at = (t: number) => new Date(t).toISOString();
      const id = crypto.randomUUID();
      n++;
      await projectOrderIndex(
        env.DB,
        {
          id,
          short_id: `ETA${String(n).padStart(7, "0")}`,
          partner_id: partner.id,
          status: "completed",
          coin_from: "LTC",
          network_from: "LTC",
          coin_to: "XRP",
          network_to: "XRP",
          deposit_address: `ltc-${id}`,
          deposit_address_tag: null,
          created_at: at(done - seconds * 1000 - 60_000),
          updated_at: at(done),
          expires_at: at(done),
          livemode: opts.live === false ? 0 : 1,
          needs_action: 0,
        },
        {
          rate_type: "float",
          amount_from: "1",
          amount_to: "100",
          deposit_txid: null,
          payout_txid: null,
          refund_txid: null,
          markup_bps: 0,
          completed_at: at(done),
          markup_amount: null,
          usd_price_from: null,
          markup_usd: null,
          volume_usd: null,
          widget_id: null,
          partner_order_id: null,
          metadata: null,
          deposit_seen_at: at(done - seconds * 1000),
          track_token: null,
          ...NO_PUBLIC_VIEW,
        },
        1,
      );
    };
    const ltcToXrp = () => quote("coin_from=LTC&coin_to=XRP&amount=1");
    const estimate = await ltcToXrp();
    expect(estimate.eta_source).toBe("estimate");

    // 19 orders taking 100, 200, … 1,900 s; a test order, one past the window: still the estimate.
    for (let i = 1; i < ETA_MIN_ORDERS; i++) await completed(i * 100);
    await completed(5, { live: false });
    await completed(5, { daysAgo: 31 });
    vi.setSystemTime(refreshMinute());
    await refreshEtas(env, Date.now());
    advance(61_000);
    await setPrices();
    expect(await ltcToXrp()).toMatchObject({ eta_source: "estimate", eta_seconds: estimate.eta_seconds });

    // The 20th: 100 … 2,000 s. Nearest rank: p50 the 10th (1,000 s), p90 the 18th (1,800 s).
    await completed(ETA_MIN_ORDERS * 100);
    vi.setSystemTime(refreshMinute() + 60_000);
    // A minute that is not a refresh minute changes nothing.
    await refreshEtas(env, Date.now());
    advance(61_000);
    await setPrices();
    expect((await ltcToXrp()).eta_source).toBe("estimate");
    vi.setSystemTime(refreshMinute());
    await refreshEtas(env, Date.now());
    advance(61_000);
    await setPrices();
    expect(await ltcToXrp()).toMatchObject({
      eta_source: "history",
      eta_seconds: { p50: 1_000, p90: 1_800 },
    });
    // People read the same figures on the status page.
    const page = await (await call("/status")).text();
    expect(page).toContain('<th scope="row">LTC → XRP</th><td>17 min</td><td>30 min</td>');
  });
});
