// Service levels measured from the service itself (docs/operators.md, "Service levels"): every
// request counted per day, route and latency bucket; GET /admin/v1/slo and /status read the counts.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CREATE_ROUTE, latencyBucket, ORDER_READ_ROUTE } from "../../../src/domain/slo";
import { expireSloCounts, SLO_FLUSH_MS } from "../../../src/services/slo";
import { loadPairEtas } from "../../../src/storage/eta";
import { purgeRequestCounts } from "../../../src/storage/slo";
import { admin, call, expectError, json } from "../../helpers";

/** Counts as the recorder writes them: `n` requests (`errors` of them 5xx) at `ms` on `day`. */
function counted(day: string, route: string, ms: number, n: number, errors = 0) {
  return env.DB.prepare(
    "INSERT INTO slo_requests (day, route, bucket, requests, server_errors) VALUES (?, ?, ?, ?, ?)",
  ).bind(day, route, latencyBucket(ms), n, errors);
}

const dayBefore = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);

describe("service-levels", () => {
  afterEach(() => vi.useRealTimers());

  it("GET /admin/v1/slo: a month's availability, percentiles per route and the objectives", async () => {
    await env.DB.batch([
      counted("2026-10-01", ORDER_READ_ROUTE, 20, 900),
      counted("2026-10-31", ORDER_READ_ROUTE, 400, 100, 1),
      counted("2026-10-15", CREATE_ROUTE, 600, 99),
      counted("2026-10-15", CREATE_ROUTE, 60_000, 1, 1),
      // Outside the month: not counted.
      counted("2026-09-30", CREATE_ROUTE, 60_000, 50, 50),
      counted("2026-11-01", CREATE_ROUTE, 60_000, 50, 50),
    ]);
    const res = await admin("/slo?month=2026-10");
    expect(res.status).toBe(200);
    const body = await json<Record<string, unknown>>(res);
    expect(body).toMatchObject({
      month: "2026-10",
      requests: 1_100,
      server_errors: 2,
      availability: 1_098 / 1_100,
      routes: [
        {
          route: ORDER_READ_ROUTE,
          requests: 1_000,
          server_errors: 1,
          availability: 0.999,
          p50_ms: 20,
          p95_ms: 500,
          p99_ms: 500,
        },
        { route: CREATE_ROUTE, requests: 100, server_errors: 1, p50_ms: 750, p95_ms: 750, p99_ms: 750 },
      ],
      objectives: [
        { name: "availability", target: 0.999, met: false },
        { name: "order_read_p95_ms", target: 300, actual: 500, met: false },
        { name: "create_p95_ms", target: 1_000, actual: 750, met: true },
      ],
    });
    // The completion times the quotes' ETAs use.
    expect(body.pairs).toEqual([...(await loadPairEtas(env.DB))].map(([pair, h]) => ({ pair, ...h })));
    await expectError(await admin("/slo?month=2026-13"), 400, "invalid_request");
  });

  it("/status shows the last 90 days' availability, one mark per day", async () => {
    await env.DB.batch([counted(dayBefore(2), "GET /api/v1/currencies", 10, 1_000, 3)]);
    const html = await (await call("/status")).text();
    expect(html).toMatch(
      /data-testid="availability">\d{2,3}\.\d{2} % of requests answered without a server error/,
    );
    expect(html.match(/<li data-day=/g)).toHaveLength(90);
    expect(html).toContain(`data-day="${dayBefore(2)}" data-met="false" title="${dayBefore(2)}: 99.70 %"`);
    expect(html).toContain(`data-day="${dayBefore(89)}" data-met="none"`);
  });

  it("the cron forgets counts older than the current month and the twelve before it, a batch at a time", async () => {
    const route = "GET /retention";
    const days = () =>
      env.DB.prepare("SELECT day FROM slo_requests WHERE route = ? ORDER BY day")
        .bind(route)
        .all<{ day: string }>()
        .then((r) => r.results.map((x) => x.day));
    await env.DB.batch(
      ["2001-01-01", "2001-01-02", "2001-01-03", "2025-10-31", "2025-11-01", "2026-11-29"].map((day) =>
        counted(day, route, 10, 1),
      ),
    );
    // A backlog goes oldest first, no more than the batch per run.
    expect(await purgeRequestCounts(env.DB, "2001-01-04", 2)).toBe(2);
    expect(await days()).toEqual(["2001-01-03", "2025-10-31", "2025-11-01", "2026-11-29"]);
    // On 2026-11-29, November 2025 (last year's same month) is the oldest kept.
    await expireSloCounts(env, Date.parse("2026-11-29T12:00:00Z"));
    expect(await days()).toEqual(["2025-11-01", "2026-11-29"]);
  });

  it("each answered request is counted under its route pattern, 404s too, within the flush interval", async () => {
    const today = dayBefore(0);
    const rows = () =>
      env.DB.prepare("SELECT route, SUM(requests) AS n FROM slo_requests WHERE day = ? GROUP BY route")
        .bind(today)
        .all<{ route: string; n: number }>()
        .then((r) => Object.fromEntries(r.results.map((x) => [x.route, x.n])));
    const before = await rows();
    expect((await call("/api/v1/orders/no-such-order/status")).status).toBe(404);
    expect((await call("/no/such/path")).status).toBe(404);
    // The batch is written by the first request after the interval (or by its timer).
    vi.useFakeTimers({ now: Date.now() + SLO_FLUSH_MS + 1, toFake: ["Date"] });
    await call("/api/v1/currencies");
    await vi.waitFor(async () => {
      const after = await rows();
      expect(after["GET /api/v1/orders/:order_id/status"]).toBe(
        (before["GET /api/v1/orders/:order_id/status"] ?? 0) + 1,
      );
      expect(after.unmatched).toBeGreaterThan(before.unmatched ?? 0);
    });
  });
});
