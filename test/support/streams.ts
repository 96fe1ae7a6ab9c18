// Reading live event streams (docs/events.md) in tests: SSE parsed from a Response body, with a
// bound on every wait so a missing event fails the test instead of hanging it.
import { expect } from "vitest";

export interface SseEvent {
  id: string;
  event: string;
  data: string;
}

const WAIT_MS = 5000;

/** An open SSE answer, read event by event. */
export class SseReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = "";
  /** Set once the server has closed the stream. */
  ended = false;

  constructor(res: Response) {
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    if (!res.body) throw new Error("no body");
    this.#reader = res.body.getReader();
  }

  /** The next `n` events (comments and `retry:` skipped). */
  async take(n: number): Promise<SseEvent[]> {
    const out: SseEvent[] = [];
    while (out.length < n) {
      const event = await this.next();
      if (!event) throw new Error(`stream ended after ${out.length} of ${n} events`);
      out.push(event);
    }
    return out;
  }

  /** The next event; null when the server closed the stream first. */
  async next(): Promise<SseEvent | null> {
    for (;;) {
      const end = this.#buffer.indexOf("\n\n");
      if (end >= 0) {
        const block = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        const fields = Object.fromEntries(
          block
            .split("\n")
            .filter((l) => !l.startsWith(":"))
            .map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 1).trimStart()]),
        );
        if (fields.id !== undefined) return fields as unknown as SseEvent;
        continue;
      }
      if (this.ended) return null;
      const chunk = await Promise.race([
        this.#reader.read(),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error("no event within 5 s")), WAIT_MS),
        ),
      ]);
      if (chunk.done) this.ended = true;
      else this.#buffer += this.#decoder.decode(chunk.value, { stream: true });
    }
  }

  /** Every event until the server closes the stream. */
  async rest(): Promise<SseEvent[]> {
    const out: SseEvent[] = [];
    for (let e = await this.next(); e; e = await this.next()) out.push(e);
    return out;
  }

  async close(): Promise<void> {
    await this.#reader.cancel();
  }
}
