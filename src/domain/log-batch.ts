/**
 * When an isolate writes the request-log entries it has gathered (src/services/request-log.ts):
 * pure bookkeeping, the caller owns the clock and the writing. Entries wait in memory and are
 * written in one batch per log when the batch is full, or once the oldest has waited `intervalMs`.
 * Only the first entry of a batch asks for a timer (one per interval, not one per request), so an
 * entry is written within `intervalMs` even when no request follows it.
 */
export type LogBatchStep =
  /** Take the batch and write it now. */
  | "write"
  /** Arm a timer: after `intervalMs`, call `timerFired` and write what it returns. */
  | "arm"
  /** Nothing to do: the entry rides with a timer already armed. */
  | "wait";

export class LogBatch<T> {
  #byLog = new Map<string, T[]>();
  #count = 0;
  #oldestAt: number | null = null;
  #armedAt: number | null = null;

  constructor(
    readonly maxEntries: number,
    readonly intervalMs: number,
  ) {}

  get size(): number {
    return this.#count;
  }

  add(log: string, entry: T, now: number): LogBatchStep {
    const pending = this.#byLog.get(log);
    if (pending) pending.push(entry);
    else this.#byLog.set(log, [entry]);
    this.#count++;
    this.#oldestAt ??= now;
    // A timer that is overdue by a whole interval is lost (its request's context ended): the next
    // entry arms a fresh one.
    if (this.#armedAt !== null && now - this.#armedAt >= 2 * this.intervalMs) this.#armedAt = null;
    // A clock behind the oldest entry (an isolate's clock is not monotonic across requests) leaves
    // the batch's age unknown: write rather than hold entries until the clock catches up.
    const age = now - this.#oldestAt;
    if (this.#count >= this.maxEntries || age >= this.intervalMs || age < 0) return "write";
    if (this.#armedAt !== null) return "wait";
    this.#armedAt = now;
    return "arm";
  }

  /** The gathered entries by log, leaving the batch empty. */
  take(): Map<string, T[]> {
    const batch = this.#byLog;
    this.#byLog = new Map();
    this.#count = 0;
    this.#oldestAt = null;
    return batch;
  }

  /** The armed timer ran out: the entries to write (possibly none). */
  timerFired(): Map<string, T[]> {
    this.#armedAt = null;
    return this.take();
  }
}
