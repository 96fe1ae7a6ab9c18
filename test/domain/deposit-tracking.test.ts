import { describe, expect, it } from "vitest";
import {
  byArrival,
  confirmedOthers,
  confirmStep,
  freshExtras,
  nextPoll,
  waitingStep,
} from "../../src/domain/deposit-tracking";

const t = (txid: string, index: number, amount = "1", blockHeight: number | null = null) => ({
  txid,
  index,
  amount,
  blockHeight,
});

describe("nextPoll", () => {
  it("doubles while nothing changes, up to 8×, and starts over after a change", () => {
    let idle = 0;
    const gaps: number[] = [];
    for (let i = 0; i < 5; i++) {
      const next = nextPoll(1_000, idle, false, 2_000);
      gaps.push(next.at - 1_000);
      idle = next.idle;
    }
    expect(gaps).toEqual([4_000, 8_000, 16_000, 16_000, 16_000]);
    expect(nextPoll(1_000, idle, true, 2_000)).toEqual({ idle: 0, at: 3_000 });
  });

  it("never sooner than the late watch's minimum", () => {
    expect(nextPoll(0, 0, true, 2_000, 60_000).at).toBe(60_000);
    expect(nextPoll(0, 3, false, 15_000, 60_000).at).toBe(120_000);
  });
});

describe("byArrival", () => {
  it("mined first by height, then the mempool; ties by txid and index", () => {
    const sorted = byArrival([t("c", 0), t("b", 1, "1", 7), t("a", 0, "1", 9), t("b", 0, "1", 7)]);
    expect(sorted.map((x) => `${x.txid}:${x.index}`)).toEqual(["b:0", "b:1", "a:0", "c:0"]);
  });
});

describe("waitingStep", () => {
  const expiresAt = 100_000;
  const grace = 600_000;
  it("nothing listed: expire only once the deadline has passed", () => {
    expect(waitingStep([], expiresAt - 1, expiresAt, grace)).toEqual({ kind: "nothing", expire: false });
    expect(waitingStep([], expiresAt, expiresAt, grace)).toEqual({ kind: "nothing", expire: true });
  });

  it("the first transfer drives the order, even just after the deadline", () => {
    const first = t("a", 0);
    expect(waitingStep([first, t("b", 0)], expiresAt + grace, expiresAt, grace)).toEqual({
      kind: "seen",
      deposit: first,
    });
  });

  it("first seen longer than the grace after the deadline: late", () => {
    expect(waitingStep([t("a", 0)], expiresAt + grace + 1, expiresAt, grace).kind).toBe("late");
  });
});

describe("confirmStep", () => {
  it("confirming until the required count, saying whether the count moved", () => {
    expect(confirmStep(1, 2, 0)).toEqual({ kind: "confirming", confirmations: 1, changed: true });
    expect(confirmStep(1, 2, 1)).toEqual({ kind: "confirming", confirmations: 1, changed: false });
    expect(confirmStep(2, 2, 1)).toEqual({ kind: "confirmed", confirmations: 2 });
    expect(confirmStep(5, 2, null)).toEqual({ kind: "confirmed", confirmations: 5 });
  });
});

describe("freshExtras", () => {
  it("every transfer but the order's own and those logged already", () => {
    const listing = [t("a", 0), t("a", 1), t("b", 0), t("c", 0)];
    expect(freshExtras(listing, { txid: "a", index: 0 }, new Set(["b:0"]))).toEqual([t("a", 1), t("c", 0)]);
    expect(freshExtras(listing, null, new Set())).toEqual(listing);
  });
});

describe("confirmedOthers", () => {
  it("the other transfers with enough confirmations", () => {
    const listing = [t("a", 0, "1", 1), t("b", 0, "1", 5), t("c", 0)];
    const confs = (x: { blockHeight: number | null }) => (x.blockHeight === null ? 0 : 6 - x.blockHeight);
    expect(confirmedOthers(listing, { txid: "a", index: 0 }, confs, 1)).toEqual([t("b", 0, "1", 5)]);
    expect(confirmedOthers(listing, { txid: "b", index: 0 }, confs, 2)).toEqual([t("a", 0, "1", 1)]);
  });
});
