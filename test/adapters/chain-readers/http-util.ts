import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import {
  baseUnitsToDecimal,
  ChainReaderError,
  createChainHttpClient,
} from "../../../src/adapters/chain/http-util";
import { confirmations } from "../../../src/adapters/chain/types";
import { checkBaseUrl } from "../../../src/adapters/http-client";
import { createMockNetwork } from "../../support/msw";

describe("baseUnitsToDecimal", () => {
  it("moves the decimal point exactly", () => {
    expect(baseUnitsToDecimal(12_345_678, 8)).toBe("0.12345678");
    expect(baseUnitsToDecimal("1500000", 6)).toBe("1.5");
    expect(baseUnitsToDecimal(1_500_000_000_000_000_000n, 18)).toBe("1.5");
    expect(baseUnitsToDecimal(1n, 18)).toBe("0.000000000000000001");
    expect(baseUnitsToDecimal("100000000", 8)).toBe("1");
    expect(baseUnitsToDecimal("000100", 2)).toBe("1");
    expect(baseUnitsToDecimal(0, 8)).toBe("0");
    expect(baseUnitsToDecimal("42", 0)).toBe("42");
    // 31 significant digits: beyond a double, still exact.
    expect(baseUnitsToDecimal(10n ** 30n + 1n, 18)).toBe("1000000000000.000000000000000001");
    expect(baseUnitsToDecimal((2n ** 64n).toString(), 6)).toBe("18446744073709.551616");
  });

  it("refuses non-integers, negatives, out-of-range results and bad decimals", () => {
    for (const bad of ["1.5", "1e6", "", "-1", " 1", "0x10"])
      expect(() => baseUnitsToDecimal(bad, 6)).toThrow(RangeError);
    expect(() => baseUnitsToDecimal(-1n, 6)).toThrow(RangeError);
    expect(() => baseUnitsToDecimal(0.5, 6)).toThrow(RangeError);
    expect(() => baseUnitsToDecimal(2 ** 60, 6)).toThrow(RangeError);
    expect(() => baseUnitsToDecimal(2n ** 256n - 1n, 18)).toThrow(RangeError);
    expect(() => baseUnitsToDecimal(1n, 31)).toThrow(RangeError);
    expect(() => baseUnitsToDecimal(1n, 1.5)).toThrow(RangeError);
  });
});

describe("checkBaseUrl", () => {
  it("strips trailing slashes for REST bases, keeps JSON-RPC URLs as given", () => {
    expect(checkBaseUrl("x", "https://mempool.space/api/")).toBe("https://mempool.space/api");
    expect(checkBaseUrl("x", "https://node.example/abc123/", true)).toBe("https://node.example/abc123/");
    expect(() => checkBaseUrl("x", "not a url")).toThrow(TypeError);
    expect(() => checkBaseUrl("x", "https://a.example/#x")).toThrow(TypeError);
  });
});

describe("createChainHttpClient", () => {
  it("sends extra headers and JSON bodies; maps failures to ChainReaderError kinds", async () => {
    const net = createMockNetwork(
      http.post("https://api.example/ok", () => HttpResponse.json({ ok: true })),
      http.get("https://api.example/v3/secret-key", () => new HttpResponse("", { status: 503 })),
      http.get("https://api.example/html", () => HttpResponse.text("<html>")),
    );
    const client = createChainHttpClient("test", { fetch: net.fetch, headers: { "X-Key": "k" } });
    expect(await client.postJson("https://api.example/ok", { a: 1 })).toEqual({ ok: true });
    expect(net.requests[0]!.body).toBe('{"a":1}');
    expect(net.requests[0]!.headers.get("x-key")).toBe("k");
    const bad = await client.getJson("https://api.example/v3/secret-key").catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ChainReaderError);
    expect(bad).toMatchObject({ kind: "http_status", status: 503, source: "test" });
    // The message reaches logs; a provider key in the path must not.
    expect((bad as Error).message).toBe("test: HTTP 503 from GET https://api.example");
    await expect(client.getJson("https://api.example/html")).rejects.toMatchObject({ kind: "invalid_body" });
    await expect(client.getJson("https://api.example/none")).rejects.toMatchObject({ kind: "network" });
    expect(net.unhandled).toEqual(["GET https://api.example/none"]);
  });
});

describe("confirmations", () => {
  it("is 0 in the mempool, 1 in the tip block, never negative", () => {
    expect(confirmations({ blockHeight: null }, 100)).toBe(0);
    expect(confirmations({ blockHeight: 100 }, 100)).toBe(1);
    expect(confirmations({ blockHeight: 95 }, 100)).toBe(6);
    // A reader whose tip lags the block it saw the transfer in.
    expect(confirmations({ blockHeight: 101 }, 100)).toBe(0);
  });
});
