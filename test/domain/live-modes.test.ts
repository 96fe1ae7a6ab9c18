import { describe, expect, it } from "vitest";
import { liveModeProblems } from "../../src/domain/live-modes";

const all = { CHAIN_MODE: "simulated", EXCHANGE_MODE: "simulated", PAYOUT_MODE: "simulated" } as const;

describe("liveModeProblems", () => {
  it("all simulated, or all real, is fine", () => {
    expect(liveModeProblems(all)).toEqual([]);
    expect(
      liveModeProblems({ CHAIN_MODE: "BTC:esplora", EXCHANGE_MODE: "binance", PAYOUT_MODE: "http" }),
    ).toEqual([]);
    // A real venue with simulated payouts and deposits: the venue-testnet step of going live.
    expect(liveModeProblems({ ...all, EXCHANGE_MODE: "binance" })).toEqual([]);
  });

  it("real payouts need a real venue", () => {
    expect(liveModeProblems({ ...all, PAYOUT_MODE: "http" })).toEqual([
      "payouts are real (PAYOUT_MODE=http) but the venue is simulated (EXCHANGE_MODE=simulated)",
    ]);
  });

  it("a real reader in any form of CHAIN_MODE needs real payouts", () => {
    for (const setting of ["esplora", "BTC:esplora", "*:evm", "BTC:simulated, ETH:evm"])
      expect(liveModeProblems({ ...all, CHAIN_MODE: setting }), setting).toHaveLength(1);
    for (const setting of ["simulated", "*:simulated", "BTC:simulated,ETH:simulated", "BTC:nonsense"])
      expect(liveModeProblems({ ...all, CHAIN_MODE: setting }), setting).toEqual([]);
  });
});
