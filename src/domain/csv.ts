// CSV as the cabinet exports it (orders, earnings).

/** RFC 4180 quoting, and a leading quote on what a spreadsheet would run as a formula. */
export function csvField(value: string | number | null): string {
  if (value === null) return "";
  let s = String(value);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

export const csvLine = (fields: (string | number | null)[]) => `${fields.map(csvField).join(",")}\r\n`;

/**
 * A CSV export read in keyset batches while the response streams: the header line, then each batch
 * `read` returns (given the last row so far) until one comes back shorter than `batchSize`. The
 * Worker holds one batch at a time, whatever the export's size.
 */
export function csvStream<R>(
  header: readonly string[],
  batchSize: number,
  read: (after: R | undefined) => Promise<R[]>,
  fields: (row: R) => (string | number | null)[],
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let after: R | undefined;
  let headerSent = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(csvLine([...header])));
        return;
      }
      const rows = await read(after);
      after = rows.at(-1) ?? after;
      controller.enqueue(encoder.encode(rows.map((r) => csvLine(fields(r))).join("")));
      if (rows.length < batchSize) controller.close();
    },
  });
}
