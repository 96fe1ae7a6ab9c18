import { describe, expect, it } from "vitest";
import { parseDecimal } from "../../src/domain/money";
import { activationRule, operationFields, payoutPlan } from "../../src/domain/payout-activation";

const d = parseDecimal;

describe("activationRule", () => {
  it("XRP and XLM need the 1-coin reserve, TON a non-bounceable transfer, other chains nothing", () => {
    expect(activationRule("XRP", null)).toEqual({ kind: "reserve", minimum: d("1") });
    expect(activationRule("XLM", null)).toEqual({ kind: "reserve", minimum: d("1") });
    expect(activationRule("TON", null)).toEqual({ kind: "non_bounceable" });
    for (const network of ["BTC", "ETH", "TRX", "SOL", "LTC", "UNKNOWN"])
      expect(activationRule(network, null)).toBeNull();
  });

  it("tokens are not the rule's matter", () => {
    expect(activationRule("XLM", "GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN")).toBeNull();
  });
});

describe("payoutPlan", () => {
  const reserve = { kind: "reserve", minimum: d("1") } as const;
  const ton = { kind: "non_bounceable" } as const;

  it("an existing account, or one nobody could tell about, takes an ordinary transfer of any amount", () => {
    for (const state of ["active", "unknown"] as const) {
      expect(payoutPlan(reserve, state, d("0.000001"))).toEqual({ kind: "lands", operation: null });
      expect(payoutPlan(ton, state, d("0.5"))).toEqual({ kind: "lands", operation: null });
    }
  });

  it("a missing account: refused below the minimum, activated at or above it", () => {
    expect(payoutPlan(reserve, "missing", d("0.999999"))).toEqual({ kind: "refused", minimum: d("1") });
    expect(payoutPlan(reserve, "missing", d("1"))).toEqual({ kind: "lands", operation: "activate" });
    expect(payoutPlan(reserve, "missing", d("25"))).toEqual({ kind: "lands", operation: "activate" });
  });

  it("an uninitialised TON wallet takes any amount, non-bounceable", () => {
    expect(payoutPlan(ton, "missing", d("0.01"))).toEqual({ kind: "lands", operation: "non_bounceable" });
  });
});

describe("operationFields", () => {
  it("only the field the operation needs, and nothing for an ordinary transfer", () => {
    expect(operationFields("activate")).toEqual({ activate: true });
    expect(operationFields("non_bounceable")).toEqual({ bounce: false });
    expect(operationFields(undefined)).toEqual({});
  });
});
