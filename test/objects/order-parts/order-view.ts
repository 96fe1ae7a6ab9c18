/**
 * The partner's view of an order (src/objects/order/view.ts): `actions` only when the order's own
 * deposit or an extra one waits for a decision, priced now, and never an error for what cannot be
 * priced now.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { getConfig } from "../../../src/config";
import { isLive, type OrderRecord, orderView } from "../../../src/domain/order";
import { type OrderContext, orderContext } from "../../../src/objects/order/context";
import { EXTRA_DEPOSIT_LOGGED, EXTRAS_KEY } from "../../../src/objects/order/extra-deposits";
import { PartnerView, type ViewHost } from "../../../src/objects/order/view";
import { invalidateCatalog } from "../../../src/storage/catalog";
import { createPartner, setPrices, type TestPartner } from "../../helpers";
import { BTC_TO_USDT, createOrder } from "../../support/orders";

const ORIGIN = getConfig(env).CABINET_ORIGIN;
let partner: TestPartner;
beforeAll(async () => {
  await setPrices();
  partner = await createPartner({ name: "view", rate_limit_per_minute: 100_000 });
});

/** The view over the order's context: refunds priced from the seeded catalog (BTC's withdraw fee 0.0001). */
const host = (c: OrderContext, over: Partial<ViewHost> = {}): ViewHost => ({
  env: c.env,
  config: c.config,
  kv: c.kv,
  extraDeposits: c.extraDeposits,
  record: c.record,
  now: c.now,
  watchEnded: () => false,
  writes: c.writes,
  ...over,
});

/** An env whose D1 fails every query, counting them: a refund priced from it is unavailable. */
function d1Down(): { env: Env; queries: () => number } {
  invalidateCatalog();
  let n = 0;
  const DB = {
    prepare() {
      n++;
      throw new Error("D1 down");
    },
  } as unknown as D1Database;
  return { env: { ...env, DB }, queries: () => n };
}

/** Runs `fn` over a new order's context (its record as created). */
async function withOrder(fn: (c: OrderContext, r: OrderRecord) => Promise<void>) {
  const o = await createOrder(partner, BTC_TO_USDT);
  await runInDurableObject(env.ORDERS.getByName(o.id), async (_obj, state) => {
    const c = orderContext(state.storage, env);
    const r = c.record();
    if (!r) throw new Error("no record");
    await fn(c, r);
  });
}

/** A failed order that holds its deposit for a decision. */
const held = (r: OrderRecord): OrderRecord => ({
  ...r,
  status: "failed",
  statusReason: "amount_below_min",
  amountFromReceived: "0.001",
});

/** Logs an extra deposit to the address, as the deposit tracker does. */
function extraDeposit(c: OrderContext, r: OrderRecord) {
  c.kv.put(EXTRAS_KEY, ["tx-extra:0"]);
  c.note(r, Date.now(), EXTRA_DEPOSIT_LOGGED, { txid: "tx-extra", index: 0, amount: "0.5" });
}

