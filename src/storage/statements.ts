// Statements, their adjustments and the partners' payout settings (migrations/0032).
import type { AdjustmentLine, CoinLine, Month, StatementStatus, StatementTotals } from "../domain/statements";

export interface PayoutSettingsRow {
  partner_id: string;
  coin: string;
  network: string;
  address: string | null;
  tag: string | null;
  minimum_usd: string;
  pending_coin: string | null;
  pending_network: string | null;
  pending_address: string | null;
  pending_tag: string | null;
  pending_effective_at: string | null;
  pending_requested_by: string | null;
  pending_requested_at: string | null;
  updated_at: string;
}

export interface StatementRow {
  id: string;
  partner_id: string;
  livemode: number;
  month: string;
  issued_at: string;
  lines: string;
  adjustments: string;
  orders: number;
  earnings_usd: string;
  adjustments_usd: string;
  carry_in_usd: string;
  total_usd: string;
  minimum_usd: string;
  status: StatementStatus;
  hold_reason: string | null;
  coin: string | null;
  network: string | null;
  address: string | null;
  tag: string | null;
  price_usd: string | null;
  amount: string | null;
  due_at: string;
  round: number;
  dispatched_at: string | null;
  txid: string | null;
  paid_at: string | null;
}

export interface ParsedStatement extends Omit<StatementRow, "lines" | "adjustments"> {
  lines: CoinLine[];
  adjustments: AdjustmentLine[];
}

export function parseStatement(row: StatementRow): ParsedStatement {
  return {
    ...row,
    lines: JSON.parse(row.lines) as CoinLine[],
    adjustments: JSON.parse(row.adjustments) as AdjustmentLine[],
  };
}

// ---- payout settings ------------------------------------------------------------------------

export function getPayoutSettings(db: D1Database, partnerId: string): Promise<PayoutSettingsRow | null> {
  return db
    .prepare("SELECT * FROM payout_settings WHERE partner_id = ?")
    .bind(partnerId)
    .first<PayoutSettingsRow>();
}

/** Asset and minimum; the address is changed only through a pending change. */
export async function putPayoutTerms(
  db: D1Database,
  partnerId: string,
  terms: { coin: string; network: string; minimum_usd: string },
  at: string,
): Promise<void> {
  await db
    .prepare(
      `INSERT INTO payout_settings (partner_id, coin, network, minimum_usd, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (partner_id) DO UPDATE SET coin = excluded.coin, network = excluded.network,
         minimum_usd = excluded.minimum_usd, updated_at = excluded.updated_at`,
    )
    .bind(partnerId, terms.coin, terms.network, terms.minimum_usd, at)
    .run();
}

/** Starts an address change that takes effect at `effectiveAt` (replacing any change still waiting). */
export async function requestAddressChange(
  db: D1Database,
  partnerId: string,
  change: {
    coin: string;
    network: string;
    address: string;
    tag: string | null;
    effectiveAt: string;
    requestedBy: string;
  },
  at: string,
): Promise<void> {
  await db
    .prepare(
      `UPDATE payout_settings SET pending_coin = ?, pending_network = ?, pending_address = ?, pending_tag = ?,
         pending_effective_at = ?, pending_requested_by = ?, pending_requested_at = ?, updated_at = ?
       WHERE partner_id = ?`,
    )
    .bind(
      change.coin,
      change.network,
      change.address,
      change.tag,
      change.effectiveAt,
      change.requestedBy,
      at,
      at,
      partnerId,
    )
    .run();
}

/** Cancels a change still waiting; false when there was none. */
export async function cancelAddressChange(db: D1Database, partnerId: string, at: string): Promise<boolean> {
  const r = await db
    .prepare(
      `UPDATE payout_settings SET pending_coin = NULL, pending_network = NULL, pending_address = NULL,
         pending_tag = NULL, pending_effective_at = NULL,
         pending_requested_by = NULL, pending_requested_at = NULL, updated_at = ?
       WHERE partner_id = ? AND pending_address IS NOT NULL AND pending_effective_at > ?`,
    )
    .bind(at, partnerId, at)
    .run();
  return r.meta.changes > 0;
}

/** Makes every change whose cooling period is over the current address. */
export async function applyCooledAddresses(db: D1Database, at: string): Promise<void> {
  await db
    .prepare(
      `UPDATE payout_settings SET coin = pending_coin, network = pending_network, address = pending_address,
         tag = pending_tag, pending_coin = NULL, pending_network = NULL, pending_address = NULL,
         pending_tag = NULL, pending_effective_at = NULL, pending_requested_by = NULL,
         pending_requested_at = NULL, updated_at = ?
       WHERE pending_address IS NOT NULL AND pending_coin IS NOT NULL AND pending_effective_at <= ?`,
    )
    .bind(at, at)
    .run();
}

// ---- statements -----------------------------------------------------------------------------

