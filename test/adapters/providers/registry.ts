import { describe, expect, it, vi } from "vitest";
import { AdapterConfigError, chainReaderFor } from "../../../src/adapters/registry";
import { getConfig } from "../../../src/config";

const config = (vars: Record<string, string>) => getConfig(vars as unknown as Env);

describe("chainReaderFor", () => {
  it("builds the reader CHAIN_MODE names, at CHAIN_URL_<NETWORK>, with the header key where there is one", async () => {
    const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async () => Response.json({}));
    try {
      const c = config({
        CHAIN_MODE: "DOGE:blockbook,TON:toncenter,XRP:rippled,XLM:horizon,SOL:solana",
        CHAIN_URL_DOGE: "https://doge.test",
        CHAIN_API_KEY_DOGE: "bb-key",
        CHAIN_URL_TON: "https://ton.test/api/v3",
        CHAIN_API_KEY_TON: "ton-key",
        CHAIN_URL_XRP: "https://xrp.test/",
        CHAIN_URL_XLM: "https://xlm.test",
        CHAIN_URL_SOL: "https://sol.test/",
      });
      for (const network of ["DOGE", "TON", "XRP", "XLM", "SOL"]) {
        await chainReaderFor({} as Env, c, network)
          .tipHeight()
          .catch(() => undefined); // the empty bodies are refused; only the requests matter here
      }
      const requests = spy.mock.calls.map(
        ([url, init]) => [String(url), new Headers(init?.headers)] as const,
      );
      expect(requests.map(([url]) => url)).toEqual([
        "https://doge.test/api",
        "https://ton.test/api/v3/masterchainInfo",
        "https://xrp.test/",
        "https://xlm.test/",
        "https://sol.test/",
      ]);
      expect(requests[0]?.[1].get("api-key")).toBe("bb-key");
      expect(requests[1]?.[1].get("x-api-key")).toBe("ton-key");
    } finally {
      spy.mockRestore();
    }
  });

  it("refuses a mode that does not read the network, and a missing URL", () => {
    const c = config({ CHAIN_MODE: "DOGE:esplora,XRP:rippled", CHAIN_URL_DOGE: "https://doge.test" });
    expect(() => chainReaderFor({} as Env, c, "DOGE")).toThrow(AdapterConfigError);
    expect(() => chainReaderFor({} as Env, c, "XRP")).toThrow(/CHAIN_URL_XRP/);
  });
});
