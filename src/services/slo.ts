// Service levels measured from the service itself (docs/operators.md, "Service levels").
import { analyticsEngineSink, type RequestPoint } from "../adapters/metrics";
import type { PairHistory } from "../domain/eta";
import { LogBatch } from "../domain/log-batch";
import {
  availability,
  latencyBucket,
  monthDays,
  type Objective,
  objectives,
  type RouteLevels,
  routeLevels,
  sloKeptFrom,
} from "../domain/slo";
import { loadPairEtas } from "../storage/eta";
import type { D1Reads } from "../storage/session";
import {
  addRequestCounts,
  type DayCount,
  dailyCounts,
  purgeRequestCounts,
  requestCounts,
} from "../storage/slo";

/**
 * How long an isolate gathers counts before adding them to D1: one small batch per isolate per
 * 10 s at most, however many requests it answered (the rollup's only cost on a request's path is
 * a map update).
 */
export const SLO_FLUSH_MS = 10_000;
const SLO_FLUSH_ENTRIES = 2_000;

/** This isolate's counts not yet written: one entry (1 for a 5xx) per request, by day, route and bucket. */
const batch = new LogBatch<number>(SLO_FLUSH_ENTRIES, SLO_FLUSH_MS);

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

async function write(env: Env, pending: Map<string, number[]>): Promise<void> {
  const counts: DayCount[] = [...pending].map(([key, entries]) => {
    const [day = "", route = "", bucket = "0"] = key.split("\t");
    return {
      day,
      route,
      bucket: Number(bucket),
      requests: entries.length,
      serverErrors: entries.reduce((a, b) => a + b, 0),
    };
  });
  try {
    await addRequestCounts(env.DB, counts);
  } catch (err) {
    // Measuring must never fail a request; these counts are lost (Analytics Engine has the points).
    console.error(`service-level counts: ${counts.length} rows lost`, err);
  }
}

/**
 * Records one answered request: a point to Analytics Engine, and a count in this isolate's batch
 * for the D1 rollup, written off the request's path once the batch is full or `SLO_FLUSH_MS` old.
 */
export function recordRequest(
  env: Env,
  ctx: { waitUntil(promise: Promise<unknown>): void },
  point: RequestPoint,
  at: number,
): void {
  analyticsEngineSink(env.SLO_EVENTS).request(point);
  const key = `${dayOf(at)}\t${point.route}\t${latencyBucket(point.latencyMs)}`;
  // No timer: one would hold a request open for the interval. The first request after it writes
  // the batch, so an isolate evicted while idle loses at most its last interval's counts
  // (Analytics Engine has every point).
  if (batch.add(key, point.status >= 500 ? 1 : 0, Date.now()) === "write")
    ctx.waitUntil(write(env, batch.take()));
}

/**
 * Rows one cron run deletes at most. It runs every minute, so a backlog (a whole month's rows at
 * each month's turn, or years of them on a first deploy) drains at this pace, and no run holds
 * D1's single writer for long.
 */
const PURGE_BATCH = 500;

/** The cron's: forgets the counts older than their retention (`SLO_RETENTION_MONTHS`); how many went. */
export function expireSloCounts(env: Env, now: number): Promise<number> {
  return purgeRequestCounts(env.DB, sloKeptFrom(now), PURGE_BATCH);
}

export interface SloReport {
  month: string;
  requests: number;
  server_errors: number;
  availability: number | null;
  objectives: Objective[];
  routes: RouteLevels[];
  /** The completion times quotes use now (deposit seen → payout sent, src/storage/eta.ts). */
  pairs: ({ pair: string } & PairHistory)[];
}

/** GET /admin/v1/slo: the month's levels; null when `month` is not YYYY-MM. */
export async function sloReport(db: D1Reads, month: string): Promise<SloReport | null> {
  const days = monthDays(month);
  if (!days) return null;
  const [counts, etas] = await Promise.all([requestCounts(db, days.first, days.last), loadPairEtas(db)]);
  const routes = routeLevels(counts);
  const requests = routes.reduce((n, r) => n + r.requests, 0);
  const errors = routes.reduce((n, r) => n + r.server_errors, 0);
  return {
    month,
    requests,
    server_errors: errors,
    availability: availability(requests, errors),
    objectives: objectives(routes),
    routes,
    pairs: [...etas].map(([pair, h]) => ({ pair, ...h })),
  };
}

export interface DayAvailability {
  day: string;
  availability: number | null;
}

export interface RecentAvailability {
  availability: number | null;
  days: DayAvailability[];
}

/** The last `days` UTC days' availability (today included), oldest first, and the whole span's. */
export async function recentAvailability(
  db: D1Reads,
  now: number,
  days: number,
): Promise<RecentAvailability> {
  const first = dayOf(now - (days - 1) * 86_400_000);
  const rows = new Map((await dailyCounts(db, first)).map((r) => [r.day, r]));
  let requests = 0;
  let errors = 0;
  const out: DayAvailability[] = [];
  for (let i = days - 1; i >= 0; i--) {
    const day = dayOf(now - i * 86_400_000);
    const r = rows.get(day);
    requests += r?.requests ?? 0;
    errors += r?.serverErrors ?? 0;
    out.push({ day, availability: r ? availability(r.requests, r.serverErrors) : null });
  }
  return { availability: availability(requests, errors), days: out };
}
