import { orderEarnings } from "../../domain/earnings";
import { isLive, type OrderRecord } from "../../domain/order";
import { indexDetails } from "../../domain/order-index";
import { type OrderIndexRow, projectOrderIndex } from "../../storage/orders";
import { storedUsdPrice } from "../../storage/prices";
import { liquidityPending } from "./liquidity";
import { DUE, type DueRow, type OrderSchedule } from "./schedule";

/** Retry delay for a D1 index write or a webhook enqueue that failed. */
export const PROJECTION_RETRY_MS = 10_000;
/** Set while the D1 index row lags the record: the index's outbox, cleared once it is written. */
const PENDING = "projection_pending";

/** The D1 index row of an order: what lists, the cabinet and the sweep read. */
export function indexRow(r: OrderRecord, needsAction = false): OrderIndexRow {
  return {
    id: r.id,
    short_id: r.shortId,
    partner_id: r.partnerId,
    status: r.status,
    coin_from: r.coinFrom,
    network_from: r.networkFrom,
    coin_to: r.coinTo,
    network_to: r.networkTo,
    deposit_address: r.depositAddress,
    deposit_address_tag: r.depositAddressTag,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    expires_at: r.expiresAt,
    livemode: isLive(r) ? 1 : 0,
    needs_action: needsAction ? 1 : 0,
  };
}

/**
 * Projects an order into the D1 index as of `version`, its event-log position (the object's
 * outbox step, run from its alarm). The object is the source of truth and keeps a pending flag
 * until this succeeds, so a failed or evicted projection is retried; the version guard makes the
 * retry, and any stale duplicate, change nothing.
 */
export function projectOrder(
  db: D1Database,
  r: OrderRecord,
  version: number,
  needsAction = false,
): Promise<boolean> {
  return projectOrderIndex(db, indexRow(r, needsAction), indexDetails(r), version);
}

/**
 * The index row must be written again (status, needs_action): by the alarm, soon. `alongside`:
 * other rows the same write schedules, set in the same statement (a creation's first rows).
 */
export function markProjection(
  kv: SyncKvStorage,
  schedule: OrderSchedule,
  now: number,
  alongside: readonly DueRow[] = [],
): void {
  kv.put(PENDING, true);
  schedule.setAll([...alongside, { name: DUE.outbox, dueAt: now + PROJECTION_RETRY_MS }]);
}

export function projectionPending(kv: SyncKvStorage): boolean {
  return kv.get<boolean>(PENDING) === true;
}

/** What is still to send: the stores `scheduleOutbox` checks. */
export interface OutboxStores {
  readonly kv: SyncKvStorage;
  readonly schedule: OrderSchedule;
  readonly outbox: { pending(): boolean };
  readonly alerts: { pending(): boolean };
}

/** The index row, webhooks, liquidity step and alerts still to send: retried until they are out. */
export function scheduleOutbox(c: OutboxStores, now: number): void {
  if (projectionPending(c.kv) || c.outbox.pending() || liquidityPending(c.kv) || c.alerts.pending())
    c.schedule.set(DUE.outbox, now + PROJECTION_RETRY_MS);
  else c.schedule.clear(DUE.outbox);
}

/** What the projection reads and writes: the record, the D1 index, and the event log's position. */
export interface ProjectionHost {
  readonly env: Env;
  readonly kv: SyncKvStorage;
  readonly journal: { version(): number };
  record(): OrderRecord | undefined;
  saveRecord(r: OrderRecord): void;
  writes(): number;
}

/**
 * What a projection left: `untouched` — the row is written and nothing at all was written to the
 * order's storage while D1 answered (the flag is cleared); `cleared` — the row is written and the
 * record had not moved on (the flag is cleared); `pending` — failed, or the record moved on, so the
 * flag stays for the next run.
 */
export type Projected = "untouched" | "cleared" | "pending";

/**
 * Writes the order's index row as of the log's position (`version` when the caller knows the log
 * row that wrote `record`). A completed order's earnings are fixed here, once, with the price of
 * the moment it completed. A failure is logged and left pending, for the alarm to retry.
 */
export async function projectRecord(
  c: ProjectionHost,
  record: OrderRecord,
  needsAction: (r: OrderRecord) => boolean,
  version?: number,
): Promise<Projected> {
  try {
    let r = record;
    // The price read lets other events in, so earnings are added to the record as it is after it.
    if (r.status === "completed" && !r.earnings) {
      const usd = await storedUsdPrice(c.env.DB, r.coinFrom);
      const current = c.record();
      if (current?.status === "completed" && !current.earnings) {
        r = { ...current, earnings: orderEarnings(current, current.updatedAt, usd) };
        c.saveRecord(r);
      }
    }
    const at = r === record && version !== undefined ? version : c.journal.version();
    const mark = c.writes();
    await projectOrder(c.env.DB, r, at, needsAction(r));
    // Only when the record has not moved on meanwhile; else the next run projects the newer one.
    // With no write at all since (the usual case), the record is not read back to tell.
    const untouched = c.writes() === mark;
    const now = untouched ? r : c.record();
    if (now?.status !== r.status || now.updatedAt !== r.updatedAt) return "pending";
    c.kv.delete(PENDING);
    return untouched ? "untouched" : "cleared";
  } catch (err) {
    console.error(
      JSON.stringify({
        level: "warn",
        order: record.id,
        msg: "index projection failed; will retry",
        error: String(err),
      }),
    );
    return "pending";
  }
}