export interface NewStatement {
  id: string;
  partnerId: string;
  livemode: boolean;
  month: Month;
  issuedAt: string;
  dueAt: string;
  totals: StatementTotals;
  minimumUsd: string;
  coin: string | null;
  network: string | null;
  address: string | null;
  tag: string | null;
}

/**
 * Issues a statement and takes its adjustments, in one batch. A statement that already exists for
 * the partner, mode and month wins: nothing is written, its adjustments stay where they were.
 */
export async function insertStatement(db: D1Database, s: NewStatement): Promise<boolean> {
  const t = s.totals;
  const ids = t.adjustments.map((a) => a.id);
  const insert = db
    .prepare(
      `INSERT INTO statements (id, partner_id, livemode, month, issued_at, lines, adjustments, orders, earnings_usd,
         adjustments_usd, carry_in_usd, total_usd, minimum_usd, status, coin, network, address, tag, due_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT DO NOTHING`,
    )
    .bind(
      s.id,
      s.partnerId,
      s.livemode ? 1 : 0,
      s.month,
      s.issuedAt,
      JSON.stringify(t.lines),
      JSON.stringify(t.adjustments),
      t.orders,
      t.earnings_usd,
      t.adjustments_usd,
      t.carry_in_usd,
      t.total_usd,
      s.minimumUsd,
      t.status,
      s.coin,
      s.network,
      s.address,
      s.tag,
      s.dueAt,
    );
  // Taken only by the statement this batch wrote (its issued_at), never by one a re-run found.
  const take = ids.map((id) =>
    db
      .prepare(
        `UPDATE statement_adjustments SET statement_id = ?1 WHERE id = ?2 AND statement_id IS NULL
           AND EXISTS (SELECT 1 FROM statements WHERE id = ?1 AND issued_at = ?3)`,
      )
      .bind(s.id, id, s.issuedAt),
  );
  const [inserted] = await db.batch([insert, ...take]);
  return (inserted?.meta.changes ?? 0) > 0;
}

export async function getStatement(db: D1Database, id: string): Promise<StatementRow | null> {
  return db.prepare("SELECT * FROM statements WHERE id = ?").bind(id).first<StatementRow>();
}

export interface StatementFilter {
  partnerId?: string | undefined;
  livemode?: boolean | undefined;
  month?: string | undefined;
  limit: number;
}

/** Newest month first. */
export async function listStatements(db: D1Database, f: StatementFilter): Promise<StatementRow[]> {
  const where: string[] = [];
  const binds: (string | number)[] = [];
  if (f.partnerId !== undefined) {
    where.push("partner_id = ?");
    binds.push(f.partnerId);
  }
  if (f.livemode !== undefined) {
    where.push("livemode = ?");
    binds.push(f.livemode ? 1 : 0);
  }
  if (f.month !== undefined) {
    where.push("month = ?");
    binds.push(f.month);
  }
  const { results } = await db
    .prepare(
      `SELECT * FROM statements ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
        ORDER BY month DESC, livemode DESC, partner_id LIMIT ?`,
    )
    .bind(...binds, f.limit)
    .all<StatementRow>();
  return results;
}

/** The latest statement before `month`: what it carried over starts the next one. */
export function previousStatement(
  db: D1Database,
  partnerId: string,
  livemode: boolean,
  month: Month,
): Promise<Pick<StatementRow, "status" | "total_usd"> | null> {
  return db
    .prepare(
      `SELECT status, total_usd FROM statements WHERE partner_id = ? AND livemode = ? AND month < ?
        ORDER BY month DESC LIMIT 1`,
    )
    .bind(partnerId, livemode ? 1 : 0, month)
    .first();
}

/** Partners created before the month ended that have no statement for it yet, by id after `after`. */
export async function partnersWithoutStatement(
  db: D1Database,
  month: Month,
  livemode: boolean,
  monthEnd: string,
  limit: number,
  after = "",
): Promise<string[]> {
  const { results } = await db
    .prepare(
      `SELECT p.id FROM partners p WHERE p.created_at < ? AND p.id > ?
          AND NOT EXISTS (SELECT 1 FROM statements s WHERE s.partner_id = p.id AND s.livemode = ? AND s.month = ?)
        ORDER BY p.id LIMIT ?`,
    )
    .bind(monthEnd, after, livemode ? 1 : 0, month, limit)
    .all<{ id: string }>();
  return results.map((r) => r.id);
}

/** Pending statements whose payout is due: not yet handed over, or handed over a while ago (re-poked). */
export async function dueStatements(db: D1Database, at: string, repokeBefore: string, limit: number) {
  const { results } = await db
    .prepare(
      `SELECT * FROM statements WHERE status = 'pending' AND due_at <= ?
          AND (dispatched_at IS NULL OR dispatched_at <= ?) ORDER BY due_at LIMIT ?`,
    )
    .bind(at, repokeBefore, limit)
    .all<StatementRow>();
  return results;
}

/**
 * Fixes the payout of a pending statement not yet handed over: destination, the asset's price and
 * the amount it comes to. False when it was not pending and undispatched any more (a hold won).
 */
