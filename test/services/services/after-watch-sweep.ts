import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { afterWatchBatch } from "../../../src/domain/after-watch-sweep";
import { AFTER_WATCH_ALERT, sweepAfterWatch } from "../../../src/services/sweep";
import { admin, json } from "../../helpers";

// The slow sweep after the watch (issue 42, item 11): live and test orders in lanes of their own,
// the live batch scaled with the backlog, and an operator alert when a live read is a day late.
// The orders are index rows only: the sweep picks and marks them in D1 (an id with no object
// behind it reads nothing), which is all these rules are about.
describe("the slow sweep after the watch: test orders in their own lane", () => {
  const HOUR = 3_600_000;
  const DAY = 24 * HOUR;
  const now = Date.now();
  const iso = (ms: number) => new Date(ms).toISOString();
  const sweep = (at = now) => sweepAfterWatch(env, at, 24, 90);

  /** `n` terminal orders whose late-deposit watch (24 h after expires_at) ended, never read. */
  async function rows(
    prefix: string,
    n: number,
    o: { status: string; livemode: boolean; expiredAt: number },
  ) {
    await env.DB.prepare(
      `INSERT INTO orders (id, short_id, partner_id, status, coin_from, network_from, coin_to, network_to,
                           deposit_address, created_at, updated_at, expires_at, livemode)
       WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?4)
       SELECT ?1 || '-' || i, ?1 || i, 'sweep-partner', ?2, 'BTC', 'BTC', 'USDT', 'TRX', 'addr-' || ?1 || '-' || i,
              ?3, ?3, ?3, ?5 FROM n`,
    )
      .bind(prefix, o.status, iso(o.expiredAt), n, o.livemode ? 1 : 0)
      .run();
  }
  const readAt = async (prefix: string) => {
    const { results } = await env.DB.prepare(
      "SELECT after_watch_checked_at AS at FROM orders WHERE id LIKE ? || '-%'",
    )
      .bind(prefix)
      .all<{ at: string }>();
    return results.map((r) => r.at);
  };
  const alerts = async () =>
    (
      await json<{
        data: { order_id: string; kind: string; state: string; data: Record<string, unknown> }[];
      }>(await admin("/alerts?state=all&limit=500"))
    ).data.filter((a) => a.order_id === AFTER_WATCH_ALERT.subject);

  afterEach(async () => {
    await env.DB.prepare("DELETE FROM orders WHERE partner_id = 'sweep-partner'").run();
  });

  it("thousands of test orders ahead of a live order do not delay its read; they get one read a run per status", async () => {
    // Older than the live order, so in one shared walk they would all come first.
    await rows("aw-test", 2000, { status: "completed", livemode: false, expiredAt: now - 3 * DAY });
    await rows("aw-live", 1, { status: "completed", livemode: true, expiredAt: now - 2 * DAY });
    await sweep();
    expect(await readAt("aw-live")).toEqual([iso(now)]);
    expect((await readAt("aw-test")).filter((at) => at !== "")).toHaveLength(1);
  });

  it("the live batch grows with the backlog: 1,200 due orders are read 20 a run, not 2", async () => {
    expect(afterWatchBatch(0)).toBe(2);
    expect(afterWatchBatch(1200)).toBe(20);
    expect(afterWatchBatch(1_000_000)).toBe(50);
    await rows("aw-backlog", 1200, { status: "refunded", livemode: true, expiredAt: now - 36 * HOUR });
    await sweep();
    expect((await readAt("aw-backlog")).filter((at) => at !== "")).toHaveLength(20);
  });

  it("a live order more than a day overdue alerts the operator; the alert clears once the sweep caught up", async () => {
    expect(await alerts()).toEqual([]);
    // Its watch ended two days ago and nobody read it since.
    await rows("aw-late", 1, { status: "failed", livemode: true, expiredAt: now - 3 * DAY });
    // Test orders as late raise nothing: they are not the operator's.
    await rows("aw-stale-test", 3, { status: "expired", livemode: false, expiredAt: now - 5 * DAY });
    await sweep();
    expect(await alerts()).toEqual([
      expect.objectContaining({
        kind: AFTER_WATCH_ALERT.kind,
        state: "open",
        data: { status: "failed", behind_hours: 48, due: 1 },
      }),
    ]);
    // The run read it: the next one finds nothing overdue and clears the alert.
    expect(await readAt("aw-late")).toEqual([iso(now)]);
    await sweep(now + 60_000);
    expect(await alerts()).toEqual([
      expect.objectContaining({ kind: AFTER_WATCH_ALERT.kind, state: "cleared" }),
    ]);
  });
});
