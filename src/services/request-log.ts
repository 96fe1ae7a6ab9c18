import { LogBatch } from "../domain/log-batch";
import {
  encodeLogEntry,
  logBatchText,
  type NewRequestLogEntry,
  type RequestLogEntry,
  type RequestLogFilter,
  retentionCutoff,
} from "../domain/request-log";

/**
 * How long an isolate gathers entries before it writes them: one call per partner (and mode) per
 * second at most, however many requests it answered, and well inside the 10 s within which a
 * request must show in the log.
 */
export const FLUSH_DELAY_MS = 1_000;

/** A batch this large is written at once, without waiting for the interval. */
export const FLUSH_ENTRIES = 200;

/** Whose log an entry goes to: one object per partner and mode. */
export const logName = (partnerId: string, livemode: boolean) => `${partnerId}:${livemode ? "live" : "test"}`;

/** This isolate's entries not yet written, by log name (src/domain/log-batch.ts says when). */
const batch = new LogBatch<string>(FLUSH_ENTRIES, FLUSH_DELAY_MS);

async function write(env: Env, entries: Map<string, string[]>, retentionDays: number) {
  const cutoff = retentionCutoff(Date.now(), retentionDays);
  await Promise.all(
    [...entries].map(async ([name, pending]) => {
      try {
        await env.REQUEST_LOGS.getByName(name).append(logBatchText(pending), cutoff);
      } catch (err) {
        // The log is a convenience: a failed write loses these entries, never the requests.
        console.error(`request log ${name}: ${entriesLost(pending.length)}`, err);
      }
    }),
  );
}

const entriesLost = (n: number) => `${n} entr${n === 1 ? "y" : "ies"} lost`;

/**
 * Queues one entry for the partner's log: no storage call on the request's path, and no wait
 * added to most requests. The isolate owns the batch; the request that fills it, or that comes
 * after the interval, writes it (waitUntil of that request alone), and the first entry of a batch
 * holds its request open for one interval so the batch is written even when no request follows.
 */
export function logRequest(
  env: Env,
  ctx: { waitUntil(promise: Promise<unknown>): void },
  name: string,
  entry: NewRequestLogEntry,
  retentionDays: number,
): void {
  const step = batch.add(name, encodeLogEntry(entry), Date.now());
  if (step === "write") ctx.waitUntil(write(env, batch.take(), retentionDays));
  else if (step === "arm")
    ctx.waitUntil(
      new Promise((resolve) => setTimeout(resolve, FLUSH_DELAY_MS)).then(() =>
        write(env, batch.timerFired(), retentionDays),
      ),
    );
}

export interface RequestLogPage {
  data: RequestLogEntry[];
  next_cursor: string | null;
}

/** A page of one partner's log, newest first; `cursor` is the previous page's `next_cursor`. */
export async function listRequestLog(
  env: Env,
  name: string,
  filter: RequestLogFilter,
  cursor: number | null,
  limit: number,
  retentionDays: number,
): Promise<RequestLogPage> {
  const rows = await env.REQUEST_LOGS.getByName(name).list(
    filter,
    cursor,
    limit + 1,
    retentionCutoff(Date.now(), retentionDays),
  );
  const data = rows.slice(0, limit);
  const last = data.at(-1);
  return { data, next_cursor: rows.length > limit && last ? String(last.seq) : null };
}
