import { describe, expect, it } from "vitest";
import {
  availability,
  CREATE_ROUTE,
  LATENCY_BOUNDS_MS,
  latencyBucket,
  monthDays,
  OBJECTIVES,
  ORDER_READ_ROUTE,
  objectives,
  percentileMs,
  routeLevels,
  sloKeptFrom,
} from "../../src/domain/slo";

/** A histogram with `n` requests at each given latency. */
function histogram(latencies: Record<number, number>): number[] {
  const h = LATENCY_BOUNDS_MS.map(() => 0);
  for (const [ms, n] of Object.entries(latencies)) h[latencyBucket(Number(ms))]! += n;
  return h;
}

describe("service-level math", () => {
  it("buckets a latency by the first upper bound it does not exceed", () => {
    expect([0, 1, 1.5, 7, 8, 1_000, 1_001, 30_001].map(latencyBucket)).toEqual([0, 0, 1, 4, 5, 17, 18, 24]);
  });

  it("availability is the non-5xx share; none when nothing was asked", () => {
    expect(availability(10_000, 7)).toBe(0.9993);
    expect(availability(0, 0)).toBeNull();
  });

  it("percentiles by nearest rank, reported as the bucket's upper bound", () => {
    // 100 requests: 90 at 10 ms, 5 at 200 ms, 4 at 700 ms, 1 at 40 s.
    const h = histogram({ 10: 90, 200: 5, 700: 4, 40000: 1 });
    expect(percentileMs(h, 0.5)).toBe(10);
    expect(percentileMs(h, 0.9)).toBe(10);
    expect(percentileMs(h, 0.91)).toBe(200);
    expect(percentileMs(h, 0.95)).toBe(200);
    expect(percentileMs(h, 0.96)).toBe(750);
    expect(percentileMs(h, 0.99)).toBe(750);
    // The open last bucket reports the slowest bound it still tells apart.
    expect(percentileMs(h, 1)).toBe(30_000);
    expect(
      percentileMs(
        LATENCY_BOUNDS_MS.map(() => 0),
        0.5,
      ),
    ).toBeNull();
    // Nearest rank rounds the rank up: the median of three is the second.
    expect(percentileMs(histogram({ 10: 1, 20: 1, 200: 1 }), 0.5)).toBe(20);
  });

  it("levels per route from day rows, and the month against the objectives", () => {
    const rows = [
      { route: ORDER_READ_ROUTE, bucket: latencyBucket(20), requests: 940, serverErrors: 0 },
      { route: ORDER_READ_ROUTE, bucket: latencyBucket(20), requests: 30, serverErrors: 1 },
      { route: ORDER_READ_ROUTE, bucket: latencyBucket(400), requests: 30, serverErrors: 0 },
      { route: CREATE_ROUTE, bucket: latencyBucket(2_500), requests: 10, serverErrors: 2 },
    ];
    const levels = routeLevels(rows);
    expect(levels).toEqual([
      {
        route: ORDER_READ_ROUTE,
        requests: 1_000,
        server_errors: 1,
        availability: 0.999,
        p50_ms: 20,
        p95_ms: 20,
        p99_ms: 500,
      },
      {
        route: CREATE_ROUTE,
        requests: 10,
        server_errors: 2,
        availability: 0.8,
        p50_ms: 3_000,
        p95_ms: 3_000,
        p99_ms: 3_000,
      },
    ]);
    expect(objectives(levels)).toEqual([
      { name: "availability", target: OBJECTIVES.availability, actual: 1_007 / 1_010, met: false },
      { name: "order_read_p95_ms", target: OBJECTIVES.orderReadP95Ms, actual: 20, met: true },
      { name: "create_p95_ms", target: OBJECTIVES.createP95Ms, actual: 3_000, met: false },
    ]);
    expect(objectives([]).map((o) => o.met)).toEqual([null, null, null]);
  });

  it("a month's first and last day; anything else is not a month", () => {
    expect(monthDays("2026-02")).toEqual({ first: "2026-02-01", last: "2026-02-28" });
    expect(monthDays("2028-02")).toEqual({ first: "2028-02-01", last: "2028-02-29" });
    expect(monthDays("2026-12")).toEqual({ first: "2026-12-01", last: "2026-12-31" });
    for (const bad of ["2026-13", "2026-1", "26-01", "2026-01-01"]) expect(monthDays(bad)).toBeNull();
  });

  it("counts are kept from the first day of the month twelve before now's, across a year's turn", () => {
    expect(sloKeptFrom(Date.parse("2026-11-29T23:59:59Z"))).toBe("2025-11-01");
    expect(sloKeptFrom(Date.parse("2026-01-01T00:00:00Z"))).toBe("2025-01-01");
    expect(sloKeptFrom(Date.parse("2026-12-31T12:00:00Z"))).toBe("2025-12-01");
  });
});
