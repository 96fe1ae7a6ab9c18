import { describe, expect, it } from "vitest";
import { validateForFamily } from "../../src/domain/addresses";
import {
  gravestListed,
  matchKey,
  parseSanctionsFile,
  type ScreeningCategory,
  type ScreenResult,
  screenLocally,
  TEST_LISTED,
  TEST_LISTING,
  withFinding,
} from "../../src/domain/screening";

const AT = "2026-11-29T00:00:00.000Z";
const TORNADO = "0x910Cbd523D972eb0a6f4cAe4618aD62622b39DbF";

describe("match keys", () => {
  it("EVM: one key whatever the case, on every EVM network", () => {
    const key = matchKey("ETH", TORNADO);
    expect(key).toBe(`evm:${TORNADO.toLowerCase()}`);
    expect(matchKey("BSC", TORNADO.toLowerCase())).toBe(key);
    expect(matchKey("arbitrum", TORNADO.toUpperCase().replace("0X", "0x"))).toBe(key);
  });

  it("BCH: a legacy address and its CashAddr, prefixed or not, are one key", () => {
    const cash = "bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a";
    expect(matchKey("BCH", "1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu")).toBe(`bch:${cash}`);
    expect(matchKey("BCH", cash.slice("bitcoincash:".length).toUpperCase())).toBe(`bch:${cash}`);
  });

  it("case-sensitive where the chain is (TRON base58); unknown network: no key", () => {
    expect(matchKey("TRX", "TJPZp3h26cfFoz7mzyxNofcNR7GGenKf8V")).not.toBe(
      matchKey("TRX", "tjpzp3h26cffoz7mzyxnofcnr7ggenkf8v"),
    );
    expect(matchKey("NOPE", TORNADO)).toBeNull();
  });
});

describe("test mode's listed addresses", () => {
  it("are valid addresses of their family, each listed under its category", () => {
    for (const t of TEST_LISTED) {
      expect(validateForFamily(t.family, t.address)).toMatchObject({ ok: true, address: t.address });
      const network = { evm: "ETH", btc: "BTC", tron: "TRX" }[t.family as "evm" | "btc" | "tron"];
      const r = screenLocally(
        { network, address: t.address },
        { listing: TEST_LISTING, version: "test" },
        new Map(),
        AT,
      );
      expect(r).toMatchObject({ result: "listed", categories: [t.category], list_version: "test" });
    }
  });
});

describe("screenLocally / withFinding", () => {
  const list = {
    listing: new Map([[`evm:${TORNADO.toLowerCase()}`, ["sanctions" as const]]]),
    version: "v1",
  };

  it("listed by the list and by an entry: both categories; clear otherwise; no list: unknown", () => {
    const entries = new Map([[`evm:${TORNADO.toLowerCase()}`, ["operator" as const]]]);
    expect(screenLocally({ network: "BASE", address: TORNADO }, list, entries, AT)).toEqual({
      network: "BASE",
      address: TORNADO,
      result: "listed",
      categories: ["sanctions", "operator"],
      list_version: "v1",
      checked_at: AT,
    });
    const other = "0x5C12ee0000000000000000000000000000005c12";
    expect(screenLocally({ network: "ETH", address: other }, list, new Map(), AT).result).toBe("clear");
    expect(
      screenLocally({ network: "ETH", address: other }, { listing: new Map(), version: null }, new Map(), AT)
        .result,
    ).toBe("unknown");
    // An operator's entry lists an address even before any sanctions list is loaded.
    expect(
      screenLocally({ network: "ETH", address: TORNADO }, { listing: new Map(), version: null }, entries, AT),
    ).toMatchObject({ result: "listed", categories: ["operator"], list_version: null });
  });

  it("an unknown finding makes clear unknown but never hides a listing", () => {
    const clear = screenLocally(
      { network: "ETH", address: "0x5C12ee0000000000000000000000000000005c12" },
      list,
      new Map(),
      AT,
    );
    expect(withFinding(clear, "unknown").result).toBe("unknown");
    const listed = withFinding(clear, ["risk"]);
    expect(withFinding(listed, "unknown")).toMatchObject({ result: "listed", categories: ["risk"] });
  });
});

describe("gravestListed (a deposit's several inputs)", () => {
  const result = (address: string, categories: ScreeningCategory[]): ScreenResult => ({
    network: "BTC",
    address,
    result: categories.length > 0 ? "listed" : "clear",
    categories,
    list_version: "v1",
    checked_at: AT,
  });

  it("the first input listed under the gravest category decides; none listed: null", () => {
    const inputs = [
      result("a", []),
      result("b", ["risk"]),
      result("c", ["operator", "risk"]),
      result("d", ["sanctions"]),
      result("e", ["sanctions"]),
    ];
    expect(gravestListed(inputs)).toEqual({ address: "d", category: "sanctions" });
    expect(gravestListed(inputs.slice(0, 3))).toEqual({ address: "c", category: "operator" });
    expect(gravestListed([result("a", []), { ...result("b", []), result: "unknown" }])).toBeNull();
  });
});

describe("parseSanctionsFile (the mirror's one-address-per-line TXT)", () => {
  it("parses the documented format into family keys", () => {
    const body = `${TORNADO}\n0x722122dF12D4e14e13Ac3b6895a86e84145b6967\n`;
    expect(parseSanctionsFile("ETH", body)).toEqual({
      ok: true,
      keys: [`evm:${TORNADO.toLowerCase()}`, "evm:0x722122df12d4e14e13ac3b6895a86e84145b6967"].sort(),
    });
    // USDT's file holds TRON and EVM addresses.
    const usdt = parseSanctionsFile("USDT", `TJPZp3h26cfFoz7mzyxNofcNR7GGenKf8V\n${TORNADO}\n`);
    expect(usdt).toEqual({
      ok: true,
      keys: [`evm:${TORNADO.toLowerCase()}`, "tron:TJPZp3h26cfFoz7mzyxNofcNR7GGenKf8V"],
    });
  });

  it("refuses an empty file, an HTML page, and a file mostly of non-addresses", () => {
    expect(parseSanctionsFile("ETH", "\n \n")).toEqual({ ok: false, reason: "empty" });
    expect(parseSanctionsFile("ETH", "<html><body>rate limited</body></html>").ok).toBe(false);
    expect(
      parseSanctionsFile(
        "XBT",
        "0x910Cbd523D972eb0a6f4cAe4618aD62622b39DbF\n0x910Cbd523D972eb0a6f4cAe4618aD62622b39DbA\n",
      ).ok,
    ).toBe(false);
  });
});
