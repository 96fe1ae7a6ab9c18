import { describe, expect, it } from "vitest";
import type { OrderRecord } from "../../src/domain/order";
import {
  type ActionInputs,
  actionUnavailable,
  awaitsDecision,
  decisionPatch,
  extrasDecidable,
  newDestination,
  orderActions,
} from "../../src/domain/order-actions";
import type { OrderStatus, StatusReason } from "../../src/domain/order-state";
import type { PricingInput } from "../../src/domain/pricing";

// BTC at 60 000 USD, USDT at 1: float spread 1 % + markup 0.5 %, 1 USDT payout fee.
const PRICING: PricingInput = {
  from: {
    coin: "BTC",
    network: "BTC",
    decimals: 8,
    minAmount: "0.0005",
    maxAmount: "5",
    withdrawFee: "0.0002",
    usdPrice: "60000",
  },
  to: {
    coin: "USDT",
    network: "TRX",
    decimals: 6,
    minAmount: "10",
    maxAmount: "100000",
    withdrawFee: "1",
    usdPrice: "1",
  },
  spreadBps: 100,
  markupBps: 50,
};

const order = (
  status: OrderStatus,
  statusReason: StatusReason | null,
  over: Record<string, unknown> = {},
) => ({
  status,
  statusReason,
  coinFrom: "BTC",
  networkFrom: "BTC",
  coinTo: "USDT",
  networkTo: "TRX",
  amountFromReceived: "0.01",
  amountToActual: null,
  refundAddress: null,
  ...over,
});

const inputs = (over: Partial<ActionInputs> = {}): ActionInputs => ({
  refund: { amount: "0.0098" },
  pricing: PRICING,
  ...over,
});

