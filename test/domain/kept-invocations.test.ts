import { describe, expect, it } from "vitest";
import { keptInFull } from "../../src/domain/kept-invocations";

const fetched = (method: string, path: string, status: number, outcome = "ok") =>
  ({
    outcome,
    exceptions: [],
    event: { request: { method, url: `https://api.example.com${path}`, headers: {} }, response: { status } },
  }) as unknown as TraceItem;

describe("what the Tail Worker keeps in full", () => {
  it("every 5xx, exception and refused creation; not successes or other 4xx", () => {
    expect(keptInFull(fetched("GET", "/api/v1/currencies", 503))).toBe(true);
    expect(keptInFull(fetched("GET", "/api/v1/currencies", 200, "exceededCpu"))).toBe(true);
    expect(keptInFull(fetched("POST", "/api/v1/partner/orders", 400))).toBe(true);
    expect(keptInFull(fetched("POST", "/api/v1/partner/orders", 201))).toBe(false);
    expect(keptInFull(fetched("GET", "/api/v1/partner/orders", 400))).toBe(false);
    expect(keptInFull(fetched("GET", "/api/v1/partner/orders/x", 404))).toBe(false);
    expect(
      keptInFull({
        outcome: "ok",
        exceptions: [],
        event: { scheduledTime: 1, cron: "* * * * *" },
      } as unknown as TraceItem),
    ).toBe(false);
  });
});
