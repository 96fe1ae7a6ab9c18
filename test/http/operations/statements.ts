/**
 * Monthly statements and their payouts (docs/earnings.md, "Statements"), through the operator and
 * partner APIs, over the order index in D1 and the partner's PartnerPayouts object. The live
 * payouts go to the counting gateway (it does NOT deduplicate), so "paid once" is the ledger's
 * doing; the faults are the issue's: accept then time out, unsigned 404s, a restart between the
 * intent and the call.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { getConfig } from "../../../src/config";
import { beforeSend } from "../../../src/domain/send-step";
import { payoutKey, statementId } from "../../../src/domain/statements";
import { orderTables } from "../../../src/objects/order/context";
import { OrderSchedule } from "../../../src/objects/order/schedule";
import { SendsLedger } from "../../../src/objects/order/sends-ledger";
import type { PartnerPayouts } from "../../../src/objects/partner-payouts";
import { closeLiveMonth, payoutsObject, runStatements } from "../../../src/services/statements";
import { admin, call, createPartner, expectError, json, setPrices, type TestPartner } from "../../helpers";
import { createFakeGateway, type FakeGateway } from "../../support/fake-gateway";

describe("statements", () => {
  const TRON_A = "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL";
  const TRON_B = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";

  interface Statement {
    id: string;
    month: string;
    orders: number;
    lines: { coin: string; orders: number; markup_usd: string }[];
    adjustments: { amount_usd: string; reason: string }[];
    carry_in_usd: string;
    total_usd: string;
    payout: {
      status: string;
      address: string | null;
      amount: string | null;
      price_usd: string | null;
      txid: string | null;
    };
  }

  let n = 0;
  /** A completed order in the index, with its earnings fixed as the order object fixes them. */
  async function completed(partnerId: string, at: string, markupUsd: string, livemode = true): Promise<void> {
    const id = `${partnerId}-o${++n}`;
    await env.DB.prepare(
      `INSERT INTO orders (id, short_id, partner_id, status, coin_from, network_from, coin_to, network_to,
       deposit_address, deposit_address_tag, created_at, updated_at, expires_at, livemode, completed_at,
       markup_amount, markup_usd, usd_price_from, volume_usd)
     VALUES (?1, ?2, ?3, 'completed', 'BTC', 'BTC', 'USDT', 'TRX', 'addr-' || ?1, NULL, ?4, ?4, ?4, ?5, ?4,
       '0.0001', ?6, '60000', '600')`,
    )
      .bind(id, `S${n}${partnerId.slice(0, 6)}`.toUpperCase(), partnerId, at, livemode ? 1 : 0, markupUsd)
      .run();
  }

  /** A partner that existed before the months the tests close, paid in USDT on TRX to `address`. */
  async function payee(address = TRON_A, minimum = "50"): Promise<TestPartner> {
    const p = await createPartner({ name: "payee", rate_limit_per_minute: 100_000 });
    await env.DB.prepare("UPDATE partners SET created_at = '2026-01-01T00:00:00.000Z' WHERE id = ?")
      .bind(p.id)
      .run();
    await env.DB.prepare(
      `INSERT INTO payout_settings (partner_id, coin, network, address, tag, minimum_usd, updated_at)
     VALUES (?, 'USDT', 'TRX', ?, NULL, ?, '2026-01-01T00:00:00.000Z')`,
    )
      .bind(p.id, address, minimum)
      .run();
    return p;
  }

  async function statements(p: TestPartner, key = p.key): Promise<Statement[]> {
    const res = await call("/api/v1/partner/statements", { headers: { Authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    return (await json<{ data: Statement[] }>(res)).data;
  }

  async function closeMonth(month: string): Promise<{ issued: number; dispatched: number }> {
    const res = await admin("/statements/close", { method: "POST", json: { month } });
    expect(res.status).toBe(200);
    return json(res);
  }

  const stubOf = (p: TestPartner) =>
    payoutsObject(env, p.id, true) as unknown as DurableObjectStub<PartnerPayouts>;

  let gw: FakeGateway;
  let detach: (() => void) | undefined;
  beforeEach(async () => {
    vi.useRealTimers();
    await setPrices();
    gw = createFakeGateway();
  });
  afterEach(() => {
    detach?.();
    detach = undefined;
    vi.restoreAllMocks();
  });

  async function attach(p: TestPartner): Promise<void> {
    detach = await gw.attachObject(stubOf(p));
  }

  describe("statements at month close", () => {
    it("an order completed at 23:59:59.999 UTC is last month's, one at 00:00:00 the next month's", async () => {
      const p = await payee();
      await attach(p);
      await completed(p.id, "2026-08-31T23:59:59.999Z", "70");
      await completed(p.id, "2026-09-01T00:00:00.000Z", "80");
      await closeMonth("2026-08");
      await closeMonth("2026-09");
      const [sep, aug] = await statements(p);
      expect(aug).toMatchObject({ month: "2026-08", orders: 1, total_usd: "70" });
      expect(sep).toMatchObject({ month: "2026-09", orders: 1, total_usd: "80" });
      expect(aug?.lines).toEqual([
        { coin: "BTC", orders: 1, markup: "0.0001", markup_usd: "70", unpriced_orders: 0 },
      ]);
    });

    it("below the minimum the total carries over; an adjustment with its reason lands on the next statement", async () => {
      const p = await payee();
      await attach(p);
      await completed(p.id, "2026-08-15T10:00:00.000Z", "30");
      await closeMonth("2026-08");
      const adj = await admin(`/partners/${p.id}/statement-adjustments`, {
        method: "POST",
        json: { amount_usd: "25.5", reason: "missed order 123" },
      });
      expect(adj.status).toBe(201);
      await closeMonth("2026-09");
      const [sep, aug] = await statements(p);
      expect(aug).toMatchObject({ total_usd: "30", payout: { status: "carried_over", txid: null } });
      expect(sep).toMatchObject({
        orders: 0,
        carry_in_usd: "30",
        adjustments: [{ amount_usd: "25.5", reason: "missed order 123" }],
        total_usd: "55.5",
        // USDT at 1 USD, 6 decimals: converted at the recorded price and paid.
        payout: { status: "paid", price_usd: "1", amount: "55.5", address: TRON_A },
      });
      expect(gw.paidFor("partner-payout:")).toEqual([
        { key: payoutKey(p.id, true, "2026-09", 1), to: TRON_A, amount: "55.5" },
      ]);
      // The adjustment was taken once: a later month does not count it again.
      await closeMonth("2026-10");
      expect((await statements(p))[0]).toMatchObject({ month: "2026-10", adjustments: [], total_usd: "0" });
    });

    it("a re-run of the month close creates no second statement and pays nothing twice", async () => {
      const p = await payee();
      await attach(p);
      await completed(p.id, "2026-07-10T00:00:00.000Z", "120");
      const first = await closeMonth("2026-07");
      expect(first.issued).toBeGreaterThanOrEqual(1);
      const again = await closeMonth("2026-07");
      expect(again).toMatchObject({ issued: 0 });
      await runStatements(env, getConfig(env), Date.now() + 3_600_000);
      // (The cron run also closed last month: a statement of its own, carried over at 0.)
      const july = (await statements(p)).filter((s) => s.month === "2026-07");
      expect(july).toHaveLength(1);
      expect(july[0]?.payout.status).toBe("paid");
      expect(gw.paidTwice()).toEqual([]);
      expect(gw.payments.get(payoutKey(p.id, true, "2026-07", 1))).toHaveLength(1);
      const listed = await json<{ data: unknown[] }>(
        await admin(`/statements?partner_id=${p.id}&month=2026-07`),
      );
      expect(listed.data).toHaveLength(1);
    });
  });

  describe("the payout on the ledger, exactly once", () => {
    it("accepted then timed out, then unsigned 404s: the ledger asks until the gateway says, and never re-sends", async () => {
      const p = await payee();
      await attach(p);
      await completed(p.id, "2026-06-10T00:00:00.000Z", "99.5");
      gw.sendFaults.push("pay_then_drop");
      gw.lookupFaults.push("unsigned_404", "unsigned_404");
      await closeMonth("2026-06");
      const key = payoutKey(p.id, true, "2026-06", 1);
      expect((await statements(p))[0]?.payout).toMatchObject({ status: "pending", txid: null });
      // A re-run while the outcome is unknown hands the same intent over again: nothing is sent.
      await closeMonth("2026-06");
      expect(gw.ops.map((o) => o.op)).toEqual(["send"]);
      // The alarm's moments, stepped by hand: two unsigned 404s (no answer at all), then the truth.
      const stub = stubOf(p);
      for (const h of [1, 2, 3]) await stub.run(Date.now() + h * 3_600_000);
      expect(gw.ops.filter((o) => o.key === key).map((o) => o.op)).toEqual([
        "send",
        "lookup",
        "lookup",
        "lookup",
      ]);
      expect(gw.payments.get(key)).toHaveLength(1);
      const paid = (await statements(p))[0];
      expect(paid?.payout).toMatchObject({ status: "paid", txid: gw.payments.get(key)?.[0]?.txid });
      // A re-run and a cron run later: still one payment, and no send at all.
      await closeMonth("2026-06");
      await runStatements(env, getConfig(env), Date.now() + 4 * 3_600_000);
      expect(gw.ops.filter((o) => o.op === "send")).toHaveLength(1);
      expect(gw.paidFor(`partner-payout:${p.id}`)).toHaveLength(1);
      // payout.sent, with the statement id and txid, once.
      await vi.waitFor(
        async () => {
          const { results } = await env.DB.prepare(
            "SELECT payload FROM webhook_deliveries WHERE partner_id = ? AND type = 'payout.sent'",
          )
            .bind(p.id)
            .all<{ payload: string }>();
          expect(results).toHaveLength(1);
          expect(JSON.parse(results[0]?.payload ?? "{}")).toMatchObject({
            type: "payout.sent",
            data: { statement_id: statementId(p.id, true, "2026-06"), txid: paid?.payout.txid },
          });
        },
        { timeout: 10_000 },
      );
    });

    it("a restart between the intent and the call: the ledger looks up first, then sends once", async () => {
      const p = await payee();
      await attach(p);
      await completed(p.id, "2026-05-10T00:00:00.000Z", "60");
      const now = Date.now();
      // The statement is issued; its payout is not handed over yet (the month close ran, the dispatch did not).
      await closeLiveMonth(env, getConfig(env), "2026-05", now);
      const id = statementId(p.id, true, "2026-05");
      const key = payoutKey(p.id, true, "2026-05", 1);
      await env.DB.prepare(
        "UPDATE statements SET price_usd = '1', amount = '60', dispatched_at = ? WHERE id = ?",
      )
        .bind(new Date(now).toISOString(), id)
        .run();
      // The object wrote the intent and the attempt, then died before the gateway was called.
      const stub = stubOf(p);
      await runInDurableObject(stub, async (_obj, state) => {
        const request = {
          idempotencyKey: key,
          orderId: id,
          kind: "payout" as const,
          network: "TRX",
          coin: "USDT",
          contract: null,
          to: TRON_A,
          tag: null,
          amount: "60",
        };
        const intent = {
          key,
          statementId: id,
          partnerId: p.id,
          livemode: true,
          month: "2026-05",
          round: 1,
          request,
        };
        state.storage.sql.exec(
          "INSERT INTO payouts (key, intent) VALUES (?, ?)",
          key,
          JSON.stringify(intent),
        );
        const ledger = new SendsLedger(
          orderTables(state.storage.sql).sends,
          new OrderSchedule(state.storage.sql),
        );
        const row = {
          key,
          kind: "payout" as const,
          request,
          attempts: 0,
          failures: 0,
          unknownLookups: 0,
          nextAt: 0,
        };
        ledger.put(beforeSend(row, { maxAttempts: 5, retryBaseMs: 1000, retryCapMs: 60_000 }, now), "t");
      });
      expect(gw.ops).toEqual([]);
      await stub.run(now + 3_600_000);
      expect(gw.ops.map((o) => o.op)).toEqual(["lookup", "send"]);
      expect(gw.payments.get(key)).toHaveLength(1);
      expect((await statements(p))[0]?.payout.status).toBe("paid");
    });
  });

  describe("the cooling period", () => {
    it("a payout due while a new address cools goes to the old one; a change after the statement never redirects it", async () => {
      const p = await payee(TRON_A);
      await attach(p);
      await completed(p.id, "2026-04-10T00:00:00.000Z", "70");
      const now = Date.now();
      const later = (h: number) => new Date(now + h * 3_600_000).toISOString();
      await env.DB.prepare(
        `UPDATE payout_settings SET pending_coin = 'USDT', pending_network = 'TRX', pending_address = ?,
         pending_effective_at = ?, pending_requested_by = 'x', pending_requested_at = ? WHERE partner_id = ?`,
      )
        .bind(TRON_B, later(48), later(0), p.id)
        .run();
      await closeLiveMonth(env, getConfig(env), "2026-04", now);
      // The change takes effect before the payout is handed over (that run's prices are too old to
      // convert at; the next run converts and pays).
      await runStatements(env, getConfig(env), now + 49 * 3_600_000);
      await runStatements(env, getConfig(env), Date.now());
      const s = (await statements(p)).find((x) => x.month === "2026-04");
      expect(s?.payout).toMatchObject({ status: "paid", address: TRON_A });
      expect(gw.paidFor("partner-payout:").map((x) => x.to)).toEqual([TRON_A]);
      const settings = await env.DB.prepare(
        "SELECT address, pending_address FROM payout_settings WHERE partner_id = ?",
      )
        .bind(p.id)
        .first();
      expect(settings).toEqual({ address: TRON_B, pending_address: null });
    });
  });

  describe("operator", () => {
    it("a hold stops a payout not yet started; release pays it; a started one cannot be held", async () => {
      const p = await payee();
      await attach(p);
      await completed(p.id, "2026-03-10T00:00:00.000Z", "75");
      await closeLiveMonth(env, getConfig(env), "2026-03", Date.now());
      const id = statementId(p.id, true, "2026-03");
      const held = await admin(`/statements/${id}/hold`, { method: "POST", json: { reason: "KYC review" } });
      expect(held.status).toBe(200);
      await runStatements(env, getConfig(env), Date.now());
      const march = (await statements(p)).find((s) => s.month === "2026-03");
      expect(march?.payout).toMatchObject({ status: "held" });
      expect(gw.ops.filter((o) => o.key === payoutKey(p.id, true, "2026-03", 1))).toEqual([]);
      const released = await admin(`/statements/${id}/release`, { method: "POST" });
      expect(released.status).toBe(200);
      expect((await json<Statement>(released)).payout.status).toBe("paid");
      await expectError(
        await admin(`/statements/${id}/hold`, { method: "POST", json: { reason: "late" } }),
        409,
        "action_not_available",
      );
      const audit = await json<{ data: { action: string }[] }>(
        await admin(`/audit?entity_type=statement&entity_id=${id}`),
      );
      expect(audit.data.map((a) => a.action).sort()).toEqual(["statement.hold", "statement.release"]);
    });

    it("a payout handed to the ledger and not finished cannot be held (409); it is paid once", async () => {
      const p = await payee();
      await attach(p);
      await completed(p.id, "2026-02-10T00:00:00.000Z", "80");
      gw.sendFaults.push("pay_then_drop");
      await closeMonth("2026-02");
      const id = statementId(p.id, true, "2026-02");
      const key = payoutKey(p.id, true, "2026-02", 1);
      expect((await statements(p)).find((s) => s.month === "2026-02")?.payout.status).toBe("pending");
      const refused = await expectError(
        await admin(`/statements/${id}/hold`, { method: "POST", json: { reason: "second thoughts" } }),
        409,
        "action_not_available",
      );
      expect(refused.detail).toContain("handed to the payout ledger");
      await stubOf(p).run(Date.now() + 3_600_000);
      expect((await statements(p)).find((s) => s.month === "2026-02")?.payout.status).toBe("paid");
      expect(gw.payments.get(key)).toHaveLength(1);
    });

    it("a signed refusal holds the payout; released, it pays under round 2 exactly once and round 1 never", async () => {
      const p = await payee();
      await attach(p);
      await completed(p.id, "2026-01-10T00:00:00.000Z", "90");
      gw.sendFaults.push("refuse");
      await closeMonth("2026-01");
      const id = statementId(p.id, true, "2026-01");
      const round1 = payoutKey(p.id, true, "2026-01", 1);
      const round2 = payoutKey(p.id, true, "2026-01", 2);
      const january = async () => (await statements(p)).find((s) => s.month === "2026-01");
      expect((await january())?.payout.status).toBe("held");
      const released = await admin(`/statements/${id}/release`, { method: "POST" });
      expect(released.status).toBe(200);
      expect((await json<Statement>(released)).payout.status).toBe("paid");
      // Re-runs, the cron and the object's own alarm moments later: nothing more is paid.
      await closeMonth("2026-01");
      await runStatements(env, getConfig(env), Date.now() + 3_600_000);
      await stubOf(p).run(Date.now() + 2 * 3_600_000);
      expect(gw.payments.get(round1) ?? []).toEqual([]);
      expect(gw.payments.get(round2)).toHaveLength(1);
      expect(gw.paidFor(`partner-payout:${p.id}`)).toHaveLength(1);
      expect((await january())?.payout).toMatchObject({
        status: "paid",
        txid: gw.payments.get(round2)?.[0]?.txid,
      });
    });

    it("each payout's alerts are its own: July's clean payout leaves June's open outcome_unknown (issue 42)", async () => {
      const p = await payee();
      await attach(p);
      await completed(p.id, "2026-06-10T00:00:00.000Z", "80");
      await completed(p.id, "2026-07-10T00:00:00.000Z", "85");
      gw.sendFaults.push("pay_then_drop");
      gw.lookupFaults.push(...Array<"5xx">(10).fill("5xx"));
      await closeMonth("2026-06");
      const stub = stubOf(p);
      for (let h = 1; h <= 8; h++) await stub.run(Date.now() + h * 3_600_000);
      const june = statementId(p.id, true, "2026-06");
      const july = statementId(p.id, true, "2026-07");
      const openOf = async (id: string) =>
        (
          await env.DB.prepare("SELECT kind, ledger_key FROM alerts WHERE order_id = ? AND open = 1")
            .bind(id)
            .all()
        ).results;
      const juneAlert = { kind: "outcome_unknown", ledger_key: payoutKey(p.id, true, "2026-06", 1) };
      expect(await openOf(june)).toEqual([juneAlert]);
      await closeMonth("2026-07");
      expect((await statements(p)).find((s) => s.month === "2026-07")?.payout.status).toBe("paid");
      expect(await openOf(june)).toEqual([juneAlert]);
      const julyRows = await env.DB.prepare("SELECT COUNT(*) AS n FROM alerts WHERE order_id = ?")
        .bind(july)
        .first();
      expect(julyRows).toEqual({ n: 0 });
      const listed = await json<{ data: { order_id: string; ledger_key: string | null }[] }>(
        await admin("/alerts?state=open&limit=500"),
      );
      expect(listed.data.find((a) => a.order_id === june)?.ledger_key).toBe(juneAlert.ledger_key);
    });

    it("a held payout the operator paid by hand is recorded: paid with its txid, never released nor paid again", async () => {
      const p = await payee();
      await attach(p);
      await completed(p.id, "2026-08-10T00:00:00.000Z", "95");
      gw.sendFaults.push("refuse");
      await closeMonth("2026-08");
      const id = statementId(p.id, true, "2026-08");
      const resolve = (body: unknown) => admin(`/statements/${id}/resolve`, { method: "POST", json: body });
      const hand = { txid: "e".repeat(64), note: "paid from the treasury" };
      await expectError(await resolve({ txid: hand.txid }), 400, "invalid_request");
      const res = await resolve(hand);
      expect(res.status).toBe(200);
      expect((await json<Statement>(res)).payout).toMatchObject({ status: "paid", txid: hand.txid });
      expect((await resolve(hand)).status).toBe(200); // the same record again: the statement
      await expectError(await resolve({ ...hand, txid: "f".repeat(64) }), 409, "action_not_available");
      await expectError(
        await admin(`/statements/${id}/release`, { method: "POST" }),
        409,
        "action_not_available",
      );
      await closeMonth("2026-08");
      await runStatements(env, getConfig(env), Date.now() + 3_600_000);
      await stubOf(p).run(Date.now() + 2 * 3_600_000);
      expect(gw.paidFor(`partner-payout:${p.id}`)).toEqual([]);
      expect((await statements(p)).find((s) => s.month === "2026-08")?.payout).toMatchObject({
        status: "paid",
        txid: hand.txid,
      });
      const audit = await json<{ data: { action: string; after: Record<string, unknown> }[] }>(
        await admin(`/audit?entity_type=statement&entity_id=${id}`),
      );
      expect(audit.data.find((a) => a.action === "statement.resolve")?.after).toMatchObject(hand);
    });

    it("a partner whose statement cannot be issued blocks no other: alerted under its statement's id, cleared once issued", async () => {
      const [bad, good] = [await payee(), await payee()].sort((a, b) => (a.id < b.id ? -1 : 1));
      if (!bad || !good) throw new Error("two partners");
      // The first partner of the walk has settings no statement can be made from.
      await env.DB.prepare("UPDATE payout_settings SET minimum_usd = 'not-a-number' WHERE partner_id = ?")
        .bind(bad.id)
        .run();
      await completed(bad.id, "2026-09-10T00:00:00.000Z", "70");
      await completed(good.id, "2026-09-10T00:00:00.000Z", "70");
      const errors = vi.spyOn(console, "error");
      await closeMonth("2026-09");
      expect((await statements(good)).map((s) => s.month)).toContain("2026-09");
      const badId = statementId(bad.id, true, "2026-09");
      const alertOf = () =>
        env.DB.prepare("SELECT kind, open FROM alerts WHERE order_id = ?").bind(badId).first();
      expect(await alertOf()).toEqual({ kind: "statement_not_issued", open: 1 });
      await closeMonth("2026-09"); // still failing: the same alert, logged once
      const logged = errors.mock.calls.filter((c) => String(c[0]).includes("statement cannot be issued"));
      expect(logged).toHaveLength(1);
      await env.DB.prepare("UPDATE payout_settings SET minimum_usd = '50' WHERE partner_id = ?")
        .bind(bad.id)
        .run();
      await closeMonth("2026-09");
      expect((await statements(bad)).map((s) => s.month)).toContain("2026-09");
      expect(await alertOf()).toEqual({ kind: "statement_not_issued", open: 0 });
    });

    it("owed per asset counts unpaid live statements", async () => {
      const p = await payee();
      await attach(p);
      await completed(p.id, "2026-02-10T00:00:00.000Z", "64");
      await closeLiveMonth(env, getConfig(env), "2026-02", Date.now());
      await admin(`/statements/${statementId(p.id, true, "2026-02")}/hold`, {
        method: "POST",
        json: { reason: "r" },
      });
      const owed = await json<{ data: { coin: string | null; total_usd: string; statements: number }[] }>(
        await admin("/statements/owed"),
      );
      const usdt = owed.data.find((o) => o.coin === "USDT");
      expect(Number(usdt?.statements)).toBeGreaterThanOrEqual(1);
      expect(usdt?.total_usd).toMatch(/^\d+(\.\d+)?$/);
    });
  });

  describe("test mode", () => {
    it("the month-close helper issues the test statement from test orders and pays it on the simulated gateway", async () => {
      const p = await payee();
      const res = await admin(`/partners/${p.id}/keys`, { method: "POST", json: { mode: "test" } });
      const testKey = (await json<{ key: string }>(res)).key;
      await completed(p.id, new Date(Date.now() - 60_000).toISOString(), "12", false);
      await completed(p.id, new Date(Date.now() - 60_000).toISOString(), "500", true);
      await expectError(
        await call("/api/v1/partner/test/month-close", {
          method: "POST",
          headers: { Authorization: `Bearer ${p.key}` },
        }),
        403,
        "test_mode_only",
      );
      // Minimum 50 applies in test mode too: lower it so the test statement is paid.
      await env.DB.prepare("UPDATE payout_settings SET minimum_usd = '10' WHERE partner_id = ?")
        .bind(p.id)
        .run();
      const closed = await call("/api/v1/partner/test/month-close", {
        method: "POST",
        headers: { Authorization: `Bearer ${testKey}` },
      });
      expect(closed.status).toBe(200);
      const s = await json<Statement>(closed);
      expect(s).toMatchObject({ orders: 1, total_usd: "12", payout: { status: "paid", address: TRON_A } });
      expect(s.payout.txid).toMatch(/\S/);
      // Live keys see live statements only, test keys test ones.
      expect((await statements(p, testKey)).map((x) => x.id)).toEqual([s.id]);
      expect(await statements(p)).toEqual([]);
      expect(gw.ops).toEqual([]);
    });
  });
});