export async function markDispatched(
  db: D1Database,
  id: string,
  payout: {
    coin: string;
    network: string;
    address: string;
    tag: string | null;
    price_usd: string;
    amount: string;
  },
  at: string,
): Promise<boolean> {
  const r = await db
    .prepare(
      `UPDATE statements SET coin = ?, network = ?, address = ?, tag = ?, price_usd = ?, amount = ?, dispatched_at = ?
        WHERE id = ? AND status = 'pending' AND dispatched_at IS NULL`,
    )
    .bind(payout.coin, payout.network, payout.address, payout.tag, payout.price_usd, payout.amount, at, id)
    .run();
  return r.meta.changes > 0;
}

/** A payout handed over again (the re-poke): only the time moves. */
export async function touchDispatched(db: D1Database, id: string, at: string): Promise<void> {
  await db
    .prepare("UPDATE statements SET dispatched_at = ? WHERE id = ? AND status = 'pending'")
    .bind(at, id)
    .run();
}

/** A finished payout of round `round`: paid with its txid, or held when the gateway refused it. */
export async function settleStatementPayout(
  db: D1Database,
  id: string,
  round: number,
  state: { outcome: "sent" | "failed" | null; txid: string | null },
  at: string,
): Promise<void> {
  if (state.outcome === "sent")
    await db
      .prepare(
        "UPDATE statements SET status = 'paid', txid = ?, paid_at = ?, hold_reason = NULL WHERE id = ? AND round = ? AND status IN ('pending', 'held')",
      )
      .bind(state.txid, at, id, round)
      .run();
  else if (state.outcome === "failed")
    await db
      .prepare(
        "UPDATE statements SET status = 'held', hold_reason = 'the payout gateway refused the payout' WHERE id = ? AND round = ? AND status = 'pending'",
      )
      .bind(id, round)
      .run();
}

/**
 * Records a held payout as paid by hand (txid): false unless it is held. A held payout has no send
 * that may still pay (held before it was handed over, or refused for good), and a paid one can no
 * longer be released.
 */
export async function resolveStatement(
  db: D1Database,
  id: string,
  txid: string,
  at: string,
): Promise<boolean> {
  const r = await db
    .prepare(
      "UPDATE statements SET status = 'paid', txid = ?, paid_at = ?, hold_reason = NULL WHERE id = ? AND status = 'held'",
    )
    .bind(txid, at, id)
    .run();
  return r.meta.changes > 0;
}

/** Holds a pending payout not yet handed to the ledger; false otherwise. */
export async function holdStatement(db: D1Database, id: string, reason: string): Promise<boolean> {
  const r = await db
    .prepare(
      "UPDATE statements SET status = 'held', hold_reason = ? WHERE id = ? AND status = 'pending' AND dispatched_at IS NULL",
    )
    .bind(reason, id)
    .run();
  return r.meta.changes > 0;
}

/**
 * Releases a held payout. One the gateway refused starts a new round (a new ledger key, converted
 * again when it is handed over); one held before it was handed over just goes on.
 */
export async function releaseStatement(db: D1Database, id: string): Promise<boolean> {
  const r = await db
    .prepare(
      `UPDATE statements SET status = 'pending', hold_reason = NULL,
         round = CASE WHEN dispatched_at IS NULL THEN round ELSE round + 1 END,
         price_usd = CASE WHEN dispatched_at IS NULL THEN price_usd END,
         amount = CASE WHEN dispatched_at IS NULL THEN amount END,
         dispatched_at = NULL
       WHERE id = ? AND status = 'held'`,
    )
    .bind(id)
    .run();
  return r.meta.changes > 0;
}

// ---- adjustments ----------------------------------------------------------------------------

export async function openAdjustments(
  db: D1Database,
  partnerId: string,
  livemode: boolean,
): Promise<AdjustmentLine[]> {
  const { results } = await db
    .prepare(
      `SELECT id, amount_usd, reason FROM statement_adjustments
        WHERE partner_id = ? AND livemode = ? AND statement_id IS NULL ORDER BY created_at, id`,
    )
    .bind(partnerId, livemode ? 1 : 0)
    .all<AdjustmentLine>();
  return results;
}

export function insertAdjustmentStatement(
  db: D1Database,
  a: AdjustmentLine & { partnerId: string; livemode: boolean; createdBy: string; createdAt: string },
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO statement_adjustments (id, partner_id, livemode, amount_usd, reason, created_by, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(a.id, a.partnerId, a.livemode ? 1 : 0, a.amount_usd, a.reason, a.createdBy, a.createdAt);
}

/** Live statements not yet paid (pending or held), for the totals owed per asset. */
export async function unpaidStatements(db: D1Database): Promise<StatementRow[]> {
  const { results } = await db
    .prepare("SELECT * FROM statements WHERE livemode = 1 AND status IN ('pending', 'held')")
    .all<StatementRow>();
  return results;
}
