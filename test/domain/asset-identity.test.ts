import { describe, expect, it } from "vitest";
import { assetIds, parseAssetId } from "../../src/domain/asset-identity";
import { type CurrencyRow, publicCurrencies } from "../../src/domain/currency";

const USDT_BSC = "0x55d398326f99059fF775485246999027B3197955";

const row = (r: Partial<CurrencyRow>): CurrencyRow => ({
  id: "6f1c1f2e-0c1a-4b7e-9a01-000000000005",
  coin: "USDT",
  network: "BSC",
  name: "Tether USD (BEP-20)",
  is_active: 1,
  is_deposit_enabled: 1,
  is_withdraw_enabled: 1,
  min_amount: "10",
  max_amount: "500000",
  min_confirmations: 15,
  decimals: 18,
  is_memo: 0,
  withdraw_fee: "0.5",
  contract_address: USDT_BSC,
  explorer_tx_url: null,
  explorer_address_url: null,
  sort_order: 0,
  ...r,
});

describe("asset identity", () => {
  it("answers an EVM contract stored in any case in EIP-55 case, in contract_address and caip19", () => {
    const [c] = publicCurrencies([row({ contract_address: USDT_BSC.toLowerCase() })], {});
    expect(c).toMatchObject({
      contract_address: USDT_BSC,
      caip2: "eip155:56",
      caip19: `eip155:56/erc20:${USDT_BSC}`,
    });
    // Case is part of a TRON address: as stored.
    expect(assetIds("TRX", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t").caip19).toBe(
      "tron:0x2b6653dc/trc20:TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
    );
  });

  it("has no ids for a network the table does not know, or a token on a network without a token namespace", () => {
    expect(assetIds("DASH", null)).toEqual({ caip2: null, caip19: null });
    expect(assetIds("XRP", "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh")).toEqual({ caip2: null, caip19: null });
  });

  it("parses a CAIP-19 id back to the network and token it names, and says why not", () => {
    expect(parseAssetId(`eip155:56/erc20:${USDT_BSC.toLowerCase()}`)).toEqual({
      network: "BSC",
      token: USDT_BSC.toLowerCase(),
    });
    expect(parseAssetId("xrpl:0/slip44:144")).toEqual({ network: "XRP", token: null });
    expect(parseAssetId("tvm:-239/slip44:607")).toEqual({ network: "TON", token: null });
    expect(parseAssetId("eip155:1/slip44:714")).toEqual({
      problem: "slip44:714 is not the native coin of eip155:1 (slip44:60).",
    });
    expect(parseAssetId("eip155:1/erc20:0xdAC17F958D2ee523a2206206994597C13D831ec7/5")).toHaveProperty(
      "problem",
    );
    expect(parseAssetId("cosmos:cosmoshub-4/slip44:118")).toEqual({
      problem: "No network with CAIP-2 id cosmos:cosmoshub-4 is offered.",
    });
  });
});
