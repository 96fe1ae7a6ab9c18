import { DurableObject } from "cloudflare:workers";
import { LOG_COLUMNS, type RequestLogEntry, type RequestLogFilter, statusRange } from "../domain/request-log";

/**
 * Rows deleted per append at most, so trimming never makes one append slow; more than a batch
 * holds (src/services/request-log.ts), so trimming keeps up with appending.
 */
const TRIM_BATCH = 500;

/** A batch (logBatchText: a JSON array of entries, each an array in LOG_COLUMNS order), in one statement. */
const INSERT_BATCH = `INSERT INTO entries (${LOG_COLUMNS.join(", ")})
  SELECT ${LOG_COLUMNS.map((_, i) => `value->>${i}`).join(", ")} FROM json_each(?)`;

/**
 * One partner's API request log in one mode (named `<partner_id>:<live|test>`): appended in
 * batches by the isolates that answered the requests (src/services/request-log.ts), read newest
 * first by the cabinet and `GET /api/v1/partner/logs`. One object per partner keeps a busy
 * partner's writes off everyone else's (docs/performance.md, "What bounds each endpoint").
 */
export class RequestLog extends DurableObject<Env> {
  private readonly sql = this.ctx.storage.sql;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS entries (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      at_ms INTEGER NOT NULL, method TEXT NOT NULL, path TEXT NOT NULL, query TEXT NOT NULL,
      status INTEGER NOT NULL, code TEXT, latency_ms INTEGER NOT NULL, key_id TEXT NOT NULL,
      request_id TEXT NOT NULL, ip TEXT, order_id TEXT, error_body TEXT)`);
    // Time is not indexed: the table's own order (seq) is arrival order, which is what trimming
    // walks and what the newest-first pages read; an index on it only cost a write per entry.
    this.sql.exec("DROP INDEX IF EXISTS entries_at");
    this.sql.exec("CREATE INDEX IF NOT EXISTS entries_request ON entries (request_id)");
    this.sql.exec("CREATE INDEX IF NOT EXISTS entries_order ON entries (order_id)");
  }

  /** Appends a batch (logBatchText) and trims what is older than `cutoffMs`; one transaction. */
  append(batch: string, cutoffMs: number): void {
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(INSERT_BATCH, batch);
      this.trim(cutoffMs);
    });
  }

  /**
   * Deletes expired entries from the oldest (lowest seq) on. Arrival order and time agree to within
   * the seconds an isolate holds a batch, so the expired rows are the head of the table: looking at
   * its first row is all a log with nothing expired costs, whatever its size.
   */
  private trim(cutoffMs: number): void {
    const [oldest] = this.sql
      .exec<{ at_ms: number }>("SELECT at_ms FROM entries ORDER BY seq LIMIT 1")
      .toArray();
    if (!oldest || oldest.at_ms >= cutoffMs) return;
    this.sql.exec(
      `DELETE FROM entries WHERE seq IN
         (SELECT seq FROM (SELECT seq, at_ms FROM entries ORDER BY seq LIMIT ?) WHERE at_ms < ?)`,
      TRIM_BATCH,
      cutoffMs,
    );
  }

  /** Newest first, after `before` (a seq) when given; entries older than `cutoffMs` never show. */
  list(filter: RequestLogFilter, before: number | null, limit: number, cutoffMs: number): RequestLogEntry[] {
    const where: [string, ...(string | number)[]][] = [["at_ms >= ?", cutoffMs]];
    if (before !== null) where.push(["seq < ?", before]);
    if (filter.status !== undefined) where.push(["status BETWEEN ? AND ?", ...statusRange(filter.status)]);
    if (filter.code !== undefined) where.push(["code = ?", filter.code]);
    if (filter.path !== undefined) where.push(["substr(path, 1, ?) = ?", filter.path.length, filter.path]);
    if (filter.key_id !== undefined) where.push(["key_id = ?", filter.key_id]);
    if (filter.request_id !== undefined) where.push(["request_id = ?", filter.request_id]);
    if (filter.order_id !== undefined) where.push(["order_id = ?", filter.order_id]);
    const args = where.flatMap(([, ...values]) => values);
    return this.sql
      .exec<Record<string, string | number | null>>(
        `SELECT * FROM entries WHERE ${where.map(([clause]) => clause).join(" AND ")} ORDER BY seq DESC LIMIT ?`,
        ...args,
        limit,
      )
      .toArray() as unknown as RequestLogEntry[];
  }
}
