/**
 * The Ledger mapping (src/domain/ledger-swap.ts) and the swap payload (src/domain/ledger-payload.ts):
 * statuses, ids, paging, slippage, error keys; the payload decoded by hand and its signature
 * checked with node:crypto (OpenSSL), not with the library that signed it.
 */
import { createPublicKey, verify } from "node:crypto";
import { base64urlnopad, hex } from "@scure/base";
import { describe, expect, it } from "vitest";
import {
  encodeSwapPayload,
  ledgerPublicKey,
  parseNonce,
  signSwapPayload,
  smallestUnits,
} from "../../src/domain/ledger-payload";
import {
  ledgerCurrencyId,
  ledgerErrorKey,
  ledgerStatus,
  pageAfter,
  parseLedgerCurrencyId,
  slippageBps,
} from "../../src/domain/ledger-swap";
import { ORDER_STATUSES } from "../../src/domain/order-state";
import { bigEndian, decodeProtobuf } from "../support/protobuf";

describe("ledger mapping", () => {
  it("maps every order status to Ledger's", () => {
    expect(Object.fromEntries(ORDER_STATUSES.map((s) => [s, ledgerStatus(s)]))).toEqual({
      waiting_deposit: "PENDING",
      confirming: "PENDING",
      exchanging: "PENDING",
      sending: "PENDING",
      refunding: "PENDING",
      completed: "FINISHED",
      expired: "EXPIRED",
      refunded: "REFUNDED",
      failed: "ON_HOLD",
    });
  });

  it("currency ids read back; anything else is no id of ours", () => {
    for (const [coin, network, id] of [
      ["BTC", "BTC", "btc"],
      ["USDT", "TRX", "usdt_trx"],
      ["ETH", "ARBITRUM", "eth_arbitrum"],
    ] as const) {
      expect(ledgerCurrencyId(coin, network)).toBe(id);
      expect(parseLedgerCurrencyId(id)).toEqual({ coin, network });
    }
    for (const bad of ["", "usdt-trx", "a_b_c", "BTC"]) expect(parseLedgerCurrencyId(bad)).toBeNull();
  });

  it("pages after the cursor, each item once, the last page without a cursor", () => {
    const items = ["d", "a", "c", "b", "e"];
    const first = pageAfter(items, (x) => x, undefined, 2);
    expect(first).toEqual({ page: ["a", "b"], next_cursor: "b" });
    expect(pageAfter(items, (x) => x, "b", 2)).toEqual({ page: ["c", "d"], next_cursor: "d" });
    expect(pageAfter(items, (x) => x, "d", 2)).toEqual({ page: ["e"], next_cursor: null });
    expect(pageAfter(items, (x) => x, "c", 2)).toEqual({ page: ["d", "e"], next_cursor: null });
  });

  it("slippage: Ledger's ratio in basis points, capped at the service's maximum", () => {
    expect(slippageBps("0.02")).toBe(200);
    expect(slippageBps("0")).toBe(0);
    expect(slippageBps("0.3")).toBe(1000);
  });

  it("error keys: region with and without a side, limits with both bounds, unknown sides, the rest", () => {
    expect(ledgerErrorKey("region_restricted", [{ code: "region_restricted", detail: "" }])).toMatchObject({
      messageKey: "REGION_RESTRICTED_ERROR",
      status: 451,
    });
    expect(
      ledgerErrorKey("region_restricted", [{ code: "region_restricted", side: "to", detail: "" }]).messageKey,
    ).toBe("CURRENCY_REGION_RESTRICTED_ERROR");
    expect(
      ledgerErrorKey("amount_below_min", [
        { code: "amount_below_min", detail: "", min_amount_from: 0.001, max_amount_from: 2 },
      ]),
    ).toEqual({
      messageKey: "FROM_CURRENCY_MINIMUM_AMOUNT_ERROR",
      status: 400,
      additionalFields: { code: "amount_below_min", minRequiredAmount: "0.001", maxRequiredAmount: "2" },
    });
    const unknownTo = [{ code: "unsupported_asset" as const, side: "to" as const, detail: "" }];
    expect(ledgerErrorKey("pair_unavailable", unknownTo).messageKey).toBe("CURRENCY_TO_NOT_FOUND_ERROR");
    expect(ledgerErrorKey("quote_expired")).toMatchObject({
      messageKey: "SWAP_QUOTE_NOT_FOUND_ERROR",
      status: 404,
    });
    expect(ledgerErrorKey("order_not_found").messageKey).toBe("TRANSACTION_NOT_FOUND");
    expect(ledgerErrorKey("invalid_address")).toEqual({
      messageKey: "INVALID_ADDRESS",
      additionalFields: { code: "invalid_address" },
    });
  });
});

describe("ledger swap payload", () => {
  const KEY = "7d1c3a9e5b2f48c0a6e1d4b7f39c2e8a0b5d6f1e2c3a4b5c6d7e8f9a0b1c2d3e";
  const nonce = parseNonce("00ff".repeat(16)) as Uint8Array;
  const fields = {
    payinAddress: "bc1qpayin",
    payinExtraId: null,
    refundAddress: "bc1qrefund",
    refundExtraId: null,
    payoutAddress: "rPayout",
    payoutExtraId: "12345",
    currencyFrom: "BTC",
    currencyTo: "XRP",
    amountToProvider: smallestUnits("0.01", 8),
    amountToWallet: smallestUnits("1234.5678919", 6),
    nonce,
  };

  it("NewTransactionResponse: each field at its number, empty ones left out, amounts big-endian", () => {
    const decoded = decodeProtobuf(encodeSwapPayload(fields));
    const text = (n: number) => new TextDecoder().decode(decoded.get(n));
    expect([...decoded.keys()]).toEqual([1, 3, 5, 6, 7, 8, 9, 10, 12]);
    expect([text(1), text(3), text(5), text(6), text(7), text(8)]).toEqual([
      "bc1qpayin",
      "bc1qrefund",
      "rPayout",
      "12345",
      "BTC",
      "XRP",
    ]);
    expect(bigEndian(decoded.get(9))).toBe(1_000_000n);
    expect(bigEndian(decoded.get(10))).toBe(1_234_567_891n);
    expect(decoded.get(12)).toEqual(nonce);
    expect(parseNonce("abc")).toBeNull();
  });

  it("the signature verifies with OpenSSL over '.' + payload, as ES256 r‖s", () => {
    const sig = signSwapPayload(encodeSwapPayload(fields), KEY);
    const point = hex.decode(ledgerPublicKey(KEY));
    const key = createPublicKey({
      key: {
        kty: "EC",
        crv: "P-256",
        x: base64urlnopad.encode(point.slice(1, 33)),
        y: base64urlnopad.encode(point.slice(33)),
      },
      format: "jwk",
    });
    const signature = base64urlnopad.decode(sig.signature);
    expect(signature).toHaveLength(64);
    const checks = (input: string) =>
      verify("sha256", Buffer.from(input), { key, dsaEncoding: "ieee-p1363" }, signature);
    expect(checks(`.${sig.payload}`)).toBe(true);
    expect(checks(sig.payload)).toBe(false);
  });
});
