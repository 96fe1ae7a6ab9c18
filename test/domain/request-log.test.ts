import { describe, expect, it } from "vitest";
import {
  encodeLogEntry,
  LOG_COLUMNS,
  logBatchText,
  type NewRequestLogEntry,
} from "../../src/domain/request-log";

const entry: NewRequestLogEntry = {
  at_ms: 1_795_680_000_123,
  method: "POST",
  path: "/api/v1/partner/orders",
  query: "a=1&b=%20",
  status: 400,
  code: "invalid_request",
  latency_ms: 7,
  key_id: "pk_x",
  request_id: "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
  ip: "198.18.0.1",
  order_id: null,
  error_body: '{"detail":"bad \\"x\\"","code":"invalid_request"}',
};

describe("encodeLogEntry and logBatchText: a batch as the log object inserts it", () => {
  it("carries every field of every entry, in LOG_COLUMNS order, nulls and quotes intact", () => {
    expect([...LOG_COLUMNS].sort()).toEqual(Object.keys(entry).sort());
    const second = { ...entry, status: 200, code: null, error_body: null, order_id: "o-1" };
    const rows: unknown[][] = JSON.parse(logBatchText([entry, second].map(encodeLogEntry)));
    expect(rows.map((row) => Object.fromEntries(LOG_COLUMNS.map((column, i) => [column, row[i]])))).toEqual([
      entry,
      second,
    ]);
  });
});
