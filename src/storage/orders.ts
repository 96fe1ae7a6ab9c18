import type { AfterWatchHeads } from "../domain/after-watch-sweep";
import { type IndexDetails, LISTED_VIEW_COLUMNS } from "../domain/order-index";
import type { OrderStatus } from "../domain/order-state";
import type { D1Reads } from "./session";

export interface OrderIndexRow {
  id: string;
  short_id: string;
  partner_id: string;
  status: OrderStatus;
  coin_from: string;
  network_from: string;
  coin_to: string;
  network_to: string;
  deposit_address: string;
  deposit_address_tag: string | null;
  created_at: string;
  updated_at: string;
  expires_at: string;
  /** 1 for a live order, 0 for a test order (docs/test-mode.md). */
  livemode: 0 | 1;
  /** 1 while the order waits for a decision on money it holds: the operator's review queue. */
  needs_action: 0 | 1;
}

/** What the cabinet lists, searches and sums, beyond the API's index columns (migration 0017). */
export type OrderIndexDetails = IndexDetails;

export const DETAIL_COLUMNS = [
  "rate_type",
  "amount_from",
  "amount_to",
  "deposit_txid",
  "payout_txid",
  "refund_txid",
  "markup_bps",
  "completed_at",
  "markup_amount",
  "usd_price_from",
  "markup_usd",
  "volume_usd",
  "widget_id",
  "partner_order_id",
  "metadata",
  "deposit_seen_at",
  "track_token",
  "status_reason",
  "amount_from_expected",
  "amount_to_expected",
  "amount_from_received",
  "amount_to_actual",
  "rate_quoted",
  "recipient_address",
  "recipient_address_tag",
  "refund_address",
  "refund_address_tag",
  "contract_from",
  "contract_to",
  "hold",
] as const satisfies readonly (keyof OrderIndexDetails)[];

/** The details GET /partner/orders shows besides the index columns. */
const LISTED_DETAILS = [
  "completed_at",
  "partner_order_id",
  "track_token",
  ...LISTED_VIEW_COLUMNS,
] as const satisfies readonly (keyof OrderIndexDetails)[];
export type ListedOrderRow = OrderIndexRow & Pick<OrderIndexDetails, (typeof LISTED_DETAILS)[number]>;

const detailValues = (d: OrderIndexDetails) => DETAIL_COLUMNS.map((c) => d[c]);

const COLUMNS =
  "id, short_id, partner_id, status, coin_from, network_from, coin_to, network_to, deposit_address, deposit_address_tag, created_at, updated_at, expires_at, livemode, needs_action";
const PLACEHOLDERS = COLUMNS.split(",")
  .map(() => "?")
  .join(", ");

/**
 * Writes an order's index row as of `version` (its object's event-log position): inserted the
 * first time, updated only by a later version. So a projection repeated after an eviction, or one
 * overtaken by a newer one, changes nothing: each version lands at most once, and in order.
 * Returns whether the row changed.
 */
export async function projectOrderIndex(
  db: D1Database,
  r: OrderIndexRow,
  details: OrderIndexDetails,
  version: number,
): Promise<boolean> {
  const detailMarks = DETAIL_COLUMNS.map(() => "?").join(", ");
  const detailSets = DETAIL_COLUMNS.map((c) => `${c} = excluded.${c}`).join(", ");
  const result = await db
    .prepare(
      `INSERT INTO orders (${COLUMNS}, ${DETAIL_COLUMNS.join(", ")}, version)
       VALUES (${PLACEHOLDERS}, ${detailMarks}, ?)
       ON CONFLICT (id) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at,
         expires_at = excluded.expires_at, needs_action = excluded.needs_action, ${detailSets}, version = excluded.version
       WHERE excluded.version > orders.version`,
    )
    .bind(
      r.id,
      r.short_id,
      r.partner_id,
      r.status,
      r.coin_from,
      r.network_from,
      r.coin_to,
      r.network_to,
      r.deposit_address,
      r.deposit_address_tag,
      r.created_at,
      r.updated_at,
      r.expires_at,
      r.livemode,
      r.needs_action,
      ...detailValues(details),
      version,
    )
    .run();
  return (result.meta.changes ?? 0) > 0;
}

