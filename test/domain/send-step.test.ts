/**
 * The pure send step (src/domain/send-step.ts): what one payout or refund does after a send or a
 * lookup. Only the gateway's own word ends a send; anything it cannot vouch for keeps the order
 * asking, and nothing is sent again without a lookup saying the key was never received.
 */
import { describe, expect, it } from "vitest";
import { CONFIG_RETRY_MS } from "../../src/domain/retry";
import {
  afterLookup,
  afterSend,
  beforeSend,
  type SendPolicy,
  type SendRow,
} from "../../src/domain/send-step";

const policy: SendPolicy = { maxAttempts: 3, retryBaseMs: 1_000, retryCapMs: 8_000 };
const T = 1_700_000_000_000;

function row(over: Partial<SendRow<{ amount: string }>> = {}): SendRow<{ amount: string }> {
  return {
    key: "order-1:payout",
    kind: "payout",
    request: { amount: "1.5" },
    attempts: 1,
    failures: 0,
    unknownLookups: 0,
    nextAt: 0,
    ...over,
  };
}

describe("beforeSend", () => {
  it("counts the attempt before it goes out, keeps the frozen request, and backs off from it", () => {
    const first = beforeSend(row({ attempts: 0 }), policy, T);
    expect(first).toEqual({ ...row({ attempts: 1 }), nextAt: T + 1_000 });
    const fourth = beforeSend(row({ attempts: 3, unknownLookups: 2 }), policy, T);
    expect(fourth).toMatchObject({ attempts: 4, unknownLookups: 0, nextAt: T + 8_000 });
    expect(fourth.request).toEqual({ amount: "1.5" });
    // Capped: never further apart than retryCapMs.
    expect(beforeSend(row({ attempts: 20 }), policy, T).nextAt).toBe(T + 8_000);
  });
});

describe("afterSend", () => {
  it("a paid send ends with its txid; a refusal ends the send as failed", () => {
    expect(afterSend(row(), { status: "sent", txid: "tx1" })).toEqual({ next: "sent", txid: "tx1" });
    expect(afterSend(row(), { status: "refused", error: "bad address" })).toEqual({
      next: "failed",
      error: "bad address",
    });
  });

  it("an unknown outcome waits for a lookup and counts against the order's budget", () => {
    const r = row({ failures: 1 });
    expect(afterSend(r, { status: "unknown", error: "timeout" })).toEqual({
      next: "wait",
      row: { ...r, failures: 2 },
      error: "timeout",
      alert: null,
    });
  });

  it("a configuration error (our credentials, a wrong URL) waits and alerts, never charged to the order", () => {
    const r = row({ failures: 2 });
    const step = afterSend(r, { status: "unknown", error: "401 unsigned", config: true });
    expect(step).toEqual({
      next: "wait",
      row: r,
      error: "401 unsigned",
      alert: { kind: "gateway_config", message: "payout gateway configuration error: needs an operator" },
    });
  });
});

describe("afterLookup", () => {
  it("the gateway's paid answer ends the send with its txid, whatever the budget", () => {
    expect(afterLookup(row({ failures: 9 }), { status: "sent", txid: "tx9" }, policy, T)).toEqual({
      next: "sent",
      txid: "tx9",
    });
  });

  it("a refusal for good ends the send as failed", () => {
    expect(afterLookup(row(), { status: "refused", error: "frozen" }, policy, T)).toEqual({
      next: "failed",
      error: "frozen",
    });
  });

  it("a signed 'unknown key' allows one more send while the budget lasts, and fails the send after", () => {
    expect(afterLookup(row({ failures: 2 }), { status: "unknown_key" }, policy, T)).toEqual({ next: "send" });
    expect(afterLookup(row({ failures: 3 }), { status: "unknown_key" }, policy, T)).toEqual({
      next: "failed",
      error: "no attempt went through",
    });
  });

  it("a lookup that cannot tell never sends again and never fails: it waits, backing off, and alerts past the budget", () => {
    let r = row({ attempts: 1, failures: 3 });
    const alerts: (string | null)[] = [];
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      const step = afterLookup(r, { status: "error", error: "503" }, policy, T);
      if (step.next !== "wait") throw new Error(`expected wait, got ${step.next}`);
      expect(step.error).toBe("lookup failed: 503");
      expect(step.row.attempts).toBe(1);
      waits.push(step.row.nextAt - T);
      alerts.push(step.alert?.kind ?? null);
      r = step.row;
    }
    // Backs off on the lookups in a row (docs/lifecycle.md: up to the cap), not on the sends made.
    expect(waits).toEqual([1_000, 2_000, 4_000, 8_000, 8_000, 8_000]);
    expect(r.unknownLookups).toBe(6);
    expect(alerts).toEqual([
      null,
      null,
      "outcome_unknown",
      "outcome_unknown",
      "outcome_unknown",
      "outcome_unknown",
    ]);
  });

  it("our credentials refused on a lookup (401) is a configuration alert, as on a send", () => {
    const step = afterLookup(row(), { status: "error", error: "401", config: true }, policy, T);
    expect(step).toMatchObject({
      next: "wait",
      alert: { kind: "gateway_config", message: "payout gateway configuration error: needs an operator" },
    });
  });

  it("a credentials outage (401 lookups) is not an unknown outcome: asked again every minute, the unknown-outcome count and backoff untouched; after it, no 'outcome unknown' alert", () => {
    let r = row({ unknownLookups: 1 });
    for (let i = 0; i < 10; i++) {
      const step = afterLookup(r, { status: "error", error: "401", config: true }, policy, T);
      if (step.next !== "wait") throw new Error(`expected wait, got ${step.next}`);
      expect(step.alert?.kind).toBe("gateway_config");
      expect(step.row.nextAt).toBe(T + CONFIG_RETRY_MS);
      r = step.row;
    }
    expect(r.unknownLookups).toBe(1);
    // The outage over, the next lookup that cannot tell is the second in a row, as before it.
    const after = afterLookup(r, { status: "error", error: "503" }, policy, T);
    expect(after).toMatchObject({ next: "wait", alert: null, row: { unknownLookups: 2, nextAt: T + 2_000 } });
  });

  it("a new send starts the count of lookups that cannot tell again", () => {
    const asked = afterLookup(row({ unknownLookups: 0 }), { status: "error", error: "503" }, policy, T);
    if (asked.next !== "wait") throw new Error("expected wait");
    expect(beforeSend(asked.row, policy, T).unknownLookups).toBe(0);
  });
});
