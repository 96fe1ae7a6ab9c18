/**
 * Service levels measured from the service itself (docs/operators.md, "Service levels"): each
 * request is counted per UTC day, route and latency bucket; availability and percentiles are
 * computed from those counts. Pure: src/services/slo.ts records and reads them.
 */

/**
 * Upper bounds (ms) of the latency buckets, roughly 1.5× apart: a percentile is reported as its
 * bucket's upper bound, so it is never flattering and at most one bucket high. The last bucket
 * holds everything slower.
 */
export const LATENCY_BOUNDS_MS = [
  1,
  2,
  3,
  5,
  7,
  10,
  15,
  20,
  30,
  50,
  75,
  100,
  150,
  200,
  300,
  500,
  750,
  1_000,
  1_500,
  2_000,
  3_000,
  5_000,
  10_000,
  30_000,
  Number.POSITIVE_INFINITY,
] as const;

/** The bucket a latency falls in: the first whose upper bound it does not exceed. */
export function latencyBucket(ms: number): number {
  const i = LATENCY_BOUNDS_MS.findIndex((bound) => ms <= bound);
  return i < 0 ? LATENCY_BOUNDS_MS.length - 1 : i;
}

/** What the service promises a partner, per calendar month (docs/operators.md, "Service levels"). */
export const OBJECTIVES = {
  /** Share of requests not answered 5xx. */
  availability: 0.999,
  /** p95 of GET /api/v1/partner/orders/{order_id}, at the Worker. */
  orderReadP95Ms: 300,
  /** p95 of POST /api/v1/partner/orders, at the Worker. */
  createP95Ms: 1_000,
} as const;

/**
 * Months of counts kept (docs/operators.md, "Service levels"): the current one and the twelve
 * before it, so a month's report still answers a year on and /status's 90 days are always there.
 */
export const SLO_RETENTION_MONTHS = 13;

/** The first day whose counts are kept at `now` (YYYY-MM-DD, UTC). */
export function sloKeptFrom(now: number): string {
  const d = new Date(now);
  const first = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - (SLO_RETENTION_MONTHS - 1), 1);
  return new Date(first).toISOString().slice(0, 10);
}

/** The routes the latency objectives name, as the recorder labels them. */
export const ORDER_READ_ROUTE = "GET /api/v1/partner/orders/:order_id";
export const CREATE_ROUTE = "POST /api/v1/partner/orders";

/** Counts of one (route, latency bucket) over a period. */
export interface BucketCount {
  route: string;
  bucket: number;
  requests: number;
  serverErrors: number;
}

export interface RouteLevels {
  route: string;
  requests: number;
  server_errors: number;
  /** Non-5xx share; null with no request. */
  availability: number | null;
  p50_ms: number | null;
  p95_ms: number | null;
  p99_ms: number | null;
}

/** Non-5xx share of `requests`, null when there were none. */
export const availability = (requests: number, serverErrors: number): number | null =>
  requests === 0 ? null : (requests - serverErrors) / requests;

/**
 * The q-quantile (0 < q ≤ 1) of a latency histogram (counts per bucket, by bucket index), by
 * nearest rank, as the upper bound of the bucket it falls in; null for an empty histogram. The
 * open last bucket reports its lower bound, the slowest figure it still tells apart.
 */
export function percentileMs(counts: readonly number[], q: number): number | null {
  const total = counts.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = Math.ceil(q * total);
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i] ?? 0;
    if (seen >= rank) {
      const bound = LATENCY_BOUNDS_MS[i] ?? Number.POSITIVE_INFINITY;
      return Number.isFinite(bound) ? bound : (LATENCY_BOUNDS_MS.at(-2) as number);
    }
  }
  return null;
}

/** Each route's levels over the counted period, busiest route first. */
export function routeLevels(counts: readonly BucketCount[]): RouteLevels[] {
  const byRoute = new Map<string, { requests: number; serverErrors: number; histogram: number[] }>();
  for (const c of counts) {
    let r = byRoute.get(c.route);
    if (!r) {
      r = { requests: 0, serverErrors: 0, histogram: LATENCY_BOUNDS_MS.map(() => 0) };
      byRoute.set(c.route, r);
    }
    r.requests += c.requests;
    r.serverErrors += c.serverErrors;
    r.histogram[c.bucket] = (r.histogram[c.bucket] ?? 0) + c.requests;
  }
  return [...byRoute]
    .map(([route, r]) => ({
      route,
      requests: r.requests,
      server_errors: r.serverErrors,
      availability: availability(r.requests, r.serverErrors),
      p50_ms: percentileMs(r.histogram, 0.5),
      p95_ms: percentileMs(r.histogram, 0.95),
      p99_ms: percentileMs(r.histogram, 0.99),
    }))
    .sort((a, b) => b.requests - a.requests || a.route.localeCompare(b.route));
}

export interface Objective {
  name: "availability" | "order_read_p95_ms" | "create_p95_ms";
  target: number;
  /** null: nothing measured in the period. */
  actual: number | null;
  met: boolean | null;
}

/** The month's figures against OBJECTIVES. */
export function objectives(routes: readonly RouteLevels[]): Objective[] {
  const requests = routes.reduce((n, r) => n + r.requests, 0);
  const errors = routes.reduce((n, r) => n + r.server_errors, 0);
  const p95 = (route: string) => routes.find((r) => r.route === route)?.p95_ms ?? null;
  const judged = (name: Objective["name"], target: number, actual: number | null, atLeast: boolean) => ({
    name,
    target,
    actual,
    met: actual === null ? null : atLeast ? actual >= target : actual <= target,
  });
  return [
    judged("availability", OBJECTIVES.availability, availability(requests, errors), true),
    judged("order_read_p95_ms", OBJECTIVES.orderReadP95Ms, p95(ORDER_READ_ROUTE), false),
    judged("create_p95_ms", OBJECTIVES.createP95Ms, p95(CREATE_ROUTE), false),
  ];
}

/** The first and last UTC day (YYYY-MM-DD) of a month given as YYYY-MM; null if it is not one. */
export function monthDays(month: string): { first: string; last: string } | null {
  const m = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(month);
  if (!m) return null;
  const end = new Date(Date.UTC(Number(m[1]), Number(m[2]), 0));
  return { first: `${month}-01`, last: end.toISOString().slice(0, 10) };
}
