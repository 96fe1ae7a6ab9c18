import { describe, expect, it } from "vitest";
import { addressFamily, validateTag } from "../../src/domain/addresses";
import { chainIdOf, networkOfChainId } from "../../src/domain/asset-identity";
import { explorerLinks } from "../../src/domain/explorer-links";
import {
  NETWORK_CODES,
  NETWORKS,
  nativeScanBlocks,
  networkFacts,
  venueRefusals,
} from "../../src/domain/networks";

describe("the network table", () => {
  it("gives every network one CAIP-2 id, and EVM networks one EIP-155 chain id that is it", () => {
    const caip2 = NETWORK_CODES.map((n) => NETWORKS[n].caip2);
    expect(new Set(caip2).size).toBe(caip2.length);
    for (const code of NETWORK_CODES) {
      const n = NETWORKS[code];
      expect(n.caip2, code).toMatch(/^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/);
      if (n.family === "evm") {
        expect(n.caip2).toBe(`eip155:${n.chainId}`);
        expect(networkOfChainId(n.chainId as number)).toBe(code);
        expect(n.testnet.chainId, code).not.toBeNull();
      } else expect(n.chainId, code).toBeNull();
    }
  });

  it("is what the address rules, chain ids and tags read", () => {
    expect(addressFamily("BSC")).toBe("evm");
    expect(addressFamily("bsc")).toBeUndefined();
    expect(addressFamily("toString")).toBeUndefined();
    expect(networkFacts("__proto__")).toBeUndefined();
    expect(chainIdOf("BSC")).toBe(56);
    expect(chainIdOf("TRX")).toBeNull();
    expect(networkOfChainId(11155111)).toBeUndefined();
    expect(validateTag("XRP", "12345")).toEqual({ ok: true, tag: "12345" });
    expect(validateTag("XRP", "order 7").ok).toBe(false);
    expect(validateTag("XLM", "any text")).toEqual({ ok: true, tag: "any text" });
    expect(validateTag("BTC", "1").ok).toBe(false);
  });

  it("gives every network its venue code, and refuses a payout network without one", () => {
    for (const code of NETWORK_CODES) expect(NETWORKS[code].venue, code).toMatch(/^[A-Z]+$/);
    expect(NETWORKS.POLYGON.venue).toBe("MATIC");
    expect(venueRefusals("POLYGON")).toEqual([]);
    expect(venueRefusals("DASH")).toMatchObject([{ code: "venue_network_unsupported", side: "to" }]);
  });

  it("names a tag kind exactly on the memo networks", () => {
    const memo = NETWORK_CODES.filter((n) => NETWORKS[n].tag !== null);
    expect(memo).toEqual(["XRP", "XLM", "TON"]);
  });
});

describe("a test order's explorer link on each EVM chain", () => {
  const ADDRESS = "0x9cBaE97Fb54f32820DE834093691FF27A83D5531";
  const link = (network: string) =>
    explorerLinks(
      {
        livemode: false,
        network_from: network,
        deposit_address: ADDRESS,
        recipient_address: ADDRESS,
        deposit_txid: null,
        payout_txid: null,
        refund_txid: null,
      },
      undefined,
      undefined,
      { depositChainSimulated: true, payoutsSimulated: true },
    ).deposit_address;

  it("is its testnet's explorer, none where the testnet lists none (ETC's Mordor)", () => {
    expect(link("ARBITRUM")).toBe(`https://sepolia.arbiscan.io/address/${ADDRESS}`);
    expect(link("BASE")).toBe(`https://base-sepolia.blockscout.com/address/${ADDRESS}`);
    expect(link("AVAXC")).toBe(`https://testnet.snowtrace.io/address/${ADDRESS}`);
    expect(link("ETC")).toBeNull();
  });
});

describe("the EVM native-coin scan window", () => {
  it("covers the longest gap between two polls at the network's block time, never fewer than the floor", () => {
    // 8 polls of 15 s = 120 s: Arbitrum's 0.25 s blocks need 480, Ethereum's 12 s blocks the floor.
    expect(nativeScanBlocks({ blockSeconds: 0.25 }, 15, 20)).toBe(480);
    expect(nativeScanBlocks({ blockSeconds: 12 }, 15, 20)).toBe(20);
    // At least a minute, however fast the polls.
    expect(nativeScanBlocks({ blockSeconds: 0.75 }, 2, 20)).toBe(80);
    expect(nativeScanBlocks({ blockSeconds: null }, 15, 20)).toBe(20);
  });
});