describe("order actions", () => {
  it("offers nothing while the order can go on by itself or is over", () => {
    for (const s of [
      "waiting_deposit",
      "confirming",
      "exchanging",
      "sending",
      "refunding",
      "completed",
      "refunded",
    ] as const)
      expect(orderActions(order(s, null), inputs())).toBeNull();
    expect(orderActions(order("expired", "deposit_dropped"), inputs())).toBeNull();
    expect(awaitsDecision(order("failed", null))).toBe(false);
  });

  it("an underpaid float order: refund needs an address; continue is offered once the amount fits the limits now", () => {
    // 0.0003 BTC was below the minimum at confirmation; with a lower minimum now it can go on.
    const o = order("failed", "amount_below_min", { amountFromReceived: "0.0003" });
    const now = orderActions(o, inputs({ refund: { amount: "0.0001" } }));
    expect(now).toEqual({
      reason: "amount_below_min",
      refund: {
        available: true,
        amount: 0.0001,
        coin: "BTC",
        network: "BTC",
        address: null,
        requires_address: true,
        unavailable_reason: null,
      },
      continue: {
        available: false,
        amount_to_estimate: null,
        rate: null,
        valid_until: null,
        unavailable_reason: expect.stringContaining(
          "outside the pair's limits now (min 0.0005, max 1.69206429)",
        ),
      },
      payout: null,
      extra_deposits: [],
      wrong_network_deposits: [],
    });
    const lower = { ...PRICING, from: { ...PRICING.from, minAmount: "0.0002" } };
    // 0.0003 × 60000 × 0.985 = 17.73, less the 1 USDT fee = 16.73 USDT.
    expect(orderActions(o, inputs({ pricing: lower }))?.continue).toEqual({
      available: true,
      amount_to_estimate: 16.73,
      rate: 55766.6666666,
      valid_until: null,
      unavailable_reason: null,
    });
  });

  it("an overpaid, mismatched, late or rate-expired deposit: continue at the float rate with the markup", () => {
    for (const reason of [
      "amount_above_max",
      "fixed_amount_mismatch",
      "late_deposit",
      "fixed_rate_expired",
      "exchange_failed",
    ] as const) {
      const a = orderActions(order("failed", reason), inputs());
      expect(a?.reason).toBe(reason);
      // 0.01 × 60000 × 0.985 − 1 = 590 USDT.
      expect(a?.continue).toMatchObject({ available: true, amount_to_estimate: 590, rate: 59000 });
      expect(a?.refund).toMatchObject({ available: true, amount: 0.0098, requires_address: true });
      expect(actionUnavailable(a, "refund")).toBeNull();
      expect(actionUnavailable(a, "continue")).toBeNull();
      expect(actionUnavailable(a, "payout")).toBe(`payout is not offered after ${reason}`);
    }
    const above = orderActions(order("failed", "amount_above_max", { amountFromReceived: "6" }), inputs());
    expect(above?.continue.available).toBe(false);
    expect(actionUnavailable(above, "continue")).toMatch(/outside the pair's limits/);
  });

  it("continue is unavailable without prices; refund is unavailable when the fee eats the deposit", () => {
    const a = orderActions(
      order("failed", "late_deposit"),
      inputs({ refund: { amount: "0" }, pricing: { unavailable: "prices are stale" } }),
    );
    expect(a?.continue).toMatchObject({ available: false, unavailable_reason: "prices are stale" });
    expect(a?.refund).toMatchObject({ available: false, amount: null });
    expect(actionUnavailable(a, "refund")).toMatch(/network fee/);
  });

  it("a refund amount that cannot be worked out now says why", () => {
    const a = orderActions(
      order("failed", "late_deposit"),
      inputs({ refund: { unavailable: "the catalog is unreadable" } }),
    );
    expect(a?.refund).toMatchObject({
      available: false,
      amount: null,
      unavailable_reason: "the catalog is unreadable",
    });
  });

  it("refund_failed asks for a new address even when one was given at creation", () => {
    const a = orderActions(order("failed", "refund_failed", { refundAddress: "bc1qold" }), inputs());
    expect(a?.refund).toMatchObject({ available: true, address: null, requires_address: true });
  });

  it("a known refund address is shown and needs no new one", () => {
    const a = orderActions(order("failed", "exchange_failed", { refundAddress: "bc1qknown" }), inputs());
    expect(a?.refund).toMatchObject({ address: "bc1qknown", requires_address: false });
  });

  it("payout_failed offers only a payout of the exchanged amount to another recipient", () => {
    const a = orderActions(order("failed", "payout_failed", { amountToActual: "590.5" }), inputs());
    expect(a?.payout).toEqual({
      available: true,
      amount: 590.5,
      coin: "USDT",
      network: "TRX",
      unavailable_reason: null,
    });
    expect(a?.refund.available).toBe(false);
    expect(a?.continue.available).toBe(false);
    expect(actionUnavailable(a, "payout")).toBeNull();
    expect(actionUnavailable(a, "refund")).toMatch(/already exchanged/);
    const none = orderActions(order("failed", "payout_failed"), inputs());
    expect(none?.payout?.available).toBe(false);
  });

  it("a decided order offers nothing", () => {
    expect(actionUnavailable(null, "refund")).toBe("the order is not waiting for a decision");
  });

  it("extra deposits: one refund each, the order's refund address by default, a new one after a refusal", () => {
    const extra = (over: Record<string, unknown> = {}) => ({
      txid: "ab".repeat(32),
      index: 1,
      amount: "0.002",
      refund: { amount: "0.0018" },
      refundFailed: false,
      ...over,
    });
    const done = order("completed", null, { refundAddress: "bc1qknown" });
    const a = orderActions(done, inputs({ extras: [extra(), extra({ index: 2, refundFailed: true })] }));
    expect(a).toMatchObject({
      reason: null,
      refund: { available: false, requires_address: false },
      continue: { available: false },
      payout: null,
    });
    expect(a?.extra_deposits).toEqual([
      {
        deposit: `${"ab".repeat(32)}:1`,
        txid: "ab".repeat(32),
        index: 1,
        amount_received: 0.002,
        refund: {
          available: true,
          amount: 0.0018,
          coin: "BTC",
          network: "BTC",
          address: "bc1qknown",
          requires_address: false,
          unavailable_reason: null,
        },
      },
      expect.objectContaining({
        deposit: `${"ab".repeat(32)}:2`,
        refund: expect.objectContaining({ available: true, address: null, requires_address: true }),
      }),
    ]);
    // The order's own decisions stay closed: only the extra deposit's refund is offered.
    expect(actionUnavailable(a, "refund")).toBe("the order is not waiting for a decision");
    // Dust that does not cover the fee is listed, with why it cannot be refunded.
    const dust = orderActions(done, inputs({ extras: [extra({ refund: { amount: "0" } })] }));
    expect(dust?.extra_deposits[0]?.refund).toMatchObject({
      available: false,
      amount: null,
      unavailable_reason: "the deposit does not cover the network fee of sending it back",
    });
    // A held order lists its extra deposits beside its own decisions.
    const held = orderActions(order("failed", "amount_below_min"), inputs({ extras: [extra()] }));
    expect(held).toMatchObject({ reason: "amount_below_min", refund: { available: true } });
    expect(held?.extra_deposits).toHaveLength(1);
    expect(orderActions(done, inputs({ extras: [] }))).toBeNull();
  });

  it("an extra deposit's refund is offered only once the order cannot take it as its own", () => {
    const ended = (v: boolean) => () => v;
    expect(extrasDecidable("waiting_deposit", ended(true))).toBe(false);
    expect(extrasDecidable("confirming", ended(true))).toBe(false);
    expect(extrasDecidable("expired", ended(false))).toBe(false);
    expect(extrasDecidable("expired", ended(true))).toBe(true);
    for (const s of ["exchanging", "sending", "completed", "refunding", "refunded", "failed"] as const)
      expect(extrasDecidable(s, ended(false))).toBe(true);
  });

  it("asks whether the late watch ended only for an expired order (a storage read per status poll otherwise)", () => {
    const asked: string[] = [];
    const ask = (s: string) => () => {
      asked.push(s);
      return true;
    };
    for (const s of ["waiting_deposit", "confirming", "exchanging", "completed", "expired"] as const)
      extrasDecidable(s, ask(s));
    expect(asked).toEqual(["expired"]);
  });
});

describe("decisionPatch", () => {
  const held = (refundAddress: string | null) =>
    ({
      ...order("failed", "exchange_failed", { refundAddress }),
      refundAddressTag: null,
    }) as unknown as OrderRecord;
  const keys = { refund: "o:refund:2" };

  it("a refund needs an address unless the order has one; the given one wins", () => {
    const r = held(null);
    const actions = orderActions(r, inputs());
    if (!actions) throw new Error("the order offers actions");
    const ask = { kind: "refund", refundAddress: null, refundAddressTag: null } as const;
    expect(decisionPatch(r, actions, ask, keys, 100)).toBe("address_required");
    expect(
      decisionPatch(r, actions, { ...ask, refundAddress: "bc1q-new", refundAddressTag: "7" }, keys, 100),
    ).toEqual({
      patch: { sendKeys: keys, refundAddress: "bc1q-new", refundAddressTag: "7" },
      log: { refund_address: "bc1q-new", refund_address_tag: "7", amount: 0.0098 },
    });
    const own = held("bc1q-own");
    const offered = orderActions(own, inputs());
    if (!offered) throw new Error("the order offers actions");
    expect(decisionPatch(own, offered, ask, keys, 100)).toMatchObject({
      patch: { refundAddress: "bc1q-own", refundAddressTag: null },
    });
  });

  it("continue makes the order a float order at the current rate and estimate", () => {
    const r = held(null);
    const actions = orderActions(r, inputs());
    if (!actions) throw new Error("the order offers actions");
    const d = decisionPatch(r, actions, { kind: "continue" }, { exchange: "o:exchange:2" }, 100);
    expect(d).toEqual({
      patch: {
        sendKeys: { exchange: "o:exchange:2" },
        rateType: "float",
        spreadBps: 100,
        rateQuoted: String(actions.continue.rate),
        amountToExpected: String(actions.continue.amount_to_estimate),
      },
      log: { amount_to_estimate: actions.continue.amount_to_estimate, rate: actions.continue.rate },
    });
  });
});

describe("newDestination (what the cabinet's step-up guards)", () => {
  it("is the typed refund address or the new recipient; nothing for continue or a refund to the order's own address", () => {
    expect(newDestination({ kind: "refund", refund_address: "bc1qnew" })).toBe("bc1qnew");
    expect(newDestination({ kind: "payout", recipient_address: "TNew" })).toBe("TNew");
    expect(newDestination({ kind: "refund" })).toBeNull();
    expect(newDestination({ kind: "continue" })).toBeNull();
  });
});
