import { describe, expect, it } from "vitest";
import {
  deriveServiceStatus,
  incidentChanges,
  type NetworkSignals,
  networkRefusals,
  nextProbe,
  type ServiceStatus,
  STATUS_TRUSTED_MS,
} from "../../src/domain/service-status";

const AT = Date.parse("2026-11-26T12:00:00Z");
const S = 1000;

const healthy = (network: string, over: Partial<NetworkSignals> = {}): NetworkSignals => ({
  network,
  reader: { okAt: AT, failingSince: null },
  alerts: { sends: 0, gatewayConfig: 0, venue: 0 },
  stalePrices: [],
  depositPool: null,
  ...over,
});

const judge = (networks: NetworkSignals[], webhookBacklog = 0) =>
  deriveServiceStatus({ at: AT, networks, webhookBacklog });

describe("deriveServiceStatus", () => {
  it("all signals quiet: operational everywhere, networks sorted, lag from the last answer", () => {
    const s = judge([healthy("ETH"), healthy("BTC", { reader: { okAt: AT - 42 * S, failingSince: null } })]);
    expect(s).toEqual({
      at: AT,
      overall: "operational",
      webhooks: "operational",
      networks: [
        { network: "BTC", deposits: "operational", payouts: "operational", readerLagS: 42, reasons: [] },
        { network: "ETH", deposits: "operational", payouts: "operational", readerLagS: 0, reasons: [] },
      ],
    });
  });

  it("a failing reader degrades deposits at once, takes them down after four times the lag threshold", () => {
    const failing = (sinceOk: number) =>
      judge([
        healthy("BTC", { reader: { okAt: AT - sinceOk * S, failingSince: AT - 10 * S } }),
        healthy("ETH"),
      ]).networks[0];
    expect(failing(30)).toMatchObject({ deposits: "degraded", payouts: "operational", readerLagS: 30 });
    expect(failing(719)?.deposits).toBe("degraded");
    expect(failing(720)?.deposits).toBe("down");
  });

  it("a reader that answers, but last did long ago, is late: degraded from 180 s", () => {
    const late = (s: number) => judge([healthy("BTC", { reader: { okAt: AT - s * S, failingSince: null } })]);
    expect(late(179).networks[0]?.deposits).toBe("operational");
    expect(late(180).networks[0]?.deposits).toBe("degraded");
  });

  it("a reader that never answered counts from its first failure, with no lag figure", () => {
    const s = judge([healthy("SOL", { reader: { okAt: null, failingSince: AT - 800 * S } })]);
    expect(s.networks[0]).toMatchObject({ deposits: "down", readerLagS: null });
    // The only network takes no deposits: nothing can be swapped.
    expect(s.overall).toBe("down");
  });

  it("stuck sends degrade payouts, three take them down; a gateway misconfiguration takes them down at once", () => {
    const sends = (n: number, gatewayConfig = 0) =>
      judge([healthy("TRX", { alerts: { sends: n, gatewayConfig, venue: 0 } }), healthy("BTC")]).networks[1];
    expect(sends(2)).toMatchObject({ deposits: "operational", payouts: "degraded" });
    expect(sends(3)?.payouts).toBe("down");
    expect(sends(0, 1)?.payouts).toBe("down");
    // Payouts down on one network: overall degraded, not down (other swaps work).
    expect(
      judge([healthy("TRX", { alerts: { sends: 0, gatewayConfig: 1, venue: 0 } }), healthy("BTC")]).overall,
    ).toBe("degraded");
  });

  it("the venue waiting degrades payouts; stale prices degrade both sides and are named", () => {
    const venue = judge([healthy("ETH", { alerts: { sends: 0, gatewayConfig: 0, venue: 5 } })]).networks[0];
    expect(venue).toMatchObject({ deposits: "operational", payouts: "degraded" });
    const stale = judge([healthy("ETH", { stalePrices: ["USDT", "ETH"] })]).networks[0];
    expect(stale).toMatchObject({ deposits: "degraded", payouts: "degraded" });
    expect(stale?.reasons.join()).toContain("ETH, USDT");
  });

  it("a deposit-address pool: empty takes deposits down, none left for the shards degrades them (issue 42, item 13)", () => {
    const pool = (free: number, unreserved: number) =>
      judge([healthy("SOL", { depositPool: { free, unreserved } }), healthy("BTC")]).networks[1];
    expect(pool(500, 480)).toMatchObject({ deposits: "operational", payouts: "operational", reasons: [] });
    expect(pool(15, 0)).toMatchObject({ deposits: "degraded", payouts: "operational" });
    expect(pool(15, 0)?.reasons.join()).toContain("running out");
    const empty = pool(0, 0);
    expect(empty).toMatchObject({ deposits: "down", payouts: "operational" });
    expect(empty?.reasons.join()).toContain("no deposit addresses");
    // Quotes from SOL are refused as the network's, not as a silent pair problem.
    const status = judge([healthy("SOL", { depositPool: { free: 0, unreserved: 0 } }), healthy("BTC")]);
    expect(networkRefusals(status, { from: "SOL", to: "BTC" }, AT)).toEqual([
      expect.objectContaining({ code: "network_unavailable", side: "from" }),
    ]);
    expect(networkRefusals(status, { from: "BTC", to: "SOL" }, AT)).toEqual([]);
  });

  it("a webhook backlog degrades the webhooks and overall, no network", () => {
    const s = judge([healthy("BTC")], 4);
    expect(s).toMatchObject({ overall: "degraded", webhooks: "degraded" });
    expect(s.networks[0]?.deposits).toBe("operational");
  });

  it("overall is down only when every network's deposits are", () => {
    const down = { okAt: AT - 3600 * S, failingSince: AT - 3600 * S };
    expect(judge([healthy("BTC", { reader: down }), healthy("ETH", { reader: down })]).overall).toBe("down");
    expect(judge([healthy("BTC", { reader: down }), healthy("ETH")]).overall).toBe("degraded");
    expect(judge([]).overall).toBe("operational");
  });
});

