import { backoffMs, CONFIG_RETRY_MS } from "./retry";

/**
 * One send of money (a payout or a refund) as the order's ledger keeps it: the request is frozen
 * on the first attempt and sent exactly so on every retry, under the same idempotency key.
 */
export interface SendRow<R> {
  key: string;
  /**
   * `exchange` rows hold the venue intent (docs/lifecycle.md); the others are money sent out:
   * `extra_refund` sends an extra deposit back (one row per decision on it).
   */
  kind: "payout" | "refund" | "exchange" | "extra_refund";
  request: R;
  /** Sends made (each one may have gone out): after the first, every send is preceded by a lookup. */
  attempts: number;
  /** Attempts that failed for a reason that counts against the order's budget. */
  failures: number;
  /** Lookups in a row that could not tell whether money left. */
  unknownLookups: number;
  /** Nothing happens before this time (epoch ms). */
  nextAt: number;
}

export interface SendPolicy {
  maxAttempts: number;
  retryBaseMs: number;
  retryCapMs: number;
}

/** What the gateway said when asked whether the key was paid. */
export type LookupAnswer =
  | { status: "sent"; txid: string }
  | { status: "unknown_key" }
  | { status: "refused"; error: string }
  | { status: "error"; error: string; config?: boolean };

/** What the gateway said to a send. */
export type SendAnswer =
  | { status: "sent"; txid: string }
  | { status: "refused"; error: string }
  | { status: "unknown"; error: string; config?: boolean };

/**
 * A problem of a send that needs an operator, one alert per order and kind (src/domain/alerts.ts):
 * `outcome_unknown` while lookups cannot tell whether money left, `gateway_config` while the
 * gateway refuses our credentials or the URL is wrong.
 */
export interface SendAlert {
  kind: "outcome_unknown" | "gateway_config";
  message: string;
}

export type SendStep<R> =
  | { next: "sent"; txid: string }
  | { next: "failed"; error: string }
  | { next: "send" }
  | { next: "wait"; row: SendRow<R>; error: string; alert: SendAlert | null };

const configAlert = (kind: SendRow<unknown>["kind"]): SendAlert => ({
  kind: "gateway_config",
  message: `${kind} gateway configuration error: needs an operator`,
});

/**
 * The gateway key of a send's `attempt`-th try: the ledger key for the first, then a fresh one per
 * try. A try is made only after the gateway's signed "never received" for the one before, and the
 * gateway refuses a key from that answer on (contract v2), so a late POST of an earlier try can
 * never pay beside a later one.
 */
export function attemptKey(key: string, attempt: number): string {
  return attempt <= 1 ? key : `${key}~${attempt}`;
}

const later = <R>(row: SendRow<R>, policy: SendPolicy, now: number, n: number): SendRow<R> => ({
  ...row,
  nextAt: now + backoffMs(Math.max(1, n), policy.retryBaseMs, policy.retryCapMs),
});

/**
 * After a lookup. Only the gateway's own word ends the send: paid, refused, or "never received"
 * once the budget is spent. A lookup that cannot tell keeps the order asking, backing off on the
 * lookups in a row (up to the cap), and past the budget it is an alert: money may have left, and
 * an operator must settle the key. Our credentials refused (401/403) is a configuration problem,
 * not an unknown outcome: its own alert, asked again every CONFIG_RETRY_MS, and the count (and so
 * the backoff and the "outcome unknown" alert) of lookups that cannot tell is left as it was.
 */
export function afterLookup<R>(
  row: SendRow<R>,
  answer: LookupAnswer,
  policy: SendPolicy,
  now: number,
): SendStep<R> {
  switch (answer.status) {
    case "sent":
      return { next: "sent", txid: answer.txid };
    case "refused":
      return { next: "failed", error: answer.error };
    case "unknown_key":
      return row.failures >= policy.maxAttempts
        ? { next: "failed", error: "no attempt went through" }
        : { next: "send" };
    case "error": {
      const error = `lookup failed: ${answer.error}`;
      if (answer.config)
        return {
          next: "wait",
          row: { ...row, nextAt: now + CONFIG_RETRY_MS },
          error,
          alert: configAlert(row.kind),
        };
      const unknownLookups = row.unknownLookups + 1;
      const alert: SendAlert | null =
        unknownLookups >= policy.maxAttempts
          ? { kind: "outcome_unknown", message: `${row.kind} outcome unknown: needs an operator` }
          : null;
      return {
        next: "wait",
        row: later({ ...row, unknownLookups }, policy, now, unknownLookups),
        error,
        alert,
      };
    }
  }
}

/** The row to store before a send goes out: the attempt counts even if the object dies mid-call. */
export function beforeSend<R>(row: SendRow<R>, policy: SendPolicy, now: number): SendRow<R> {
  const attempts = row.attempts + 1;
  return later({ ...row, attempts, unknownLookups: 0 }, policy, now, attempts);
}

/**
 * After a send (`row` as stored by `beforeSend`). A configuration error (our credentials refused, a
 * wrong URL) is the operator's to fix: retried and alerted on, never charged to the order.
 */
export function afterSend<R>(row: SendRow<R>, answer: SendAnswer): SendStep<R> {
  switch (answer.status) {
    case "sent":
      return { next: "sent", txid: answer.txid };
    case "refused":
      return { next: "failed", error: answer.error };
    case "unknown":
      if (answer.config) return { next: "wait", row, error: answer.error, alert: configAlert(row.kind) };
      return {
        next: "wait",
        row: { ...row, failures: row.failures + 1 },
        error: answer.error,
        alert: null,
      };
  }
}
