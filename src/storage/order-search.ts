// The cabinet's reads of the order index: filtered keyset pages and search, per-day counts, the
// completed orders earnings are summed from, and the webhook deliveries of one order.
import type { EarningsRow } from "../domain/earnings";
import type { OrderStatus } from "../domain/order-state";
import type { DayCount } from "../domain/overview";
import { DETAIL_COLUMNS, type OrderIndexDetails, type OrderIndexRow } from "./orders";
import type { DeliveryRow } from "./webhooks";

export type CabinetOrderRow = OrderIndexRow & OrderIndexDetails;

export interface OrderFilter {
  partnerId: string;
  status?: OrderStatus | undefined;
  /** ISO instants: created_at in [createdFrom, createdTo). */
  createdFrom?: string | undefined;
  createdTo?: string | undefined;
  coinFrom?: string | undefined;
  coinTo?: string | undefined;
  rateType?: "float" | "fixed" | undefined;
  /**
   * Exact matches: the order id, its short_id (already normalised), its deposit address or a
   * deposit / payout / refund txid. Each has its own index, so a search never scans.
   */
  search?: { id: string | null; shortId: string | null; text: string } | undefined;
}

const SELECT = `SELECT id, short_id, partner_id, status, coin_from, network_from, coin_to, network_to,
  deposit_address, deposit_address_tag, created_at, updated_at, expires_at, ${DETAIL_COLUMNS.join(", ")}
  FROM orders`;

function where(f: OrderFilter): { sql: string; args: (string | number)[] } {
  const clauses = ["partner_id = ?"];
  const args: (string | number)[] = [f.partnerId];
  const eq = (column: string, value: string | undefined) => {
    if (value === undefined) return;
    clauses.push(`${column} = ?`);
    args.push(value);
  };
  eq("status", f.status);
  eq("coin_from", f.coinFrom);
  eq("coin_to", f.coinTo);
  eq("rate_type", f.rateType);
  if (f.createdFrom) {
    clauses.push("created_at >= ?");
    args.push(f.createdFrom);
  }
  if (f.createdTo) {
    clauses.push("created_at < ?");
    args.push(f.createdTo);
  }
  if (f.search) {
    const s = f.search;
    clauses.push(
      "(id = ? OR short_id = ? OR deposit_address = ? OR deposit_txid = ? OR payout_txid = ? OR refund_txid = ?)",
    );
    args.push(s.id ?? "", s.shortId ?? "", s.text, s.text, s.text, s.text);
  }
  return { sql: clauses.join(" AND "), args };
}

/** One page, newest first, after the (created_at, id) position `after`: keyset, never OFFSET. */
export async function searchOrders(
  db: D1Database,
  f: OrderFilter,
  after: { createdAt: string; id: string } | undefined,
  limit: number,
): Promise<CabinetOrderRow[]> {
  const w = where(f);
  const keyset = after ? " AND (created_at < ? OR (created_at = ? AND id < ?))" : "";
  const keyArgs = after ? [after.createdAt, after.createdAt, after.id] : [];
  const { results } = await db
    .prepare(`${SELECT} WHERE ${w.sql}${keyset} ORDER BY created_at DESC, id DESC LIMIT ?`)
    .bind(...w.args, ...keyArgs, limit)
    .all<CabinetOrderRow>();
  return results;
}

/** Orders created per UTC day since `from`, on the (partner_id, created_at) index. */
export async function ordersPerDay(db: D1Database, partnerId: string, from: string): Promise<DayCount[]> {
  const { results } = await db
    .prepare(
      `SELECT substr(created_at, 1, 10) AS day, COUNT(*) AS created, SUM(status = 'completed') AS completed FROM orders
        WHERE partner_id = ? AND created_at >= ? GROUP BY day ORDER BY day`,
    )
    .bind(partnerId, from)
    .all<DayCount>();
  return results;
}

/** Orders completed in [from, to), for the earnings sums. */
export async function completedOrders(
  db: D1Database,
  partnerId: string,
  from: string,
  to: string,
): Promise<EarningsRow[]> {
  const { results } = await db
    .prepare(
      `SELECT completed_at, coin_from, markup_amount, markup_usd, volume_usd FROM orders
        WHERE partner_id = ? AND completed_at >= ? AND completed_at < ? ORDER BY completed_at`,
    )
    .bind(partnerId, from, to)
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
