import { describe, expect, it } from "vitest";
import { parseDecimal } from "../../src/domain/money";
import { commissionSummary, legDelivered, venuePayout } from "../../src/domain/venue-fills";
import { legClientOrderId } from "../../src/domain/venue-route";

const fill = (commission: string, commissionAsset: string, qty = "1", price = "100") => ({
  price,
  qty,
  commission,
  commissionAsset,
});

describe("legDelivered", () => {
  it("a SELL delivers the quote amount, less commission taken in the quote asset", () => {
    const leg = {
      side: "SELL" as const,
      to: "USDT",
      executedQty: "0.01",
      quoteQty: "600",
      fills: [fill("0.6", "USDT")],
    };
    expect(legDelivered(leg).toString()).toBe("599.4");
  });

  it("a BUY delivers the base amount, less commission in the base asset; BNB commission does not reduce it", () => {
    const fills = [fill("2", "TRX"), fill("2.995", "TRX"), fill("0.001", "BNB")];
    const leg = { side: "BUY" as const, to: "TRX", executedQty: "4995", quoteQty: "599.4", fills };
    expect(legDelivered(leg).toString()).toBe("4990.005");
    expect(commissionSummary(fills)).toBe("4.995 TRX, 0.001 BNB");
  });
});

describe("venuePayout", () => {
  const order = {
    spreadBps: 50,
    markupBps: 25,
    decimalsTo: 6,
    amountFromExpected: "0.01",
    amountToExpected: "590",
    rateQuoted: "59000",
  };

  it("float: the fills less spread, markup and the withdraw fee, rounded down", () => {
    const p = venuePayout(
      { ...order, rateType: "float" },
      parseDecimal("0.01"),
      parseDecimal("599.4"),
      parseDecimal("1"),
    );
    // 599.4 × (1 − 0.0075) = 594.9045; − 1.
    expect(p).toEqual({ amountTo: "593.9045", difference: "5.4955" });
  });

  it("fixed: the quoted amount whatever the fills; the difference may be negative (the service carries it)", () => {
    const p = venuePayout(
      { ...order, rateType: "fixed" },
      parseDecimal("0.01"),
      parseDecimal("585.5"),
      parseDecimal("1"),
    );
    expect(p).toEqual({ amountTo: "590", difference: "-4.5" });
  });

  it("float never goes below zero", () => {
    const p = venuePayout(
      { ...order, rateType: "float" },
      parseDecimal("0.01"),
      parseDecimal("0.5"),
      parseDecimal("1"),
    );
    expect(p.amountTo).toBe("0");
  });
});

describe("legClientOrderId", () => {
  const id = "0b8e7c52-3f1d-4a8e-9c4b-2d6f0e1a9b7c";
  it("first exchange: the order's hex and the leg; later exchanges append their number in base 36, ≤ 36 chars", () => {
    expect(legClientOrderId(id, 0)).toBe("0b8e7c523f1d4a8e9c4b2d6f0e1a9b7c-1");
    expect(legClientOrderId(id, 1, 2)).toBe("0b8e7c523f1d4a8e9c4b2d6f0e1a9b7c-22");
    expect(legClientOrderId(id, 1, 1295)).toHaveLength(36);
  });
});
