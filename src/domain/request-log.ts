import { parseOrderRef, shortIdOfOrderId } from "./order-id";

// The partner's API request log (docs/cabinet.md, "Logs"): what one entry holds, how a request
// becomes one, and how a page of them is asked for. Plain data; the storage is
// src/objects/request-log.ts, the buffering src/services/request-log.ts.

/** One answered partner API request, as the partner sees it in their log. */
export interface RequestLogEntry {
  /** Keyset position within one partner's log (per mode): increasing, never reused. */
  seq: number;
  at_ms: number;
  method: string;
  /** The path without the query. */
  path: string;
  /** The query string exactly as sent (no leading `?`; empty when none). */
  query: string;
  status: number;
  /** The error's `code` for a 4xx/5xx answered in the API's error shape; null otherwise. */
  code: string | null;
  latency_ms: number;
  key_id: string;
  request_id: string;
  ip: string | null;
  /** The order the request was about (its UUID): the path's `{order_id}`, or the order it created. */
  order_id: string | null;
  /** For errors: the response body (at most ERROR_BODY_MAX characters). */
  error_body: string | null;
}

export type NewRequestLogEntry = Omit<RequestLogEntry, "seq">;

/**
 * The entry's fields in the order a written batch carries them: a batch crosses to its log object
 * as one JSON string of arrays (logBatchText), which the object inserts with one statement.
 */
export const LOG_COLUMNS = [
  "at_ms",
  "method",
  "path",
  "query",
  "status",
  "code",
  "latency_ms",
  "key_id",
  "request_id",
  "ip",
  "order_id",
  "error_body",
] as const satisfies readonly (keyof NewRequestLogEntry)[];

/**
 * One entry as its JSON array in LOG_COLUMNS order. An isolate keeps its pending entries encoded:
 * they wait up to a second for their batch, long enough to outlive the young generation, and one
 * flat string is far less for the garbage collector to move than an entry object and its strings
 * (the log's cost was half garbage collection: docs/performance.md, "What bounds each endpoint").
 */
export function encodeLogEntry(e: NewRequestLogEntry): string {
  return JSON.stringify(LOG_COLUMNS.map((column) => e[column]));
}

/** Encoded entries (encodeLogEntry) as one batch string: one cheap value to send, one statement to insert. */
export function logBatchText(encoded: readonly string[]): string {
  return `[${encoded.join(",")}]`;
}

/** An error body is kept whole up to this many characters (they are small `{detail, code}`). */
export const ERROR_BODY_MAX = 4096;

const ORDER_IN_PATH = /^\/api\/v1\/partner\/(?:test\/)?orders\/([^/]+)/;

/**
 * The order reference a partner path names (its `{order_id}` segment, a UUID or a short id as
 * sent), or null for paths about no one order.
 */
export function orderRefInPath(path: string): string | null {
  return ORDER_IN_PATH.exec(path)?.[1] ?? null;
}

/**
 * The `code` of an API error body — at its top, or in `additionalFields` of Ledger's error shape
 * (docs/ledger.md, "Errors") — or null when the body is neither.
 */
export function errorCode(body: string): string | null {
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed && typeof parsed === "object") {
      const { code, additionalFields } = parsed as { code?: unknown; additionalFields?: { code?: unknown } };
      const found = code ?? additionalFields?.code;
      if (typeof found === "string") return found;
    }
  } catch {
    // not JSON: a code-less error
  }
  return null;
}

export type StatusClass = "1xx" | "2xx" | "3xx" | "4xx" | "5xx";

export interface RequestLogFilter {
  /** A status class (`4xx`) or one status (`404`). */
  status?: StatusClass | number;
  code?: string;
  /** A path prefix (`/api/v1/partner/orders`). */
  path?: string;
  key_id?: string;
  request_id?: string;
  /** The order's UUID (parseOrderRef turns a short id into it). */
  order_id?: string;
}

/** The status range a filter asks for, as [lowest, highest] inclusive. */
export function statusRange(status: StatusClass | number): [number, number] {
  if (typeof status === "number") return [status, status];
  const base = Number(status[0]) * 100;
  return [base, base + 99];
}

/** Entries older than this are neither shown nor kept. */
export function retentionCutoff(nowMs: number, retentionDays: number): number {
  return nowMs - retentionDays * 86_400_000;
}

/**
 * An entry as the API and the cabinet show it. Its shape is stated once, by the route's
 * RequestLogEntrySchema (the contract); this mapping is checked against it where the route answers
 * with it, and the type is the mapping's.
 */
export type RequestLogView = ReturnType<typeof requestLogView>;

export function requestLogView(e: RequestLogEntry) {
  return {
    id: String(e.seq),
    at: new Date(e.at_ms).toISOString(),
    method: e.method,
    path: e.path,
    query: e.query,
    status: e.status,
    code: e.code,
    latency_ms: e.latency_ms,
    key_id: e.key_id,
    request_id: e.request_id,
    ip: e.ip,
    order_id: e.order_id,
    order_short_id: e.order_id ? shortIdOfOrderId(e.order_id) : null,
    error_body: e.error_body,
  };
}

/** A status filter as typed: a class (`4xx`) or one status (`404`); null when neither. */
export function parseStatusFilter(raw: string): StatusClass | number | null {
  if (/^[1-5]xx$/.test(raw)) return raw as StatusClass;
  return /^[1-5]\d\d$/.test(raw) ? Number(raw) : null;
}

/** A page cursor as sent back: the last entry's position; null when it is not one. */
export function parseLogCursor(raw: string): number | null {
  return /^\d{1,15}$/.test(raw) ? Number(raw) : null;
}

/** The filters as a query string carries them (the API's and the cabinet's, same names). */
export interface RequestLogFilterInput {
  status?: string | undefined;
  code?: string | undefined;
  path?: string | undefined;
  key_id?: string | undefined;
  request_id?: string | undefined;
  /** An order's UUID or short_id. */
  order_id?: string | undefined;
}

/** The filter the input asks for, or the names of the fields that are not valid. */
export function parseRequestLogFilter(
  input: RequestLogFilterInput,
): { ok: true; filter: RequestLogFilter } | { ok: false; invalid: string[] } {
  const blank = (v: string | undefined) => (v === undefined || v.trim() === "" ? undefined : v.trim());
  const status = blank(input.status);
  const order = blank(input.order_id);
  const parsedStatus = status === undefined ? undefined : parseStatusFilter(status);
  const parsedOrder = order === undefined ? undefined : parseOrderRef(order);
  const invalid = [
    ...(parsedStatus === null ? ["status"] : []),
    ...(parsedOrder === null ? ["order_id"] : []),
  ];
  if (invalid.length > 0) return { ok: false, invalid };
  const filter: RequestLogFilter = {};
  if (parsedStatus != null) filter.status = parsedStatus;
  const code = blank(input.code);
  if (code !== undefined) filter.code = code;
  const path = blank(input.path);
  if (path !== undefined) filter.path = path;
  const keyId = blank(input.key_id);
  if (keyId !== undefined) filter.key_id = keyId;
  const requestId = blank(input.request_id);
  if (requestId !== undefined) filter.request_id = requestId;
  if (parsedOrder) filter.order_id = parsedOrder.id;
  return { ok: true, filter };
}