describe("PartnerView", () => {
  it("an order waiting for its deposit has no actions and prices nothing", async () => {
    await withOrder(async (c, r) => {
      const down = d1Down();
      const view = new PartnerView(host(c, { env: down.env }));
      expect(view.needsAction(r)).toBe(false);
      expect(await view.view(r, Date.now())).toEqual(orderView(r, ORIGIN));
      expect(await view.inputsIfHeld(r, Date.now(), false)).toBeUndefined();
      expect(down.queries()).toBe(0);
    });
  });

  it("a held deposit is offered with its refund and the pair priced now", async () => {
    await withOrder(async (c, r) => {
      const view = new PartnerView(host(c));
      const failed = held(r);
      expect(view.needsAction(failed)).toBe(true);
      const inputs = await view.actionInputs(failed, Date.now());
      expect(inputs.refund).toEqual({ amount: "0.0009" });
      expect(inputs.pricing).not.toHaveProperty("unavailable");
      expect(inputs.extras).toEqual([]);
      expect(await view.inputsIfHeld(failed, Date.now(), true)).toEqual(inputs);
      expect((await view.view(failed, Date.now())).actions).not.toBeNull();
    });
  });

  it("what cannot be worked out now is unavailable, with the reason", async () => {
    await withOrder(async (c, r) => {
      const feeDown = new PartnerView(host(c, { env: d1Down().env }));
      expect((await feeDown.actionInputs(held(r), Date.now())).refund).toEqual({
        unavailable: "the network fee cannot be read now: Error: D1 down",
      });
      const view = new PartnerView(host(c));
      expect(await view.actionInputs(r, Date.now())).toEqual({
        refund: { unavailable: "no deposit received" },
        pricing: { unavailable: "no decision on the order" },
        extras: [],
      });
    });
  });

  it("an extra deposit is offered only once the order can no longer take it as its own", async () => {
    await withOrder(async (c, r) => {
      extraDeposit(c, r);
      const watching = new PartnerView(host(c));
      expect(watching.awaitingExtras(r)).toEqual([]);
      expect(watching.awaitingExtras({ ...r, status: "expired" })).toEqual([]);
      const ended = new PartnerView(host(c, { watchEnded: () => true }));
      const expired: OrderRecord = { ...r, status: "expired" };
      expect(ended.awaitingExtras(expired)).toEqual([
        { txid: "tx-extra", index: 0, amount: "0.5", refundFailed: false },
      ]);
      expect(ended.needsAction(expired)).toBe(true);
      const completed: OrderRecord = { ...r, status: "completed" };
      expect(watching.needsAction(completed)).toBe(true);
      expect((await watching.actionInputs(completed, Date.now())).extras).toEqual([
        { txid: "tx-extra", index: 0, amount: "0.5", refundFailed: false, refund: { amount: "0.4999" } },
      ]);
    });
  });

  it("the serialised view is kept until the object's storage is next written, by whichever part", async () => {
    await withOrder(async (c, r) => {
      const view = new PartnerView(host(c));
      const first = await view.serialised();
      expect(first).toEqual({
        partnerId: r.partnerId,
        livemode: isLive(r),
        createdByKey: r.createdByKey ?? null,
        json: JSON.stringify(orderView(r, ORIGIN)),
      });
      expect(await view.serialised()).toBe(first);
      // A transition writes the record.
      const completed: OrderRecord = { ...r, status: "completed", amountFromReceived: "0.01" };
      c.saveRecord(completed);
      const done = await view.serialised();
      expect(done?.json).toBe(JSON.stringify(orderView(completed, ORIGIN)));
      expect(await view.serialised()).toBe(done);
      // An extra deposit writes beside the record (its id, a log row): the view gains its actions.
      extraDeposit(c, completed);
      const offered = JSON.parse((await view.serialised())?.json ?? "null") as { actions: unknown };
      expect(offered.actions).toMatchObject({ extra_deposits: [{ txid: "tx-extra", index: 0 }] });
    });
  });

  it("a view with actions is priced on every read, never kept", async () => {
    await withOrder(async (c, r) => {
      const now = { env: c.env };
      const view = new PartnerView({
        ...host(c),
        get env() {
          return now.env;
        },
      });
      c.saveRecord(held(r));
      const refund = async () =>
        (JSON.parse((await view.serialised())?.json ?? "null") as { actions: { refund: unknown } }).actions
          .refund;
      expect(await refund()).toMatchObject({ available: true, amount: 0.0009 });
      now.env = d1Down().env;
      expect(await refund()).toMatchObject({ available: false });
    });
  });

  it("no order, no view", async () => {
    await runInDurableObject(env.ORDERS.getByName(crypto.randomUUID()), async (_obj, state) => {
      expect(await new PartnerView(host(orderContext(state.storage, env))).serialised()).toBeNull();
    });
  });
});
