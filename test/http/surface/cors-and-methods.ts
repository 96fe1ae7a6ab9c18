import { describe, expect, it } from "vitest";
import { call, createPartner, expectError, setPrices } from "../../helpers";

const ORIGIN = "https://wallet.example";

describe("CORS", () => {
  it("public GETs answer any origin, without credentials, and expose the rate-limit headers", async () => {
    await setPrices();
    for (const path of [
      "/api/v1/currencies",
      "/api/v1/partner/rates?coin_from=BTC&coin_to=ETH",
      "/api/v1/icons/btc.svg",
      "/api/v1/openapi.json",
    ]) {
      const res = await call(path, { headers: { Origin: ORIGIN } });
      expect(res.status, path).toBe(200);
      expect(res.headers.get("access-control-allow-origin"), path).toBe("*");
      expect(res.headers.get("access-control-allow-credentials"), path).toBeNull();
      expect(res.headers.get("access-control-expose-headers"), path).toContain("RateLimit-Remaining");
      expect(res.headers.get("access-control-expose-headers"), path).toContain("RateLimit-Policy");
    }
  });

  it("a preflight for a public route is answered; one that asks to send a key header is not allowed", async () => {
    const pre = await call("/api/v1/partner/rates", {
      method: "OPTIONS",
      headers: { Origin: ORIGIN, "Access-Control-Request-Method": "GET" },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("*");
    expect(pre.headers.get("access-control-allow-methods")).toBe("GET,HEAD");
    const withKey = await call("/api/v1/partner/rates", {
      method: "OPTIONS",
      headers: {
        Origin: ORIGIN,
        "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "x-api-key",
      },
    });
    expect(withKey.headers.get("access-control-allow-headers") ?? "").not.toMatch(/x-api-key/i);
  });

  it("key-protected routes carry no CORS headers and answer no preflight", async () => {
    const p = await createPartner();
    const res = await call("/api/v1/partner/orders", {
      headers: { Origin: ORIGIN, Authorization: `Bearer ${p.key}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    const pre = await call("/api/v1/partner/orders", {
      method: "OPTIONS",
      headers: { Origin: ORIGIN, "Access-Control-Request-Method": "POST" },
    });
    expect(pre.headers.get("access-control-allow-origin")).toBeNull();
    await expectError(pre, 405, "method_not_allowed");
  });
});

describe("methods on key-protected paths", () => {
  it("an unsupported method is 405 with Allow, before any key is asked for", async () => {
    for (const [method, path, allow] of [
      ["PUT", "/api/v1/partner/orders", "GET, POST, HEAD"],
      ["DELETE", "/api/v1/partner/orders/0123456789", "GET, HEAD"],
      ["POST", "/api/v1/partner/rates", "GET, HEAD"],
      ["PATCH", "/api/v1/currencies", "GET, HEAD"],
    ] as const) {
      const res = await call(path, { method });
      await expectError(res, 405, "method_not_allowed");
      expect(res.headers.get("allow"), `${method} ${path}`).toBe(allow);
    }
  });

  it("a supported method without a key is still 401", async () => {
    await expectError(await call("/api/v1/partner/orders"), 401, "invalid_api_key");
    await expectError(await call("/api/v1/partner/orders/0123456789"), 401, "invalid_api_key");
  });
});
