// The cabinet's reads of the order index: filtered keyset pages and search, per-day counts, the
// completed orders earnings are summed from, and the webhook deliveries of one order.

import type { EarningsRow } from "../domain/earnings";
import type { OrderStatus } from "../domain/order-state";
import type { DayCount } from "../domain/overview";
import { DETAIL_COLUMNS, type OrderIndexDetails, type OrderIndexRow } from "./orders";
import type { D1Reads } from "./session";
import type { DeliveryRow } from "./webhooks";

export type CabinetOrderRow = OrderIndexRow & OrderIndexDetails;

export interface OrderFilter {
  partnerId: string;
  /** The header switch's view: live orders, or test orders (docs/test-mode.md). */
  livemode: boolean;
  status?: OrderStatus | undefined;
  /** ISO instants: created_at in [createdFrom, createdTo). */
  createdFrom?: string | undefined;
  createdTo?: string | undefined;
  coinFrom?: string | undefined;
  coinTo?: string | undefined;
  rateType?: "float" | "fixed" | undefined;
  /** An ISO instant: updated_at ≥ it. */
  updatedFrom?: string | undefined;
  /** The partner's own reference, exactly. */
  partnerOrderId?: string | undefined;
  /**
   * Exact matches: the order id, its short_id (already normalised), its deposit address or a
   * deposit / payout / refund txid. Each has its own index, so a search never scans.
   */
  search?: { id: string | null; shortId: string | null; text: string } | undefined;
}

const COLUMNS = [
  "id",
  "short_id",
  "partner_id",
  "status",
  "coin_from",
  "network_from",
  "coin_to",
  "network_to",
  "deposit_address",
  "deposit_address_tag",
  "created_at",
  "updated_at",
  "expires_at",
  ...DETAIL_COLUMNS,
]
  .map((c) => `o.${c}`)
  .join(", ");

// A search is a handful of exact lookups, each on its own index, whose ids are then joined to
// the rows. CROSS JOIN fixes that order: left alone, the planner would rather walk the partner's
// (created_at) index for the ORDER BY and test every row against the search — a full scan. D1
// allows few terms per compound SELECT, hence two small unions.
const SEARCH_HITS = `WITH
  by_key(id) AS (SELECT ? UNION SELECT id FROM orders WHERE short_id = ?
    UNION SELECT id FROM orders WHERE deposit_address = ?),
  by_txid(id) AS (SELECT id FROM orders WHERE deposit_txid = ? UNION SELECT id FROM orders WHERE payout_txid = ?
    UNION SELECT id FROM orders WHERE refund_txid = ?),
  hits(id) AS (SELECT id FROM by_key UNION SELECT id FROM by_txid)`;

function where(f: OrderFilter): { sql: string; args: (string | number)[] } {
  const clauses = ["o.partner_id = ?", "o.livemode = ?"];
  const args: (string | number)[] = [f.partnerId, f.livemode ? 1 : 0];
  const add = (clause: string, value: string | undefined) => {
    if (value === undefined) return;
    clauses.push(clause);
    args.push(value);
  };
  add("o.status = ?", f.status);
  add("o.coin_from = ?", f.coinFrom);
  add("o.coin_to = ?", f.coinTo);
  add("o.rate_type = ?", f.rateType);
  add("o.created_at >= ?", f.createdFrom);
  add("o.created_at < ?", f.createdTo);
  add("o.updated_at >= ?", f.updatedFrom);
  add("o.partner_order_id = ?", f.partnerOrderId);
  return { sql: clauses.join(" AND "), args };
}

function source(f: OrderFilter): { sql: string; args: string[] } {
  const s = f.search;
  if (!s) return { sql: "SELECT {cols} FROM orders AS o", args: [] };
  return {
    sql: `${SEARCH_HITS} SELECT {cols} FROM hits CROSS JOIN orders AS o ON o.id = hits.id`,
    args: [s.id ?? "", s.shortId ?? "", s.text, s.text, s.text, s.text],
  };
}

/** The statement of one page, newest first, after the (created_at, id) position `after`. */
export function searchStatement(
  f: OrderFilter,
  after: { createdAt: string; id: string } | undefined,
  limit: number,
): { sql: string; args: (string | number)[] } {
  const w = where(f);
  const from = source(f);
  // `created_at <= ?` is what lets the index seek to the position (D1's planner does not derive a
  // range from the OR alone, and would skip every earlier row one by one); the OR breaks ties.
  const keyset = after ? " AND o.created_at <= ? AND (o.created_at < ? OR o.id < ?)" : "";
  const keyArgs = after ? [after.createdAt, after.createdAt, after.id] : [];
  return {
    sql: `${from.sql.replace("{cols}", COLUMNS)} WHERE ${w.sql}${keyset} ORDER BY o.created_at DESC, o.id DESC LIMIT ?`,
    args: [...from.args, ...w.args, ...keyArgs, limit],
  };
}

/** One page: keyset, never OFFSET. */
export async function searchOrders(
  db: D1Reads,
  f: OrderFilter,
  after: { createdAt: string; id: string } | undefined,
  limit: number,
): Promise<CabinetOrderRow[]> {
  const s = searchStatement(f, after, limit);
  const { results } = await db
    .prepare(s.sql)
    .bind(...s.args)
    .all<CabinetOrderRow>();
  return results;
}

/** Orders created per UTC day since `from`, on the (partner_id, created_at) index. */
export async function ordersPerDay(
  db: D1Reads,
  partnerId: string,
  livemode: boolean,
  from: string,
): Promise<DayCount[]> {
  const { results } = await db
    .prepare(
      `SELECT substr(created_at, 1, 10) AS day, COUNT(*) AS created, SUM(status = 'completed') AS completed FROM orders
        WHERE partner_id = ? AND livemode = ? AND created_at >= ? GROUP BY day ORDER BY day`,
    )
    .bind(partnerId, livemode ? 1 : 0, from)
    .all<DayCount>();
  return results;
}

/** Orders completed in [from, to), for the earnings sums. */
export async function completedOrders(
  db: D1Reads,
  partnerId: string,
  livemode: boolean,
  from: string,
  to: string,
): Promise<EarningsRow[]> {
  const { results } = await db
    .prepare(
      `SELECT completed_at, coin_from, markup_amount, markup_usd, volume_usd FROM orders
        WHERE partner_id = ? AND livemode = ? AND completed_at >= ? AND completed_at < ? ORDER BY completed_at`,
    )
    .bind(partnerId, livemode ? 1 : 0, from, to)
    .all<EarningsRow>();
  return results;
}

/** The webhook deliveries of one order, in event order (the partner check is in the query). */
export async function deliveriesOfOrder(
  db: D1Database,
  partnerId: string,
  orderId: string,
): Promise<Omit<DeliveryRow, "payload">[]> {
  const { results } = await db
    .prepare(
      `SELECT event_id, partner_id, order_id, sequence, type, status, attempts, last_status_code, last_error,
              next_retry_at, window_start, created_at, delivered_at
         FROM webhook_deliveries WHERE order_id = ? AND partner_id = ? ORDER BY sequence`,
    )
    .bind(orderId, partnerId)
    .all<Omit<DeliveryRow, "payload">>();
  return results;
}
