import {
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

/** Whose log an entry goes to: one object per partner and mode. */
export const logName = (partnerId: string, livemode: boolean) => `${partnerId}:${livemode ? "live" : "test"}`;

/** This isolate's entries not yet written, by log name. */
let buffer = new Map<string, NewRequestLogEntry[]>();
let flushing: Promise<void> | null = null;

async function flush(env: Env, retentionDays: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, FLUSH_DELAY_MS));
  const batch = buffer;
  buffer = new Map();
  flushing = null;
  const cutoff = retentionCutoff(Date.now(), retentionDays);
  await Promise.all(
    [...batch].map(async ([name, pending]) => {
      try {
        await env.REQUEST_LOGS.getByName(name).append(pending, cutoff);
      } catch (err) {
        // The log is a convenience: a failed write loses these entries, never the requests.
        console.error(`request log ${name}: ${entriesLost(pending.length)}`, err);
      }
    }),
  );
}

const entriesLost = (n: number) => `${n} entr${n === 1 ? "y" : "ies"} lost`;

/**
 * Queues one entry for the partner's log and keeps the isolate alive (waitUntil) until it is
 * written: no storage call on the request's path.
 */
export function logRequest(
  env: Env,
  ctx: { waitUntil(promise: Promise<unknown>): void },
  name: string,
  entry: NewRequestLogEntry,
  retentionDays: number,
): void {
  const pending = buffer.get(name);
  if (pending) pending.push(entry);
  else buffer.set(name, [entry]);
  flushing ??= flush(env, retentionDays);
  ctx.waitUntil(flushing);
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
