import type { SendRow } from "../../domain/send-step";
import type { LazyTable } from "./lazy-table";
import { DUE, type OrderSchedule } from "./schedule";

/** The ledger's columns as schema 1 created them. */
const SENDS_COLUMNS = `key TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  request TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  failures INTEGER NOT NULL,
  unknown_lookups INTEGER NOT NULL,
  next_at INTEGER NOT NULL,
  outcome TEXT,
  txid TEXT,
  error TEXT,
  updated_at TEXT NOT NULL`;

/**
 * Schema 2's columns: each row's number among the order's sends of its kind (1 for
 * `<id>:exchange`, 2 for `<id>:exchange:2`), and the exchange's venue legs (`progress`).
 */
const SENDS_COLUMNS_2 = ["number INTEGER NOT NULL DEFAULT 1", "progress TEXT"];

export const SENDS_TABLE = `CREATE TABLE sends (${SENDS_COLUMNS})`;

/** The table as schema 2 left it, for a store created at the latest schema in one step. */
export const SENDS_TABLE_LATEST = `CREATE TABLE sends (${SENDS_COLUMNS}, ${SENDS_COLUMNS_2.join(", ")})`;

/**
 * Schema 2: the number of each row already written, counted in the order the rows were written;
 * the venue legs, which until then lived beside the row under `venue:<key>`, move in (below).
 */
export const SENDS_NUMBER_AND_PROGRESS = `${SENDS_COLUMNS_2.map((c) => `ALTER TABLE sends ADD COLUMN ${c};`).join("\n")}
  UPDATE sends SET number = (SELECT COUNT(*) FROM sends s WHERE s.kind = sends.kind AND s.rowid <= sends.rowid);`;

/** Moves the venue legs of rows written before schema 2 from the object's key-value storage into their row. */
export function moveVenueLegs(storage: DurableObjectStorage): void {
  for (const [name, legs] of storage.kv.list<unknown>({ prefix: "venue:" })) {
    storage.sql.exec("UPDATE sends SET progress = ? WHERE key = ?", JSON.stringify(legs), name.slice(6));
    storage.kv.delete(name);
  }
}

type Stored = {
  key: string;
  kind: string;
  request: string;
  attempts: number;
  failures: number;
  unknown_lookups: number;
  next_at: number;
  outcome: string | null;
  txid: string | null;
};

/**
 * The order's ledger of money it sends (payouts, refunds, and the exchange's intent): one row per
 * idempotency key, its request frozen when first written, so every retry and lookup concerns exactly
 * the same transfer. Rows are never deleted; a finished one keeps its outcome and txid.
 */
export class SendsLedger {
  /**
   * `table`: `sends`, made by the order's first send (SENDS_TABLE_LATEST). Each unfinished send
   * keeps its row in the order's schedule at its next moment.
   */
  constructor(
    private readonly table: LazyTable,
    private readonly schedule: OrderSchedule,
  ) {}

  get<R>(key: string): (SendRow<R> & { outcome: string | null; txid: string | null }) | null {
    const row = this.table.rows<Stored>("SELECT * FROM sends WHERE key = ?", key)[0];
    if (!row) return null;
    return {
      key: row.key,
      kind: row.kind as SendRow<R>["kind"],
      request: JSON.parse(row.request) as R,
      attempts: row.attempts,
      failures: row.failures,
      unknownLookups: row.unknown_lookups,
      nextAt: row.next_at,
      outcome: row.outcome,
      txid: row.txid,
    };
  }

  /** How many sends of this kind the order has started (each under its own key). */
  count(kind: SendRow<unknown>["kind"]): number {
    return this.table.rows<{ n: number }>("SELECT COUNT(*) AS n FROM sends WHERE kind = ?", kind)[0]?.n ?? 0;
  }

  /** Keys of the sends of this kind not yet finished: pending, or of unknown outcome at the gateway. */
  unfinished(kind: SendRow<unknown>["kind"]): string[] {
    return this.table
      .rows<{ key: string }>("SELECT key FROM sends WHERE kind = ? AND outcome IS NULL ORDER BY key", kind)
      .map((r) => r.key);
  }

  /** Every send: its key, kind, outcome (null while unfinished) and txid, oldest first. */
  outcomes(): { key: string; kind: string; outcome: string | null; txid: string | null }[] {
    return this.table.rows("SELECT key, kind, outcome, txid FROM sends ORDER BY rowid");
  }

  /** The row's number among the order's sends of its kind (the `N` of an exchange's venue ids). */
  number(key: string): number | null {
    return (
      this.table.rows<{ number: number }>("SELECT number FROM sends WHERE key = ?", key)[0]?.number ?? null
    );
  }

  /** What the send has done so far beyond its attempts (an exchange's venue legs); null before anything. */
  progress<P>(key: string): P | null {
    const row = this.table.rows<{ progress: string | null }>(
      "SELECT progress FROM sends WHERE key = ?",
      key,
    )[0];
    return row?.progress ? (JSON.parse(row.progress) as P) : null;
  }

  /** Stores the send's progress in its row (durable before the next outgoing request: the object's output gate). */
  saveProgress<P>(key: string, progress: P): void {
    this.table.write("UPDATE sends SET progress = ? WHERE key = ?", JSON.stringify(progress), key);
  }

  /**
   * Writes a new row (numbered after the order's other sends of its kind), or the progress of an
   * existing one; its request never changes once written.
   */
  put<R>(row: SendRow<R>, at: string): void {
    this.table.write(
      `INSERT INTO sends (key, kind, request, attempts, failures, unknown_lookups, next_at, updated_at, number)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, (SELECT COUNT(*) + 1 FROM sends WHERE kind = ?))
       ON CONFLICT (key) DO UPDATE SET attempts = excluded.attempts, failures = excluded.failures,
         unknown_lookups = excluded.unknown_lookups, next_at = excluded.next_at, updated_at = excluded.updated_at`,
      row.key,
      row.kind,
      JSON.stringify(row.request),
      row.attempts,
      row.failures,
      row.unknownLookups,
      row.nextAt,
      at,
      row.kind,
    );
    this.schedule.set(DUE.send(row.key), row.nextAt);
  }

  /** The order wakes for this send again, at its next moment (`now` before its first attempt). */
  wake(key: string, now: number): void {
    this.schedule.set(DUE.send(key), this.get(key)?.nextAt ?? now);
  }

  /** The order stops waking for this send; its row stays as it is (an operator's hold). */
  sleep(key: string): void {
    this.schedule.clear(DUE.send(key));
  }

  finish(
    key: string,
    outcome: "sent" | "failed",
    txid: string | null,
    error: string | null,
    at: string,
  ): void {
    this.table.write(
      "UPDATE sends SET outcome = ?, txid = ?, error = ?, updated_at = ? WHERE key = ?",
      outcome,
      txid,
      error,
      at,
      key,
    );
    this.schedule.clear(DUE.send(key));
  }
}
