import { DurableObject } from "cloudflare:workers";
import {
  type NewRequestLogEntry,
  type RequestLogEntry,
  type RequestLogFilter,
  statusRange,
} from "../domain/request-log";

/** Rows deleted per append at most, so trimming never makes one append slow. */
const TRIM_BATCH = 500;

/**
 * One partner's API request log in one mode (named `<partner_id>:<live|test>`): appended in
 * batches by the isolates that answered the requests (src/services/request-log.ts), read newest
 * first by the cabinet and `GET /api/v1/partner/logs`. One object per partner keeps a busy
 * partner's writes off everyone else's (docs/performance.md, "Request log").
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
    this.sql.exec("CREATE INDEX IF NOT EXISTS entries_at ON entries (at_ms)");
    this.sql.exec("CREATE INDEX IF NOT EXISTS entries_request ON entries (request_id)");
    this.sql.exec("CREATE INDEX IF NOT EXISTS entries_order ON entries (order_id)");
  }

  /** Appends a batch and trims what is older than `cutoffMs`; one transaction. */
  append(entries: NewRequestLogEntry[], cutoffMs: number): void {
    this.ctx.storage.transactionSync(() => {
      for (const e of entries)
        this.sql.exec(
          `INSERT INTO entries (at_ms, method, path, query, status, code, latency_ms, key_id, request_id,
             ip, order_id, error_body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          e.at_ms,
          e.method,
          e.path,
          e.query,
          e.status,
          e.code,
          e.latency_ms,
          e.key_id,
          e.request_id,
          e.ip,
          e.order_id,
          e.error_body,
        );
      this.sql.exec(
        "DELETE FROM entries WHERE seq IN (SELECT seq FROM entries WHERE at_ms < ? ORDER BY seq LIMIT ?)",
        cutoffMs,
        TRIM_BATCH,
      );
    });
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
