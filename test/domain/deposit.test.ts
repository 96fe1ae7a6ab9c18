import { describe, expect, it } from "vitest";
import { depositScheme, realPayoutRefusal } from "../../src/domain/deposit";

const DEV_XRP = "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh";

describe("realPayoutRefusal", () => {
  const xrp = depositScheme("XRP", true, { xpubs: {}, addresses: { XRP: DEV_XRP } });

  it("says nothing while payouts are simulated, whatever the chain or key", () => {
    expect(realPayoutRefusal("XRP", xrp, "simulated", "simulated")).toBeNull();
    expect(realPayoutRefusal("XRP", xrp, "simulated", undefined)).toBeNull();
  });

  it("with real payouts: refuses SimChain deposits, unknown modes and the dev memo address", () => {
    expect(realPayoutRefusal("XRP", xrp, "http", "simulated")).toMatch(/simulated chain/);
    expect(realPayoutRefusal("XRP", xrp, "http", undefined)).toMatch(/simulated chain/);
    expect(realPayoutRefusal("XRP", xrp, "http", "esplora")).toMatch(/public dev key/);
    const own = depositScheme("XRP", true, { xpubs: {}, addresses: { XRP: "rOperatorOwnAddress" } });
    expect(realPayoutRefusal("XRP", own, "http", "esplora")).toBeNull();
  });
});
