import { describe, expect, it } from "vitest";
import { liveModeProblems } from "../../src/domain/live-modes";

const all = {
  CHAIN_MODE: "simulated",
  EXCHANGE_MODE: "simulated",
  PAYOUT_MODE: "simulated",
  CABINET_ORIGIN: "http://localhost:8787",
} as const;
const PUBLIC = "https://api.example.com";

describe("liveModeProblems", () => {
  it("all simulated, or all real, is fine", () => {
    expect(liveModeProblems(all)).toEqual([]);
    expect(
      liveModeProblems({
        CHAIN_MODE: "BTC:esplora",
        EXCHANGE_MODE: "binance",
        PAYOUT_MODE: "http",
        CABINET_ORIGIN: PUBLIC,
      }),
    ).toEqual([]);
    // A real venue with simulated payouts and deposits: the venue-testnet step of going live.
    expect(liveModeProblems({ ...all, EXCHANGE_MODE: "binance" })).toEqual([]);
  });

  it("real payouts need a real venue", () => {
    expect(liveModeProblems({ ...all, PAYOUT_MODE: "http", CABINET_ORIGIN: PUBLIC })).toEqual([
      "payouts are real (PAYOUT_MODE=http) but the venue is simulated (EXCHANGE_MODE=simulated)",
    ]);
  });

  it("real payouts need the cabinet's public https origin, not the local default", () => {
    const live = { ...all, EXCHANGE_MODE: "binance", PAYOUT_MODE: "http" } as const;
    for (const origin of [
      "http://localhost:8787",
      "https://localhost:8787",
      "https://127.0.0.1",
      "https://[::1]:8443",
      "https://cabinet.localhost",
      "http://api.example.com",
    ])
      expect(liveModeProblems({ ...live, CABINET_ORIGIN: origin }), origin).toEqual([
        `payouts are real (PAYOUT_MODE=http) but the cabinet's origin is ${origin} (CABINET_ORIGIN): set the public https origin`,
      ]);
    expect(liveModeProblems({ ...live, CABINET_ORIGIN: PUBLIC })).toEqual([]);
    // Simulated payouts (dev, the venue-testnet step) keep the local default.
    expect(liveModeProblems({ ...all, EXCHANGE_MODE: "binance" })).toEqual([]);
  });

  it("a real reader in any form of CHAIN_MODE needs real payouts", () => {
    for (const setting of ["esplora", "BTC:esplora", "*:evm", "BTC:simulated, ETH:evm"])
      expect(liveModeProblems({ ...all, CHAIN_MODE: setting }), setting).toHaveLength(1);
    for (const setting of ["simulated", "*:simulated", "BTC:simulated,ETH:simulated", "BTC:nonsense"])
      expect(liveModeProblems({ ...all, CHAIN_MODE: setting }), setting).toEqual([]);
  });
});
