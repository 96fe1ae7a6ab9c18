// The service-level rollup (migration 0054; docs/operators.md, "Service levels").
import type { BucketCount } from "../domain/slo";
import type { D1Reads } from "./session";

export interface DayCount extends BucketCount {
  day: string;
}

/** Adds counts to their (day, route, bucket) rows, in one batch. */
export async function addRequestCounts(db: D1Database, counts: readonly DayCount[]): Promise<void> {
  if (counts.length === 0) return;
  const add = db.prepare(
    `INSERT INTO slo_requests (day, route, bucket, requests, server_errors) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (day, route, bucket) DO UPDATE SET requests = requests + excluded.requests,
       server_errors = server_errors + excluded.server_errors`,
  );
  await db.batch(counts.map((c) => add.bind(c.day, c.route, c.bucket, c.requests, c.serverErrors)));
}

/** Each (route, bucket)'s counts over the days [first, last]. */
export async function requestCounts(db: D1Reads, first: string, last: string): Promise<BucketCount[]> {
  const { results } = await db
    .prepare(
      `SELECT route, bucket, SUM(requests) AS requests, SUM(server_errors) AS serverErrors
       FROM slo_requests WHERE day BETWEEN ? AND ? GROUP BY route, bucket`,
    )
    .bind(first, last)
    .all<BucketCount>();
  return results;
}

/** Requests and 5xx per day from `first` on, oldest first. */
export async function dailyCounts(
  db: D1Reads,
  first: string,
): Promise<{ day: string; requests: number; serverErrors: number }[]> {
  const { results } = await db
    .prepare(
      `SELECT day, SUM(requests) AS requests, SUM(server_errors) AS serverErrors
       FROM slo_requests WHERE day >= ? GROUP BY day ORDER BY day`,
    )
    .bind(first)
    .all<{ day: string; requests: number; serverErrors: number }>();
  return results;
}

/** Deletes at most `limit` rows of days before `before`, oldest first; how many went. */
export async function purgeRequestCounts(db: D1Database, before: string, limit: number): Promise<number> {
  const { meta } = await db
    .prepare(
      `DELETE FROM slo_requests WHERE (day, route, bucket) IN
         (SELECT day, route, bucket FROM slo_requests WHERE day < ? ORDER BY day LIMIT ?)`,
    )
    .bind(before, limit)
    .run();
  return meta.changes;
}
