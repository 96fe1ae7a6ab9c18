import type { OrderRecord } from "../../domain/order";
import { compactionBlocker, compactionDueAt } from "../../domain/retention";
import { RECORD_KEYS } from "./context";
import { operatorHeld } from "./decisions";
import { liquidityPending } from "./liquidity";
import type { OrderParts } from "./parts";
import { projectionPending } from "./projection";
import { DUE } from "./schedule";

const COMPACTED = "compacted_at";

/** The log reason of the compaction; its data lists the sends the dropped ledger held. */
export const COMPACTED_LOGGED = "storage compacted after retention: the record and this log are kept";

/**
 * Whether the order was compacted: it never runs again (its deposit watch state, extra deposits and
 * sends ledger are gone, so a new read of its address could not tell an old transfer from a new one).
 */
export const isCompacted = (kv: SyncKvStorage): boolean => kv.get(COMPACTED) !== undefined;

/**
 * A terminal order's retention, at the end of each run (src/domain/retention.ts): before its moment
 * the order's schedule holds it, so its own alarm comes back for it; at it, the order compacts
 * unless money is still owed. A blocked order is looked at again on its next run (whatever ends the
 * blocker, a decision, a send's outcome, an alert clearing, runs it).
 */
export function retain(o: OrderParts, r: OrderRecord, now: number): void {
  const { c } = o;
  const dueAt = compactionDueAt(r, c.config);
  if (dueAt === null) return;
  if (dueAt > now) {
    if (c.schedule.get(DUE.retention) !== dueAt) c.schedule.set(DUE.retention, dueAt);
    return;
  }
  c.schedule.clear(DUE.retention);
  const blocker = compactionBlocker({
    inReview: o.view.needsReview(r),
    unfinishedSends: c.ledger.outcomes().filter((s) => s.outcome === null).length,
    openAlerts: c.alerts.open().length,
    operatorHold: operatorHeld(c.kv),
    unsent: projectionPending(c.kv) || c.outbox.pending() || liquidityPending(c.kv),
  });
  if (blocker) {
    console.log(JSON.stringify({ level: "info", order: r.id, msg: `not compacted: ${blocker}` }));
    return;
  }
  // Drops the tables only the running order uses (its sends ledger, webhook outbox and alerts,
  // all settled and in D1) and every key-value row but the record's: one transaction.
  const sends = c.ledger.outcomes();
  c.storage.transactionSync(() => {
    c.note(r, now, COMPACTED_LOGGED, { sends: JSON.stringify(sends) });
    c.storage.sql.exec(
      "DROP TABLE IF EXISTS sends; DROP TABLE IF EXISTS outbox; DROP TABLE IF EXISTS alerts;",
    );
    for (const [key] of c.kv.list()) if (!RECORD_KEYS.includes(key)) c.kv.delete(key);
    c.kv.put(COMPACTED, now);
  });
}
