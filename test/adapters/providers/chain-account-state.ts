import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import {
  accountStateReaderFor,
  createHorizonAccountState,
  createRippledAccountState,
  createToncenterAccountState,
} from "../../../src/adapters/chain/account-state";
import type { Config } from "../../../src/config";
import { createMockNetwork } from "../../support/msw";

const XRP = "rN7n7otQDd6FczFgLdSqtcsAUxDkw6fzRH";
const XLM = "GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN";
const TON = "UQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqEBI";

describe("account state readers", () => {
  it("rippled: an error other than actNotFound, or data for another account, is no answer", async () => {
    const net = createMockNetwork(
      http.post("https://rippled.test/", () =>
        HttpResponse.json({ result: { status: "error", error: "tooBusy", error_code: 9 } }),
      ),
    );
    const reader = createRippledAccountState({ baseUrl: "https://rippled.test/", fetch: net.fetch });
    await expect(reader.state(XRP)).rejects.toThrow(/tooBusy/);
    net.use(
      http.post("https://rippled.test/", () =>
        HttpResponse.json({ result: { status: "success", account_data: { Account: "rOther" } } }),
      ),
    );
    await expect(reader.state(XRP)).rejects.toThrow(/account's data/);
  });

  it("Horizon: 200 active, 404 missing, 5xx an error", async () => {
    const net = createMockNetwork(
      http.get("https://horizon.test/accounts/:id", () => HttpResponse.json({ account_id: XLM })),
    );
    const reader = createHorizonAccountState({ baseUrl: "https://horizon.test", fetch: net.fetch });
    expect(await reader.state(XLM)).toBe("active");
    net.use(http.get("https://horizon.test/accounts/:id", () => new HttpResponse(null, { status: 404 })));
    expect(await reader.state(XLM)).toBe("missing");
    net.use(http.get("https://horizon.test/accounts/:id", () => new HttpResponse(null, { status: 502 })));
    await expect(reader.state(XLM)).rejects.toThrow();
  });

  it("toncenter: uninit / nonexist / the v2 'uninitialized' are missing, frozen unknown; the key is sent", async () => {
    let status = "uninit";
    const net = createMockNetwork(
      http.get("https://toncenter.test/api/v3/addressInformation", () => HttpResponse.json({ status })),
    );
    const reader = createToncenterAccountState({
      baseUrl: "https://toncenter.test/api/v3",
      fetch: net.fetch,
      apiKey: "key-1",
    });
    const seen: Record<string, string> = {};
    for (status of ["uninit", "nonexist", "uninitialized", "active", "frozen"])
      seen[status] = await reader.state(TON);
    expect(seen).toEqual({
      uninit: "missing",
      nonexist: "missing",
      uninitialized: "missing",
      active: "active",
      frozen: "unknown",
    });
    expect(net.requests[0]?.url).toBe(
      `https://toncenter.test/api/v3/addressInformation?address=${TON}&use_v2=false`,
    );
    expect(net.requests[0]?.headers.get("x-api-key")).toBe("key-1");
  });

  it("only a configured real reader of an account chain is asked", () => {
    const config = (mode: string, urls: Record<string, string>) =>
      ({ CHAIN_MODE: mode, chain: { urls, apiKeys: {}, scanBlocks: {} } }) as unknown as Config;
    expect(accountStateReaderFor(config("simulated", {}), "XRP")).toBeNull();
    expect(accountStateReaderFor(config("XRP:rippled", {}), "XRP")).toBeNull();
    expect(accountStateReaderFor(config("BTC:esplora", { BTC: "https://e.test" }), "BTC")).toBeNull();
    expect(accountStateReaderFor(config("XRP:rippled", { XRP: "https://r.test/" }), "XRP")).not.toBeNull();
  });
});
