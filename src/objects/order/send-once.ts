import type { PayoutGateway, PayoutRequest } from "../../adapters/payout/types";
import {
  afterLookup,
  afterSend,
  attemptKey,
  beforeSend,
  type LookupAnswer,
  type SendAlert,
  type SendAnswer,
  type SendPolicy,
  type SendStep,
} from "../../domain/send-step";
import type { SendsLedger } from "./sends-ledger";

/** The frozen request as sent on one try: the same transfer, under that try's gateway key. */
const tryOf = (request: PayoutRequest, key: string, attempt: number): PayoutRequest => ({
  ...request,
  idempotencyKey: attemptKey(key, attempt),
});

/** What the owner of a send does with its end, and with an attempt that failed for now. */
export interface SendOutcomes {
  sent(txid: string): void;
  failed(error: string, attempts: number): Promise<void>;
  retrying(error: string, attempts: number): void;
  /** The send's operator alert of `raise`'s kind is seen now; those of `clear`'s kinds are over. */
  alerts(raise: SendAlert | null, clear: readonly SendAlert["kind"][]): void;
}

const ALL: readonly SendAlert["kind"][] = ["outcome_unknown", "gateway_config"];

/**
 * Moves one send of money in the ledger at most once. The whole request is frozen in the ledger
 * before the gateway is first called (`request` makes it, the first time only), and every retry
 * sends exactly that. After any attempt the gateway is asked (`lookup`) before anything is sent
 * again, and only its signed answers end the send (docs/lifecycle.md, "The payout gateway
 * contract"); a try after a signed "never received" goes under a fresh gateway key (`attemptKey`),
 * the earlier one being refused by the gateway from that answer on. Shared by the order's payout and refund and by its extra deposits' refunds.
 */
export async function sendOnce(
  ledger: SendsLedger,
  gateway: PayoutGateway,
  policy: SendPolicy,
  key: string,
  request: () => Promise<PayoutRequest | string>,
  outcomes: SendOutcomes,
  now: number,
): Promise<void> {
  const at = new Date(now).toISOString();
  let row = ledger.get<PayoutRequest>(key);
  if (row && now < row.nextAt) return;
  const follow = async (step: SendStep<PayoutRequest>, attempts: number): Promise<boolean> => {
    // The gateway answered (anything but "wait"): the send has no problem left for an operator.
    // Waiting on anything but our credentials: those are fine again.
    if (step.next !== "wait") outcomes.alerts(null, ALL);
    else outcomes.alerts(step.alert, step.alert?.kind === "gateway_config" ? [] : ["gateway_config"]);
    if (step.next === "sent") {
      outcomes.sent(step.txid);
      ledger.finish(key, "sent", step.txid, null, at);
    } else if (step.next === "failed") {
      await outcomes.failed(step.error, attempts);
      ledger.finish(key, "failed", null, step.error, at);
    } else if (step.next === "wait") {
      ledger.put(step.row, at);
      outcomes.retrying(step.error, attempts);
    }
    return step.next === "send";
  };

  if (!row) {
    const fresh = await request();
    if (typeof fresh === "string") {
      await outcomes.failed(fresh, 0);
      ledger.finish(key, "failed", null, fresh, at);
      return;
    }
    row = {
      key,
      kind: fresh.kind,
      request: fresh,
      attempts: 0,
      failures: 0,
      unknownLookups: 0,
      nextAt: 0,
      outcome: null,
      txid: null,
    };
  } else if (row.attempts > 0) {
    // Asked about the last try's key: every earlier one was answered "never received" (tombstoned).
    let answer: LookupAnswer;
    try {
      answer = await gateway.lookup(tryOf(row.request, key, row.attempts));
    } catch (err) {
      answer = { status: "error", error: String(err) };
    }
    if (!(await follow(afterLookup(row, answer, policy, now), row.attempts))) return;
  }
  const attempt = beforeSend(row, policy, now);
  ledger.put(attempt, at);
  let answer: SendAnswer;
  try {
    answer = await gateway.send(tryOf(row.request, key, attempt.attempts));
  } catch (err) {
    answer = { status: "unknown", error: String(err) };
  }
  await follow(afterSend(attempt, answer), attempt.attempts);
}