/**
 * The review queue: orders waiting for a decision on money they hold, oldest first, after the
 * (created_at, id) position `after`; on the partial index orders_needs_action (migration 0018).
 */
export async function listOrdersNeedingAction(
  db: D1Database,
  after: { createdAt: string; id: string } | undefined,
  limit: number,
): Promise<ListedOrderRow[]> {
  const columns = `${COLUMNS}, ${LISTED_DETAILS.join(", ")}`;
  // A row-value comparison, so every page is a range seek on the index, not a scan from its start.
  const stmt = after
    ? db
        .prepare(
          `SELECT ${columns} FROM orders WHERE needs_action = 1 AND livemode = 1 AND (created_at, id) > (?, ?) ORDER BY created_at, id LIMIT ?`,
        )
        .bind(after.createdAt, after.id, limit)
    : db
        .prepare(
          `SELECT ${columns} FROM orders WHERE needs_action = 1 AND livemode = 1 ORDER BY created_at, id LIMIT ?`,
        )
        .bind(limit);
  return (await stmt.all<ListedOrderRow>()).results;
}

/** The order id of a short_id; only among one partner's orders when `partnerId` is given. */
export async function findOrderIdByShortId(
  db: D1Database,
  shortId: string,
  partnerId: string | null,
): Promise<string | null> {
  const stmt =
    partnerId === null
      ? db.prepare("SELECT id FROM orders WHERE short_id = ?").bind(shortId)
      : db.prepare("SELECT id FROM orders WHERE short_id = ? AND partner_id = ?").bind(shortId, partnerId);
  return (await stmt.first<{ id: string }>())?.id ?? null;
}

/** What the sweep looks for in one status: orders past a deadline, or not updated for a while. */
export interface SweepFilter {
  status: string;
  updatedBefore?: string;
  expiresBefore?: string;
  expiresAfter?: string;
}

/**
 * A page of order ids in `status` matching the filter, in id order after `afterId` (and up to
 * `uptoId` when given): the sweep's walk over one status. The rows are found through the index of
 * the filter's due time — (status, expires_at) when it bounds expires_at, else (status,
 * updated_at) — so a page costs the orders that are due (or inside the late-deposit window), not
 * every order in the status; they are then sorted by id.
 */
export async function sweepPage(
  db: D1Database,
  f: SweepFilter,
  afterId: string,
  uptoId: string | null,
  limit: number,
): Promise<string[]> {
  const { sql, binds } = sweepPageQuery(f, afterId, uptoId, limit);
  const { results } = await db
    .prepare(sql)
    .bind(...binds)
    .all<{ id: string }>();
  return results.map((r) => r.id);
}

/** sweepPage's statement (exported so a test can ask SQLite for its plan). */
export function sweepPageQuery(
  f: SweepFilter,
  afterId: string,
  uptoId: string | null,
  limit: number,
): { sql: string; binds: (string | number)[] } {
  // Only the bounds the filter has, as plain comparisons: an `(? IS NULL OR …)` term is opaque to
  // SQLite's planner and would send it back to a scan of the whole status.
  const index = f.expiresBefore || f.expiresAfter ? "orders_status_expires" : "orders_status_updated";
  const where = ["status = ?", "id > ?"];
  const binds: (string | number)[] = [f.status, afterId];
  const bound = (sql: string, value: string | null | undefined) => {
    if (value == null) return;
    where.push(sql);
    binds.push(value);
  };
  bound("id <= ?", uptoId);
  bound("updated_at < ?", f.updatedBefore);
  bound("expires_at < ?", f.expiresBefore);
  bound("expires_at > ?", f.expiresAfter);
  return {
    sql: `SELECT id FROM orders INDEXED BY ${index} WHERE ${where.join(" AND ")} ORDER BY id LIMIT ?`,
    binds: [...binds, limit],
  };
}