describe("nextProbe", () => {
  it("an answer resets; a failure keeps the last answer and the first failure", () => {
    expect(nextProbe(undefined, true, AT)).toEqual({ okAt: AT, failingSince: null });
    expect(nextProbe(undefined, false, AT)).toEqual({ okAt: null, failingSince: AT });
    const failing = nextProbe({ okAt: AT - 60 * S, failingSince: null }, false, AT);
    expect(failing).toEqual({ okAt: AT - 60 * S, failingSince: AT });
    expect(nextProbe(failing, false, AT + 60 * S)).toEqual(failing);
    expect(nextProbe(failing, true, AT + 60 * S)).toEqual({ okAt: AT + 60 * S, failingSince: null });
  });
});

const status = (
  levels: Record<string, ["operational" | "degraded" | "down", "operational" | "degraded" | "down"]>,
  webhooks: "operational" | "degraded" = "operational",
): ServiceStatus => ({
  at: AT,
  overall: "degraded",
  webhooks,
  networks: Object.entries(levels).map(([network, [deposits, payouts]]) => ({
    network,
    deposits,
    payouts,
    readerLagS: 0,
    reasons: [],
  })),
});

describe("incidentChanges", () => {
  it("opens one per component not operational, escalates a worse one, closes those back to operational", () => {
    const s = status(
      {
        BTC: ["down", "operational"],
        ETH: ["degraded", "operational"],
        LTC: ["operational", "operational"],
        TRX: ["degraded", "degraded"],
      },
      "degraded",
    );
    const changes = incidentChanges(
      [
        { id: 1, component: "ETH", level: "degraded" },
        { id: 2, component: "LTC", level: "down" },
        { id: 3, component: "TRX", level: "down" },
        { id: 4, component: "DOGE", level: "degraded" },
      ],
      s,
    );
    expect(changes.open.map((o) => [o.component, o.level])).toEqual([
      ["BTC", "down"],
      ["webhooks", "degraded"],
    ]);
    expect(changes.open[0]?.summary).toBe("BTC: deposits down, payouts operational");
    // TRX was down and is degraded now: an open incident's level never falls.
    expect(changes.escalate).toEqual([]);
    expect(changes.close).toEqual([2, 4]);
  });

  it("escalates degraded to down", () => {
    const changes = incidentChanges(
      [{ id: 7, component: "BTC", level: "degraded" }],
      status({ BTC: ["operational", "down"] }),
    );
    expect(changes).toEqual({
      open: [],
      escalate: [{ id: 7, level: "down", summary: "BTC: deposits operational, payouts down" }],
      close: [],
    });
  });
});

describe("networkRefusals", () => {
  const s = status({
    BTC: ["down", "operational"],
    ETH: ["operational", "down"],
    LTC: ["degraded", "degraded"],
  });
  it("names the side whose network is down: deposits for from, payouts for to", () => {
    expect(networkRefusals(s, { from: "BTC", to: "ETH" }, AT)).toEqual([
      { code: "network_unavailable", side: "from", detail: expect.stringContaining("Deposits on BTC") },
      { code: "network_unavailable", side: "to", detail: expect.stringContaining("Payouts on ETH") },
    ]);
    expect(networkRefusals(s, { from: "ETH", to: "BTC" }, AT)).toEqual([]);
    expect(networkRefusals(s, { from: "LTC", to: "LTC" }, AT)).toEqual([]);
  });

  it("refuses nothing without a status, or with one older than ten minutes", () => {
    expect(networkRefusals(null, { from: "BTC", to: "ETH" }, AT)).toEqual([]);
    expect(networkRefusals(s, { from: "BTC", to: "ETH" }, AT + STATUS_TRUSTED_MS)).toHaveLength(2);
    expect(networkRefusals(s, { from: "BTC", to: "ETH" }, AT + STATUS_TRUSTED_MS + 1)).toEqual([]);
  });
});
