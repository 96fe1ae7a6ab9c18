import { ApiError } from "./errors.js";

/** One event of a live stream (docs/events.md): the webhook's id and type, its JSON parsed. */
export interface StreamEvent<T> {
  id: string;
  type: string;
  data: T;
}

export interface StreamOptions {
  /** Resume after this event id: everything after it is replayed first, then live events. */
  lastEventId?: string | undefined;
  /** Stops the iteration (and the connection) when aborted. */
  signal?: AbortSignal | undefined;
  /** Wait before reconnecting after a dropped connection or a 429/503 without Retry-After (default 1000 ms). */
  reconnectMs?: number | undefined;
}

/** The header a stream's answer carries when nothing will follow what it sends (a finished order). */
export const FINISHED_HEADER = "x-stream-finished";

/** The fields of each Server-Sent Event in a byte stream (comments and `retry:` skipped). */
export async function* parseSse(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<{ id: string; event: string; data: string }, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let fields: Record<string, string> = {};
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
        const line = buffer.slice(0, nl).replace(/\r$/, "");
        buffer = buffer.slice(nl + 1);
        if (line === "") {
          if (fields.id !== undefined && fields.data !== undefined)
            yield { id: fields.id, event: fields.event ?? "message", data: fields.data };
          fields = {};
        } else if (!line.startsWith(":")) {
          const colon = line.indexOf(":");
          const name = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          fields[name] = name === "data" && fields.data !== undefined ? `${fields.data}\n${value}` : value;
        }
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      resolve();
    });
  });

/**
 * Follows a stream across connections: whenever one ends (the server's 15-minute limit, a network
 * drop, a 429/503), it reconnects with the last event id it yielded, so no event is missed or
 * repeated. Ends after an event `finished` says is the last (a finished order), or on `signal`.
 */
export async function* followStream<T>(
  open: (lastEventId: string | null, signal: AbortSignal | undefined) => Promise<Response>,
  options: StreamOptions,
  finished: (data: T) => boolean = () => false,
): AsyncGenerator<StreamEvent<T>, void, undefined> {
  let last = options.lastEventId ?? null;
  const { signal } = options;
  const reconnectMs = options.reconnectMs ?? 1000;
  while (!signal?.aborted) {
    let response: Response;
    try {
      response = await open(last, signal);
    } catch (err) {
      if (signal?.aborted) return;
      if (err instanceof ApiError) throw err;
      await sleep(reconnectMs, signal);
      continue;
    }
    if (response.status === 429 || response.status === 503) {
      await response.body?.cancel();
      await sleep(Number(response.headers.get("retry-after") ?? 0) * 1000 || reconnectMs, signal);
      continue;
    }
    if (!response.ok || !response.body)
      throw ApiError.from(response, await response.json().catch(() => null));
    const lastConnection = response.headers.get(FINISHED_HEADER) === "true";
    try {
      for await (const e of parseSse(response.body)) {
        last = e.id;
        const data = JSON.parse(e.data) as T;
        yield { id: e.id, type: e.event, data };
        if (finished(data)) return;
      }
    } catch (err) {
      if (signal?.aborted) return;
      // A dropped connection: reconnect below, from the last event yielded.
      if (err instanceof SyntaxError) throw err;
    }
    if (lastConnection) return;
    if (!signal?.aborted) await sleep(reconnectMs, signal);
  }
}
