/**
 * The order's schedule: one row per concern that wants the order woken (the deposit poll, the
 * deadline, the end of the late-deposit watch, each unfinished send, the outbox retry, the pause
 * after a failed step, the WebSockets' longest connection time), each written and removed by its
 * concern. The alarm is always at the earliest row (docs/lifecycle.md, "Polling and timing").
 */
export const SCHEDULE_TABLE = "CREATE TABLE schedule (name TEXT PRIMARY KEY, due_at INTEGER NOT NULL)";

/** The concerns' row names; an unfinished send's row is `send:<ledger key>`. */
export const DUE = {
  poll: "poll",
  expiry: "expiry",
  lateWatchEnd: "late_watch_end",
  /** A screened deposit's hold ends (src/domain/holds.ts). */
  holdDeadline: "hold_deadline",
  /** D1 index projection, webhook outbox and liquidity step, retried together. */
  outbox: "outbox",
  /** After a step threw: nothing before this moment, whatever else looks due. */
  pause: "pause",
  /** A terminal order's compaction (src/objects/order/retention.ts). */
  retention: "retention",
  /** The earliest longest-connection time of the order's WebSockets (src/objects/stream-hub.ts). */
  streams: "streams",
  send: (key: string) => `send:${key}`,
} as const;

export interface DueRow {
  name: string;
  dueAt: number;
}

/**
 * When the alarm fires, on the order's clock: the earliest row, never before `now` nor before a
 * pause; null when nothing is due (the alarm is deleted).
 */
export function nextAlarm(rows: readonly DueRow[], now: number): number | null {
  let pause = 0;
  let earliest: number | null = null;
  for (const { name, dueAt } of rows) {
    if (name === DUE.pause) pause = dueAt;
    else if (earliest === null || dueAt < earliest) earliest = dueAt;
  }
  return earliest === null ? null : Math.max(now, pause, earliest);
}

export class OrderSchedule {
  constructor(private readonly sql: SqlStorage) {}

  set(name: string, dueAt: number): void {
    this.setAll([{ name, dueAt }]);
  }

  /** Several rows in one statement (an order's first rows, written by its creation). */
  setAll(rows: readonly DueRow[]): void {
    if (rows.length === 0) return;
    this.sql.exec(
      `INSERT INTO schedule (name, due_at) VALUES ${rows.map(() => "(?, ?)").join(", ")}
       ON CONFLICT (name) DO UPDATE SET due_at = excluded.due_at`,
      ...rows.flatMap((r) => [r.name, r.dueAt]),
    );
  }

  clear(name: string): void {
    this.sql.exec("DELETE FROM schedule WHERE name = ?", name);
  }

  get(name: string): number | null {
    return (
      this.sql.exec<{ due_at: number }>("SELECT due_at FROM schedule WHERE name = ?", name).toArray()[0]
        ?.due_at ?? null
    );
  }

  rows(): DueRow[] {
    return this.sql
      .exec<{ name: string; due_at: number }>("SELECT name, due_at FROM schedule ORDER BY due_at, name")
      .toArray()
      .map((r) => ({ name: r.name, dueAt: r.due_at }));
  }

  /** Sets the alarm to the earliest row, or deletes it; `clockMs` is a test order's clock offset. */
  async arm(storage: DurableObjectStorage, now: number, clockMs: number): Promise<void> {
    const at = nextAlarm(this.rows(), now);
    // Due moments are on the order's clock; the alarm runs on real time.
    if (at === null) await storage.deleteAlarm();
    else await storage.setAlarm(at - clockMs);
  }
}
