import { describe, expect, it } from "vitest";
import { chooseDeposit, depositScheme, findDeposit, realPayoutRefusal } from "../../src/domain/deposit";

const DEV_XRP = "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh";

describe("realPayoutRefusal", () => {
  const xrp = depositScheme("XRP", true, { xpubs: {}, addresses: { XRP: DEV_XRP } });

  it("with simulated payouts and the dev key: says nothing, whatever the chain mode", () => {
    expect(realPayoutRefusal("XRP", xrp, "simulated", "simulated")).toBeNull();
    expect(realPayoutRefusal("XRP", xrp, "simulated", "bogus")).toBeNull();
  });

  it("a real deposit key read only by SimChain is refused whatever the payout mode (coins nobody would see)", () => {
    const own = depositScheme("XRP", true, { xpubs: {}, addresses: { XRP: "rOperatorOwnAddress" } });
    expect(realPayoutRefusal("XRP", own, "simulated", "simulated")).toMatch(/key is real .* simulated chain/);
    expect(realPayoutRefusal("XRP", own, "simulated", "BTC:esplora,*:simulated")).toMatch(/simulated chain/);
    expect(realPayoutRefusal("XRP", own, "simulated", "XRP:rippled,*:simulated")).toBeNull();
    const btc = depositScheme("BTC", false, { xpubs: { BTC: "xpubOperatorOwn" }, addresses: {} });
    expect(realPayoutRefusal("BTC", btc, "simulated", "simulated")).toMatch(/simulated chain/);
    // A pool cannot be told apart from a dev one: only real payouts decide for it.
    const pool = depositScheme("SOL", false, { xpubs: {}, addresses: {} });
    expect(realPayoutRefusal("SOL", pool, "simulated", "simulated")).toBeNull();
  });

  it("with real payouts: refuses SimChain deposits, unknown modes and the dev memo address", () => {
    expect(realPayoutRefusal("XRP", xrp, "http", "simulated")).toMatch(/simulated chain/);
    expect(realPayoutRefusal("XRP", xrp, "http", "bogus")).toMatch(/simulated chain/);
    expect(realPayoutRefusal("XRP", xrp, "http", "XRP:rippled")).toMatch(/public dev key/);
    const own = depositScheme("XRP", true, { xpubs: {}, addresses: { XRP: "rOperatorOwnAddress" } });
    expect(realPayoutRefusal("XRP", own, "http", "XRP:rippled")).toBeNull();
    const doge = depositScheme("DOGE", false, { xpubs: { DOGE: "xpub-of-the-operator" }, addresses: {} });
    expect(realPayoutRefusal("DOGE", doge, "http", "DOGE:blockbook")).toBeNull();
  });

  it("with real payouts: refuses a mode that does not read the network's chain", () => {
    const doge = depositScheme("DOGE", false, { xpubs: { DOGE: "xpub-of-the-operator" }, addresses: {} });
    expect(realPayoutRefusal("DOGE", doge, "http", "DOGE:esplora")).toMatch(
      /esplora for DOGE, which does not read/,
    );
    expect(realPayoutRefusal("DOGE", doge, "http", "evm")).toMatch(/does not read/);
    const btc = depositScheme("BTC", false, { xpubs: { BTC: "xpub-of-the-operator" }, addresses: {} });
    expect(realPayoutRefusal("BTC", btc, "http", "BTC:blockbook")).toBeNull();
  });
});

describe("findDeposit", () => {
  const t = (txid: string, index: number, amount: string) => ({ txid, index, amount });
  const ours = t("aa", 5, "100");

  it("the same txid and index", () => {
    expect(findDeposit([t("bb", 5, "100"), t("aa", 5, "100")], ours, new Set())).toEqual(t("aa", 5, "100"));
  });

  it("re-mined under another log index: the same txid and amount (any notation)", () => {
    expect(findDeposit([t("aa", 9, "100.0")], ours, new Set())).toEqual(t("aa", 9, "100.0"));
  });

  it("not another amount of that transaction, nor one logged as an extra deposit", () => {
    expect(findDeposit([t("aa", 9, "50")], ours, new Set())).toBeUndefined();
    expect(findDeposit([t("aa", 9, "100")], ours, new Set(["aa:9"]))).toBeUndefined();
    expect(findDeposit([t("bb", 9, "100")], ours, new Set())).toBeUndefined();
  });
});

describe("chooseDeposit", () => {
  const judge = (amount: number) =>
    amount >= 10 ? { acceptable: true } : { acceptable: false, reason: "small" };
  it("the first acceptable deposit, earliest first; else the first with its verdict", () => {
    expect(chooseDeposit([1, 20, 30], judge)).toEqual({ deposit: 20, verdict: { acceptable: true } });
    expect(chooseDeposit([15, 20], judge)).toEqual({ deposit: 15, verdict: { acceptable: true } });
    expect(chooseDeposit([1, 2], judge)).toEqual({
      deposit: 1,
      verdict: { acceptable: false, reason: "small" },
    });
    expect(chooseDeposit([], judge)).toBeNull();
  });
});
