import { describe, expect, it } from "vitest";
import {
  available,
  DEFAULT_REGION,
  exchangeCover,
  grantSize,
  LIQUIDITY_WAIT_FIRST_MS,
  LIQUIDITY_WAIT_MAX_MS,
  liquidityStep,
  liquidityWait,
  locationHintOf,
  maxAmountFrom,
  payoutWithin,
  rebalanceStep,
  regionOf,
  reservationFor,
  shardFree,
  watermarks,
} from "../../src/domain/liquidity";
import { Dec } from "../../src/domain/money";

const d = (s: string) => new Dec(s);

describe("allowance arithmetic", () => {
  it("available: balance less paid and granted, never negative", () => {
    expect(available(d("10"), d("3"), d("2")).toString()).toBe("5");
    expect(available(d("1"), d("3"), d("0")).toString()).toBe("0");
  });

  it("grantSize: at least the request or half of what is free, never more than is free", () => {
    expect(grantSize(d("10"), d("1")).toString()).toBe("5");
    expect(grantSize(d("10"), d("7")).toString()).toBe("7");
    expect(grantSize(d("3"), d("7")).toString()).toBe("3");
    expect(grantSize(d("0"), d("7")).toString()).toBe("0");
  });

  it("shardFree: allowance less reservations, never negative", () => {
    expect(shardFree(d("5"), d("2")).toString()).toBe("3");
    expect(shardFree(d("1"), d("2")).toString()).toBe("0");
  });

  it("a float order reserves the spread as margin, a fixed one its quoted payout", () => {
    expect(reservationFor(d("100"), "float", 50).toString()).toBe("100.5");
    expect(reservationFor(d("100"), "fixed", 50).toString()).toBe("100");
  });

  it("payoutWithin is the largest payout whose reservation fits: the inverse of reservationFor", () => {
    expect(payoutWithin(d("100.5"), "float", 50).toString()).toBe("100");
    expect(payoutWithin(d("100"), "fixed", 50).toString()).toBe("100");
    expect(reservationFor(payoutWithin(d("10"), "float", 37), "float", 37).lte(d("10"))).toBe(true);
  });

  it("maxAmountFrom converts a free amount back at the rate, margin included", () => {
    expect(maxAmountFrom(d("100.5"), d("20"), "float", 50).toString()).toBe("5");
    expect(maxAmountFrom(d("100"), d("20"), "fixed", 50).toString()).toBe("5");
    expect(maxAmountFrom(d("100"), d("0"), "fixed", 50).toString()).toBe("0");
  });
});

describe("low and high water", () => {
  it("a shard aims at a quarter of the balance; refills below a quarter of that, returns above twice that", () => {
    const marks = watermarks(d("100"));
    expect([marks.target, marks.low, marks.high].map(String)).toEqual(["25", "6.25", "50"]);
    expect(rebalanceStep(d("6"), marks)).toEqual({ kind: "refill", amount: d("19") });
    expect(rebalanceStep(d("6.25"), marks)).toBeNull();
    expect(rebalanceStep(d("50"), marks)).toBeNull();
    expect(rebalanceStep(d("80"), marks)).toEqual({ kind: "return", amount: d("55") });
  });

  it("a balance of 0 takes back every free unit and asks for none", () => {
    const marks = watermarks(d("0"));
    expect(rebalanceStep(d("0"), marks)).toBeNull();
    expect(rebalanceStep(d("3"), marks)).toEqual({ kind: "return", amount: d("3") });
  });
});

describe("liquidityStep", () => {
  it("releases when the promise ends, settles on completion, nothing while open", () => {
    expect(liquidityStep("completed")).toBe("settle");
    for (const s of ["expired", "refunding", "refunded", "failed"] as const)
      expect(liquidityStep(s)).toBe("release");
    for (const s of ["waiting_deposit", "confirming", "exchanging", "sending"] as const)
      expect(liquidityStep(s)).toBeNull();
  });
});

describe("regions", () => {
  it("a known continent is its own region with a location hint; anything else is the default", () => {
    expect(regionOf("EU")).toBe("EU");
    expect(locationHintOf("EU")).toBe("weur");
    expect(regionOf(undefined)).toBe(DEFAULT_REGION);
    expect(regionOf("XX")).toBe(DEFAULT_REGION);
    expect(locationHintOf(DEFAULT_REGION)).toBeUndefined();
  });
});

describe("a float order at exchange time", () => {
  it("proceeds when the payout is within its reservation, else extends by the difference", () => {
    expect(exchangeCover(d("0.2"), d("0.201"))).toEqual({ kind: "proceed" });
    expect(exchangeCover(d("0.201"), d("0.201"))).toEqual({ kind: "proceed" });
    const cover = exchangeCover(d("0.25"), d("0.201"));
    expect(cover.kind).toBe("extend");
    if (cover.kind !== "extend") return;
    expect(cover.to.toString()).toBe("0.25");
    expect(cover.by.toString()).toBe("0.049");
  });

  it("a refused extension waits 1, 2, 4, 8 then 15 minutes, alerting only when the wait begins", () => {
    const waits = [0, 1, 2, 3, 4, 5, 40].map(liquidityWait);
    expect(waits.map((w) => w.retryInMs / 60_000)).toEqual([1, 2, 4, 8, 15, 15, 15]);
    expect(waits.map((w) => w.alert)).toEqual([true, false, false, false, false, false, false]);
    expect(LIQUIDITY_WAIT_FIRST_MS).toBe(60_000);
    expect(LIQUIDITY_WAIT_MAX_MS).toBe(15 * 60_000);
  });
});
