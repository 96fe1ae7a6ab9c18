/**
 * The order's journal (src/objects/order/journal.ts): a transition writes the record, its log row,
 * the webhook, the index flag, the liquidity step and the schedule rows together; a rejected event
 * writes nothing; a note is a log row without a status change.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { TransitionPoint } from "../../../src/adapters/metrics";
import { getConfig } from "../../../src/config";
import type { OrderRecord } from "../../../src/domain/order";
import { OrderAlerts } from "../../../src/objects/order/alerts";
import { orderTables, partnerFeed } from "../../../src/objects/order/context";
import { eventData, OrderJournal } from "../../../src/objects/order/journal";
import { OrderOutbox } from "../../../src/objects/order/outbox";
import { PROJECTION_RETRY_MS, projectionPending } from "../../../src/objects/order/projection";
import { DUE, OrderSchedule } from "../../../src/objects/order/schedule";
import { SendsLedger } from "../../../src/objects/order/sends-ledger";
import { createPartner, setPrices, type TestPartner } from "../../helpers";
import { BTC_REFUND, BTC_TO_USDT, createOrder } from "../../support/orders";

let partner: TestPartner;
beforeAll(async () => {
  await setPrices();
  partner = await createPartner({ name: "journal", rate_limit_per_minute: 100_000 });
});

/** Runs `fn` with a journal over a new order's object; the record saves go to `saved` as well. */
async function withJournal(
  body: Record<string, unknown>,
  fn: (t: {
    journal: OrderJournal;
    record: OrderRecord;
    saved: OrderRecord[];
    schedule: OrderSchedule;
    outbox: OrderOutbox;
    kv: SyncKvStorage;
    transitions: TransitionPoint[];
  }) => void,
) {
  const o = await createOrder(partner, body);
  await runInDurableObject(env.ORDERS.getByName(o.id), (_obj, state) => {
    const { storage } = state;
    const schedule = new OrderSchedule(storage.sql);
    const tables = orderTables(storage.sql);
    const ledger = new SendsLedger(tables.sends, schedule);
    const outbox = new OrderOutbox(
      tables.outbox,
      env.WEBHOOKS,
      getConfig(env).CABINET_ORIGIN,
      partnerFeed(storage.kv, env),
    );
    const saved: OrderRecord[] = [];
    const transitions: TransitionPoint[] = [];
    const alerts = new OrderAlerts(tables.alerts);
    const journal = new OrderJournal({
      storage,
      schedule,
      ledger,
      outbox,
      alerts,
      metrics: { request: () => {}, transition: (p) => void transitions.push(p) },
      saveRecord: (r) => saved.push(r),
    });
    const record = storage.kv.get<OrderRecord>("order");
    if (!record) throw new Error("no record");
    fn({ journal, record, saved, schedule, outbox, kv: storage.kv, transitions });
  });
}

describe("OrderJournal", () => {
  it("a status change writes the record, its log row, the webhook, the index flag and the schedule", async () => {
    await withJournal(BTC_TO_USDT, ({ journal, record, saved, schedule, outbox, kv, transitions }) => {
      expect(journal.events().map((e) => e.reason)).toEqual(["order created"]);
      const webhooks = outbox.entries().length;
      const now = Date.parse(record.expiresAt) + 1;
      const next = journal.apply(record, { type: "expire" }, now, {}, { why: "test" });
      expect(next).toMatchObject({ status: "expired", updatedAt: new Date(now).toISOString() });
      expect(saved).toEqual([next]);
      const last = journal.events().at(-1);
      expect(last).toMatchObject({
        from_status: "waiting_deposit",
        to_status: "expired",
        at: new Date(now).toISOString(),
        data: { event: "expire", why: "test" },
      });
      expect(journal.version()).toBe(last?.seq);
      expect(outbox.entries()).toHaveLength(webhooks + 1);
      expect(outbox.entries().at(-1)?.message.order_id).toBe(record.id);
      expect(projectionPending(kv)).toBe(true);
      expect(schedule.get(DUE.outbox)).toBe(now + PROJECTION_RETRY_MS);
      // The deadline goes with waiting; the end of the late-deposit watch comes with expired.
      expect(schedule.get(DUE.expiry)).toBeNull();
      expect(schedule.get(DUE.lateWatchEnd)).toBe(Date.parse(record.lateWatchEndsAt));
      // One service-level point per status change (docs/operators.md, "Service levels"); a note is none.
      journal.note(next!, now + 5, "a note", null);
      expect(transitions).toEqual([
        {
          pair: "BTC>TRX",
          from: "waiting_deposit",
          to: "expired",
          partnerId: partner.id,
          mode: "live",
          ageMs: now - Date.parse(record.createdAt),
          sinceLastMs: now - Date.parse(record.updatedAt),
        },
      ]);
    });
  });

  it("a status that drives a send schedules it now; the event's fields and `extra` reach the log and record", async () => {
    await withJournal({ ...BTC_TO_USDT, refund_address: BTC_REFUND }, ({ journal, record, schedule }) => {
      const now = Date.parse(record.expiresAt) + 1;
      const expired = journal.apply(record, { type: "expire" }, now);
      if (!expired) throw new Error("not expired");
      const late = journal.apply(
        expired,
        { type: "late_deposit", txid: "tx-late", amount: "0.01", seenAt: now },
        now + 1,
        { amountFromReceived: "0.01" },
      );
      expect(late).toMatchObject({ status: "refunding", amountFromReceived: "0.01" });
      expect(journal.events().at(-1)?.data).toMatchObject({
        event: "late_deposit",
        txid: "tx-late",
        amount: "0.01",
        seenAt: now,
      });
      const send = schedule.rows().find((r) => r.name.startsWith("send:"));
      expect(send).toEqual({ name: DUE.send(`${record.id}:refund`), dueAt: now + 1 });
      expect(schedule.get(DUE.lateWatchEnd)).toBeNull();
    });
  });

  it("a rejected event writes nothing", async () => {
    await withJournal(BTC_TO_USDT, ({ journal, record, saved, outbox, schedule }) => {
      const before = { events: journal.events(), webhooks: outbox.entries(), rows: schedule.rows() };
      expect(journal.apply(record, { type: "payout_sent", txid: "t" }, Date.now())).toBeNull();
      expect(saved).toEqual([]);
      expect({ events: journal.events(), webhooks: outbox.entries(), rows: schedule.rows() }).toEqual(before);
    });
  });

  it("a note is a log row at the record's status, with no webhook", async () => {
    await withJournal(BTC_TO_USDT, ({ journal, record, saved, outbox }) => {
      const webhooks = outbox.entries().length;
      journal.note(record, Date.now(), "retry", { attempt: 2 });
      expect(journal.events().at(-1)).toMatchObject({
        from_status: "waiting_deposit",
        to_status: "waiting_deposit",
        reason: "retry",
        data: { attempt: 2 },
      });
      expect(saved).toEqual([]);
      expect(outbox.entries()).toHaveLength(webhooks);
    });
  });
});

describe("eventData", () => {
  it("is the event without its type", () => {
    expect(eventData({ type: "deposit_seen", txid: "t", amount: "1.5", confirmations: 0 })).toEqual({
      txid: "t",
      amount: "1.5",
      confirmations: 0,
    });
    expect(eventData({ type: "expire" })).toEqual({});
  });
});
