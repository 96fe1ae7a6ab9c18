import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sweepFilters } from "../../../src/services/sweep";
import { afterWatchBacklogQueries, afterWatchQueries, sweepPageQuery } from "../../../src/storage/orders";

// A cron run must cost what is due, not what exists (issue 32): every page the sweep asks for is a
// range of a due-time index, never a walk over all orders of a status.
describe("the sweep's queries", () => {
  it("each status's page is an index range on its due time (expires_at or updated_at)", async () => {
    const filters = sweepFilters(Date.parse("2026-11-26T00:00:00Z"), 24);
    expect(filters.length).toBeGreaterThan(5);
    for (const f of filters) {
      for (const upto of [null, "ffffffff"]) {
        const { sql, binds } = sweepPageQuery(f, "", upto, 100);
        const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
          .bind(...binds)
          .all<{ detail: string }>();
        const plan = results.map((r) => r.detail).join(" | ");
        const due = f.expiresBefore || f.expiresAfter ? "expires_at" : "updated_at";
        expect(plan, `${f.status}: ${plan}`).toMatch(
          new RegExp(
            `SEARCH orders USING (COVERING )?INDEX orders_status_\\w+ \\(status=\\? AND ${due}[<>]\\?`,
          ),
        );
      }
    }
  });

  it("the slow sweep after the watch walks (status, livemode, after_watch_checked_at) in its order, no sort", async () => {
    const bounds = {
      checkedBefore: "2026-11-25T00:00:00.000Z",
      watchEndedBefore: "2026-11-25T00:00:00.000Z",
      horizonStart: "2026-08-27T00:00:00.000Z",
    };
    const plan = async ({ sql, binds }: { sql: string; binds: (string | number)[] }) => {
      const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .bind(...binds)
        .all<{ detail: string }>();
      return results.map((r) => r.detail).join(" | ");
    };
    for (const livemode of [true, false]) {
      const lane = { status: "completed", livemode };
      for (const q of afterWatchQueries(lane, bounds, 2)) {
        const p = await plan(q);
        expect(p).toMatch(
          /SEARCH orders USING (COVERING )?INDEX orders_status_after_watch \(status=\? AND livemode=\? AND after_watch_checked_at<\?\)/,
        );
        expect(p).not.toMatch(/TEMP B-TREE|SCAN orders/);
      }
    }
    // The live lane's backlog: a capped count over the range, and each head one seek.
    const [count, unread, checked] = afterWatchBacklogQueries(
      { status: "completed", livemode: true },
      bounds,
      3000,
    );
    for (const q of [count, checked])
      expect(await plan(q)).toMatch(
        /SEARCH orders USING COVERING INDEX orders_status_after_watch \(status=\? AND livemode=\? AND after_watch_checked_at[<>]\?/,
      );
    expect(await plan(unread)).toMatch(
      /SEARCH orders USING COVERING INDEX orders_status_after_watch \(status=\? AND livemode=\? AND after_watch_checked_at=\? AND expires_at[<>]\?/,
    );
  });
});