/** `after_watch_checked_at` of an order past the slow sweep's horizon: after every timestamp. */
const AFTER_WATCH_RETIRED = "~";

/**
 * The slow sweep's page of one terminal status in one mode's lane: up to `limit` orders whose
 * late-deposit watch ended (`expires_at < watchEndedBefore`) and that were last read before
 * `checkedBefore`, read longest ago first. Orders past the horizon (`expires_at <= horizonStart`)
 * met on the way are retired first, in bulk, so that the walk over the index does not meet them again.
 */
export async function afterWatchPage(
  db: D1Database,
  lane: AfterWatchLane,
  bounds: AfterWatchBounds,
  limit: number,
): Promise<string[]> {
  const [retire, select] = afterWatchQueries(lane, bounds, limit);
  const [, page] = await db.batch<{ id: string }>([
    db.prepare(retire.sql).bind(...retire.binds),
    db.prepare(select.sql).bind(...select.binds),
  ]);
  return (page?.results ?? []).map((r) => r.id);
}

type Statement = { sql: string; binds: (string | number)[] };

/** One status's orders of one mode: live and test orders never share a page. */
export interface AfterWatchLane {
  status: string;
  livemode: boolean;
}

export interface AfterWatchBounds {
  checkedBefore: string;
  watchEndedBefore: string;
  horizonStart: string;
}

/** The lane's due orders (inside the horizon), as a FROM … WHERE over the lane's index. */
function afterWatchDue(lane: AfterWatchLane, b: AfterWatchBounds): Statement {
  return {
    sql: `FROM orders INDEXED BY orders_status_after_watch
    WHERE status = ? AND livemode = ? AND after_watch_checked_at < ? AND expires_at < ?`,
    binds: [lane.status, lane.livemode ? 1 : 0, b.checkedBefore, b.watchEndedBefore],
  };
}

/** afterWatchPage's statements, the retirement then the page (exported so a test can ask SQLite for their plans). */
export function afterWatchQueries(
  lane: AfterWatchLane,
  b: AfterWatchBounds,
  limit: number,
): [Statement, Statement] {
  const due = afterWatchDue(lane, b);
  return [
    {
      sql: `UPDATE orders SET after_watch_checked_at = ? WHERE rowid IN (SELECT rowid ${due.sql} AND expires_at <= ?
              ORDER BY after_watch_checked_at LIMIT ?)`,
      binds: [AFTER_WATCH_RETIRED, ...due.binds, b.horizonStart, limit * 100],
    },
    {
      sql: `SELECT id ${due.sql} AND expires_at > ? ORDER BY after_watch_checked_at LIMIT ?`,
      binds: [...due.binds, b.horizonStart, limit],
    },
  ];
}

/** How many of a lane's orders are due (counted up to `cap`), and its two oldest heads. */
export async function afterWatchBacklog(
  db: D1Database,
  lane: AfterWatchLane,
  bounds: AfterWatchBounds,
  cap: number,
): Promise<{ due: number } & AfterWatchHeads> {
  const [count, unread, checked] = afterWatchBacklogQueries(lane, bounds, cap);
  const [n, u, c] = await db.batch<Record<string, number | string | null>>(
    [count, unread, checked].map((q) => db.prepare(q.sql).bind(...q.binds)),
  );
  return {
    due: Number(n?.results[0]?.n ?? 0),
    oldestUnreadExpiresAt: (u?.results[0]?.at as string | null | undefined) ?? null,
    oldestCheckedAt: (c?.results[0]?.at as string | null | undefined) ?? null,
  };
}

