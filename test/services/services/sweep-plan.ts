import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sweepFilters } from "../../../src/services/sweep";
import { afterWatchQueries, sweepPageQuery } from "../../../src/storage/orders";

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

  it("the slow sweep after the watch walks (status, after_watch_checked_at) in its order, no sort", async () => {
    const bounds = {
      checkedBefore: "2026-11-25T00:00:00.000Z",
      watchEndedBefore: "2026-11-25T00:00:00.000Z",
      horizonStart: "2026-08-27T00:00:00.000Z",
    };
    for (const { sql, binds } of afterWatchQueries("completed", bounds, 2)) {
      const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .bind(...binds)
        .all<{ detail: string }>();
      const plan = results.map((r) => r.detail).join(" | ");
      expect(plan).toMatch(
        /SEARCH orders USING (COVERING )?INDEX orders_status_after_watch \(status=\? AND after_watch_checked_at<\?\)/,
      );
      expect(plan).not.toMatch(/TEMP B-TREE|SCAN orders/);
    }
  });
});
