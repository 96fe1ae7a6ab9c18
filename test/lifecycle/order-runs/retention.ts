/**
 * Retention (docs/operators.md, "Retention"): a terminal order's object compacts after
 * ORDER_RETENTION_DAYS (and the slow sweep's horizon) to its record and event log, reads the same
 * through every public surface after, and never compacts while money is still owed.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { getConfig } from "../../../src/config";
import { COMPACTED_LOGGED } from "../../../src/objects/order/retention";
import { ordersCsv } from "../../../src/services/cabinet-orders";
import { call, createPartner, json, setPrices, type TestPartner } from "../../helpers";
import {
  BTC_TO_USDT,
  createOrder,
  events,
  type Order,
  read,
  simMine,
  simSend,
  startClock,
  step,
} from "../../support/orders";

describe("retention", () => {
  const DAY = 86_400_000;
  let partner: TestPartner;

  beforeAll(async () => {
    partner = await createPartner({ name: "retention", rate_limit_per_minute: 100_000 });
  });

  beforeEach(async () => {
    await setPrices();
    startClock();
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  /** The object's own storage: bytes, its SQL tables and its key-value rows. */
  const storage = (id: string) =>
    runInDurableObject(env.ORDERS.getByName(id), (_obj, state) => ({
      bytes: state.storage.sql.databaseSize,
      tables: state.storage.sql
        .exec<{ name: string }>(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf%' ESCAPE '\\' ORDER BY name",
        )
        .toArray()
        .map((t) => t.name),
      keys: [...state.storage.kv.list()].map(([k]) => k).sort(),
    }));

  /** Every public read of the order: partner GET by id and short_id, keyless status, tracking page, CSV row. */
  async function reads(o: Order) {
    const path = (u: string) => {
      const url = new URL(u);
      return `${url.pathname}${url.search}`;
    };
    const status = await call(path(o.status_url));
    const page = await call(path(o.tracking_url));
    expect([status.status, page.status]).toEqual([200, 200]);
    const csv = await new Response(
      ordersCsv(env.DB, { partnerId: partner.id, livemode: true }, getConfig(env).CABINET_ORIGIN),
    ).text();
    return {
      byId: await read(partner, o.id),
      byShortId: await read(partner, o.short_id),
      status: await json(status),
      // The page's markup less its per-response nonce.
      page: (await page.text()).replace(/nonce="[^"]*"/g, ""),
      csv: csv.split("\n").find((line) => line.includes(o.id)),
    };
  }

  it("a completed order compacts after its retention, reads the same everywhere, and its storage shrinks", async () => {
    const o = await createOrder(partner, BTC_TO_USDT);
    await simSend("BTC", o.deposit_address, "0.01");
    await simMine("BTC", 2);
    await step(o.id);
    await step(o.id);
    await step(o.id);
    expect((await read(partner, o.id)).status).toBe("completed");
    const before = await reads(o);
    const full = await storage(o.id);
    expect(full.tables).toEqual(expect.arrayContaining(["sends", "outbox"]));

    // Within the retention period (and the slow sweep's horizon) nothing goes.
    await step(o.id, 89 * DAY);
    expect(await storage(o.id)).toEqual(full);

    await step(o.id, 3 * DAY);
    const compacted = await storage(o.id);
    expect(compacted.tables).toEqual(["events", "meta", "schedule"]);
    expect(compacted.keys).toEqual(["compacted_at", "order"]);
    expect(compacted.bytes).toBeLessThan(full.bytes * 0.6);
    expect(await reads(o)).toEqual(before);
    const log = await events(o.id);
    expect(log.at(-1)).toMatchObject({ reason: COMPACTED_LOGGED });
    expect(JSON.parse(String(log.at(-1)?.data?.sends))).toEqual([
      expect.objectContaining({ kind: "exchange", outcome: "sent" }),
      expect.objectContaining({ kind: "payout", outcome: "sent", txid: before.byId.payout_txid }),
    ]);
    // A compacted order never runs again: a new transfer to its address is not its to see (the
    // transfers it saw before are forgotten, so it could not tell them apart).
    await simSend("BTC", o.deposit_address, "0.02");
    await simMine("BTC", 2);
    await step(o.id, DAY);
    await env.ORDERS.getByName(o.id).checkAfterWatch();
    expect(await storage(o.id)).toEqual(compacted);
  });

  it("money still owed keeps all the storage, however old: a held deposit, an extra deposit's refund offered", async () => {
    const held = await createOrder(partner, BTC_TO_USDT);
    await simSend("BTC", held.deposit_address, "0.0003");
    const extra = await createOrder(partner, BTC_TO_USDT);
    await simSend("BTC", extra.deposit_address, "0.01");
    await simMine("BTC", 2);
    await step(held.id);
    await step(extra.id);
    await step(extra.id);
    await step(extra.id);
    // A second transfer to the completed order's address, inside its watch: its refund is offered.
    await simSend("BTC", extra.deposit_address, "0.005");
    await simMine("BTC", 2);
    await step(extra.id);
    expect(await read(partner, held.id)).toMatchObject({ status: "failed", actions: expect.anything() });
    expect(await read(partner, extra.id)).toMatchObject({ status: "completed", actions: expect.anything() });
    for (const o of [held, extra]) {
      await step(o.id, 400 * DAY);
      expect((await storage(o.id)).keys).not.toContain("compacted_at");
      expect((await read(partner, o.id)).actions).not.toBeNull();
    }
  });
});