/** afterWatchBacklog's statements: the capped count, then the two heads (exported for their plans). */
export function afterWatchBacklogQueries(
  lane: AfterWatchLane,
  b: AfterWatchBounds,
  cap: number,
): [Statement, Statement, Statement] {
  const due = afterWatchDue(lane, b);
  const inside = [...due.binds, b.horizonStart];
  return [
    {
      sql: `SELECT COUNT(*) AS n FROM (SELECT 1 ${due.sql} AND expires_at > ? LIMIT ?)`,
      binds: [...inside, cap],
    },
    {
      sql: `SELECT MIN(expires_at) AS at ${due.sql} AND expires_at > ? AND after_watch_checked_at = ''`,
      binds: inside,
    },
    {
      sql: `SELECT MIN(after_watch_checked_at) AS at ${due.sql} AND expires_at > ? AND after_watch_checked_at > ''`,
      binds: inside,
    },
  ];
}

export async function markAfterWatchChecked(db: D1Database, id: string, at: string): Promise<void> {
  await db.prepare("UPDATE orders SET after_watch_checked_at = ? WHERE id = ?").bind(at, id).run();
}

export async function getSweepCursor(db: D1Database, status: string): Promise<string> {
  const row = await db
    .prepare("SELECT after_id FROM sweep_cursors WHERE status = ?")
    .bind(status)
    .first<{ after_id: string }>();
  return row?.after_id ?? "";
}

export async function setSweepCursor(db: D1Database, status: string, afterId: string): Promise<void> {
  await db
    .prepare(
      "INSERT INTO sweep_cursors (status, after_id) VALUES (?1, ?2) ON CONFLICT (status) DO UPDATE SET after_id = ?2",
    )
    .bind(status, afterId)
    .run();
}

/**
 * Reserves up to `n` free, unreserved pool addresses for a pool shard, atomically (one statement),
 * and returns every address the shard holds in D1 that no order has yet: a block reserved before
 * a crash is picked up again rather than stranded.
 */
export async function reservePoolBlock(
  db: D1Database,
  network: string,
  shard: string,
  n: number,
  now: string,
): Promise<string[]> {
  const [, held] = await db.batch<{ address: string }>([
    db
      .prepare(
        `UPDATE address_pool SET reserved_by = ?, reserved_at = ?
          WHERE rowid IN (SELECT rowid FROM address_pool
                           WHERE network = ? AND reserved_by IS NULL AND order_id IS NULL
                           ORDER BY added_at, address LIMIT ?)`,
      )
      .bind(shard, now, network, n),
    db
      .prepare("SELECT address FROM address_pool WHERE reserved_by = ? AND order_id IS NULL ORDER BY address")
      .bind(shard),
  ]);
  return (held?.results ?? []).map((r) => r.address);
}

