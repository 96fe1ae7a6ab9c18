/**
 * The venue exchange service on a leg store as the order object leaves it after an eviction in the
 * middle of a POST (the leg stored as `sending`, the answer never read), against the fake venue.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createBinanceVenue } from "../../../src/adapters/exchange/binance";
import type { ExchangeRequest } from "../../../src/adapters/exchange/types";
import { createVenueExchange, type VenueExchangeState } from "../../../src/adapters/exchange/venue-exchange";
import { LOST_WINDOW_MS } from "../../../src/domain/venue-policy";
import { createFakeVenue, type FakeVenue, VENUE_URL } from "../../support/fake-venue";

describe("venue exchange", () => {
  const ORDER_ID = "5d0c1f8e-7a2b-4c3d-9e8f-0a1b2c3d4e5f";
  const LEG = "5d0c1f8e7a2b4c3d9e8f0a1b2c3d4e5f-1";
  const KEY = `${ORDER_ID}:exchange`;
  const REQ: ExchangeRequest = {
    orderId: ORDER_ID,
    coinFrom: "BTC",
    networkFrom: "BTC",
    coinTo: "USDT",
    networkTo: "TRX",
    amountFrom: "0.01",
    rateType: "float",
    rateQuoted: "59000",
    amountFromExpected: "0.01",
    amountToExpected: "590",
    decimalsTo: 6,
    spreadBps: 50,
    markupBps: 0,
  };

  let venue: FakeVenue;
  let clock: number;
  let store: Map<string, VenueExchangeState>;

  const exchange = () =>
    createVenueExchange({
      venue: createBinanceVenue({
        baseUrl: VENUE_URL,
        apiKey: "k",
        apiSecret: "s",
        fetch: venue.fetch,
        now: () => clock,
      }),
      store: {
        get: (k) => structuredClone(store.get(k)),
        put: (k, v) => void store.set(k, structuredClone(v)),
        number: () => 1,
      },
      withdrawFee: async () => "1",
      now: () => clock,
    });

  /** The store as an object evicted mid-POST leaves it: intent and order stored, phase `sending`. */
  function evictedMidPost() {
    store.set(KEY, {
      legs: [
        {
          symbol: "BTCUSDT",
          side: "SELL",
          from: "BTC",
          to: "USDT",
          clientOrderId: LEG,
          order: { symbol: "BTCUSDT", side: "SELL", params: { quantity: "0.01" } },
          state: { phase: "sending" },
          nextAt: 0,
          execution: null,
        },
      ],
    });
  }

  beforeEach(() => {
    venue = createFakeVenue();
    clock = Date.UTC(2026, 10, 23, 12);
    store = new Map();
    vi.spyOn(Date, "now").mockImplementation(() => clock);
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  describe("venue exchange after an eviction mid-POST", () => {
    it("the venue traded it: looked up, never placed again; fills from the trade list", async () => {
      const q = new URLSearchParams({
        symbol: "BTCUSDT",
        side: "SELL",
        quantity: "0.01",
        newClientOrderId: LEG,
      });
      venue.placeFaults.push("fill_then_drop");
      await venue.fetch(`${VENUE_URL}/api/v3/order?${q}`, { method: "POST" }).catch(() => undefined);
      evictedMidPost();
      const result = await exchange().execute(REQ, KEY);
      expect(result).toMatchObject({ status: "done", amountTo: "595.403" });
      expect(venue.posts).toHaveLength(1); // the one the evicted object sent
      expect(venue.calls).toEqual(expect.arrayContaining(["GET /api/v3/order", "GET /api/v3/myTrades"]));
      expect(store.get(KEY)?.legs[0]?.execution?.fills).toHaveLength(1);
    });

    it("the POST never arrived: lookups only until 3 not-found answers over 60 s, then one POST", async () => {
      evictedMidPost();
      const x = exchange();
      const start = clock;
      let result = await x.execute(REQ, KEY);
      for (let i = 0; i < 12 && result.status === "pending"; i++) {
        expect(venue.posts, `placed at +${clock - start} ms`).toHaveLength(0);
        clock = result.retryAt;
        result = await x.execute(REQ, KEY);
      }
      expect(result).toMatchObject({ status: "done", amountTo: "595.403" });
      expect(venue.posts.map((q) => q.get("newClientOrderId"))).toEqual([LEG]);
      expect(clock - start).toBeGreaterThanOrEqual(LOST_WINDOW_MS);
      expect(venue.filledTwice()).toEqual([]);
    });

    it("a venue unreachable once a leg may be on it: pending, not a failure", async () => {
      evictedMidPost();
      const broken = createVenueExchange({
        venue: {
          markets: () => Promise.reject(new Error("down")),
          price: () => Promise.reject(new Error("down")),
          place: () => Promise.reject(new Error("must not place")),
          lookup: () => Promise.reject(new Error("connection reset")),
          trades: () => Promise.reject(new Error("down")),
        },
        store: { get: (k) => store.get(k), put: (k, v) => void store.set(k, v), number: () => 1 },
        withdrawFee: async () => "1",
        now: () => clock,
      });
      expect(await broken.execute(REQ, KEY)).toMatchObject({
        status: "pending",
        reason: "venue unreachable: connection reset",
      });
    });
  });
});
