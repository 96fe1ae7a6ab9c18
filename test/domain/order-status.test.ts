import { describe, expect, it } from "vitest";
import type { OrderView } from "../../src/domain/order";
import { isFinal, maskAddress, publicOrderStatus, timeline } from "../../src/domain/order-status";

const view = (over: Partial<OrderView> = {}): OrderView => ({
  id: "0190c2b4-5b1e-8a3c-9d2e-8a1b2c3d4e5f",
  short_id: "7K3M9QX2TB",
  status: "waiting_deposit",
  status_reason: null,
  created_at: "2026-11-26T00:00:00.000Z",
  updated_at: "2026-11-26T00:00:00.000Z",
  expires_at: "2026-11-26T00:30:00.000Z",
  coin_from: "BTC",
  network_from: "BTC",
  coin_to: "USDT",
  network_to: "TRX",
  amount_from_expected: 0.01,
  amount_to_expected: 597,
  amount_to_min: 591,
  amount_from_received: null,
  amount_to_actual: null,
  rate_type: "float",
  rate_quoted: 59700,
  deposit_address: "bc1qdeposit",
  deposit_address_tag: null,
  recipient_address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
  recipient_address_tag: "42",
  refund_address: null,
  refund_address_tag: null,
  deposit_txid: null,
  deposit_confirmations: null,
  deposit_confirmations_required: 2,
  payout_txid: null,
  refund_txid: null,
  actions: null,
  livemode: true,
  source: "api",
  widget_id: null,
  fees: null,
  completed_at: null,
  partner_order_id: null,
  metadata: null,
  eta_seconds: null,
  eta_source: null,
  token_from: null,
  token_to: null,
  chain_id_from: null,
  chain_id_to: null,
  deposit_confirmation_seconds: null,
  payout_seconds: null,
  hold: null,
  tracking_url:
    "https://api.example.com/track/0190c2b4-5b1e-8a3c-9d2e-8a1b2c3d4e5f.00112233445566778899aabbccddeeff",
  status_url:
    "https://api.example.com/api/v1/orders/0190c2b4-5b1e-8a3c-9d2e-8a1b2c3d4e5f.00112233445566778899aabbccddeeff/status",
  ...over,
});

describe("maskAddress", () => {
  it("keeps the first 6 and last 4 characters of an address, the ends of a short value", () => {
    expect(maskAddress("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t")).toBe("TR7NHq…Lj6t");
    expect(maskAddress("0123456789A")).toBe("012345…789A");
    expect(maskAddress("abcdef")).toBe("ab…ef");
  });
});

describe("publicOrderStatus", () => {
  it("drops the short_id, tags and actions and masks both addresses", () => {
    const s = publicOrderStatus(view({ refund_address: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4" }));
    expect(s.recipient_address).toBe("TR7NHq…Lj6t");
    expect(s.refund_address).toBe("bc1qw5…f3t4");
    expect(Object.keys(s)).not.toContain("short_id");
    expect(Object.keys(s)).not.toContain("recipient_address_tag");
    expect(Object.keys(s)).not.toContain("actions");
    expect(publicOrderStatus(view()).refund_address).toBeNull();
  });
});

const labels = (o: Partial<OrderView>) =>
  timeline(publicOrderStatus(view(o))).map((s) => `${s.state}:${s.label}`);

describe("timeline", () => {
  it("walks the happy path in plain words, with the confirmations while confirming", () => {
    expect(labels({})).toEqual([
      "current:Waiting for your deposit",
      "todo:Confirming",
      "todo:Exchanging",
      "todo:Sending",
      "todo:Sent",
    ]);
    expect(labels({ status: "confirming", deposit_confirmations: 1 })[1]).toBe("current:Confirming 1/2");
    expect(labels({ status: "completed" }).every((l) => l.startsWith("done:"))).toBe(true);
  });

  it("ends an order that left the path with where it went", () => {
    expect(labels({ status: "expired" })).toEqual(["failed:Expired: no deposit arrived in time"]);
    expect(labels({ status: "refunded" })).toEqual(["done:Waiting for your deposit", "done:Refunded"]);
    expect(labels({ status: "refunding" }).at(-1)).toBe("current:Refunding");
    expect(labels({ status: "failed" })).toEqual([
      "done:Waiting for your deposit",
      "done:Confirming",
      "failed:On hold: support will contact you",
    ]);
  });

  it("only completed and refunded orders are final", () => {
    expect(["completed", "refunded"].every((s) => isFinal(s as OrderView["status"]))).toBe(true);
    expect(isFinal("expired")).toBe(false);
    expect(isFinal("failed")).toBe(false);
  });
});