/** Writes a shard's hand-out of a pool address to an order (idempotent; never re-assigns). */
export function poolAssignmentStatement(
  db: D1Database,
  a: { network: string; address: string; orderId: string; assignedAt: string },
): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE address_pool SET order_id = ?, assigned_at = ?
        WHERE network = ? AND address = ? AND (order_id IS NULL OR order_id = ?)`,
    )
    .bind(a.orderId, a.assignedAt, a.network, a.address, a.orderId);
}

export async function addPoolAddresses(
  db: D1Database,
  network: string,
  addresses: readonly string[],
  now: string,
): Promise<number> {
  if (addresses.length === 0) return 0;
  const stmt = db.prepare("INSERT OR IGNORE INTO address_pool (network, address, added_at) VALUES (?, ?, ?)");
  const results = await db.batch(addresses.map((a) => stmt.bind(network, a, now)));
  return results.reduce((n, r) => n + (r.meta.changes ?? 0), 0);
}

/** Unassigned pool addresses of one network. */
export async function freePoolAddresses(db: D1Database, network: string): Promise<number> {
  const row = await db
    .prepare("SELECT COUNT(*) AS n FROM address_pool WHERE network = ? AND order_id IS NULL")
    .bind(network)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

export interface PoolCounts {
  network: string;
  /** Free and held by no shard. */
  available: number;
  /** Held by a pool shard, not yet given to an order. */
  reserved: number;
  assigned: number;
  /** Which shard holds how many of the reserved ones. */
  shards: { shard: string; reserved: number }[];
}

export async function poolCounts(db: D1Database): Promise<PoolCounts[]> {
  const [totals, held] = await db.batch<Record<string, string | number>>([
    db.prepare(
      `SELECT network,
              SUM(order_id IS NULL AND reserved_by IS NULL) AS available,
              SUM(order_id IS NULL AND reserved_by IS NOT NULL) AS reserved,
              SUM(order_id IS NOT NULL) AS assigned
         FROM address_pool GROUP BY network ORDER BY network`,
    ),
    db.prepare(
      `SELECT network, reserved_by AS shard, COUNT(*) AS reserved FROM address_pool
        WHERE order_id IS NULL AND reserved_by IS NOT NULL GROUP BY network, reserved_by ORDER BY reserved_by`,
    ),
  ]);
  const shards = (held?.results ?? []) as { network: string; shard: string; reserved: number }[];
  return ((totals?.results ?? []) as Omit<PoolCounts, "shards">[]).map((t) => ({
    network: t.network,
    available: t.available,
    reserved: t.reserved,
    assigned: t.assigned,
    shards: shards.filter((s) => s.network === t.network).map(({ shard, reserved }) => ({ shard, reserved })),
  }));
}

export interface OrderListQuery {
  partnerId: string;
  livemode: boolean;
  status?: string | undefined;
  createdFrom?: string | undefined;
  createdTo?: string | undefined;
  updatedFrom?: string | undefined;
  partnerOrderId?: string | undefined;
  /** Continue after this (created_at, id) position. */
  after?: { createdAt: string; id: string } | undefined;
  limit: number;
}

/** A partner's orders, newest first, by keyset pagination on (created_at, id): no OFFSET scans. */
/** The statement of one page of GET /partner/orders, newest first (exported for its query-plan test). */
export function listOrdersStatement(q: OrderListQuery): { sql: string; args: (string | number)[] } {
  const where = ["partner_id = ?", "livemode = ?"];
  const args: (string | number)[] = [q.partnerId, q.livemode ? 1 : 0];
  if (q.status) {
    where.push("status = ?");
    args.push(q.status);
  }
  if (q.createdFrom) {
    where.push("created_at >= ?");
    args.push(q.createdFrom);
  }
  if (q.createdTo) {
    where.push("created_at < ?");
    args.push(q.createdTo);
  }
  if (q.updatedFrom) {
    where.push("updated_at >= ?");
    args.push(q.updatedFrom);
  }
  if (q.partnerOrderId) {
    where.push("partner_order_id = ?");
    args.push(q.partnerOrderId);
  }
  if (q.after) {
    // `created_at <= ?` lets the index seek to the position: D1's planner derives no range from
    // the OR alone and would step over every earlier row of the partner, one by one.
    where.push("created_at <= ? AND (created_at < ? OR (created_at = ? AND id < ?))");
    args.push(q.after.createdAt, q.after.createdAt, q.after.createdAt, q.after.id);
  }
  return {
    sql: `SELECT ${COLUMNS}, ${LISTED_DETAILS.join(", ")} FROM orders WHERE ${where.join(" AND ")} ORDER BY created_at DESC, id DESC LIMIT ?`,
    args: [...args, q.limit],
  };
}

export async function listOrders(db: D1Reads, q: OrderListQuery): Promise<ListedOrderRow[]> {
  const s = listOrdersStatement(q);
  const { results } = await db
    .prepare(s.sql)
    .bind(...s.args)
    .all<ListedOrderRow>();
  return results;
}

/** A partner's test orders in any of `statuses` (the bound on open test orders). */
export async function countTestOrders(
  db: D1Database,
  partnerId: string,
  statuses: readonly string[],
): Promise<number> {
  const row = await db
    .prepare(
      `SELECT COUNT(*) AS n FROM orders WHERE partner_id = ? AND livemode = 0 AND status IN (${statuses.map(() => "?").join(", ")})`,
    )
    .bind(partnerId, ...statuses)
    .first<{ n: number }>();
  return row?.n ?? 0;
}
