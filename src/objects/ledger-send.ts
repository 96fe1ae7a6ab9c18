import type { PayoutGateway, PayoutRequest } from "../adapters/payout/types";
import {
  afterLookup,
  afterSend,
  beforeSend,
  type LookupAnswer,
  type SendAnswer,
  type SendPolicy,
  type SendStep,
} from "../domain/send-step";
import type { SendsLedger } from "./sends-ledger";

/** What the owner of a send does with its end, and with an attempt that failed for now. */
export interface SendOutcomes {
  sent(txid: string): void;
  failed(error: string, attempts: number): Promise<void>;
  retrying(error: string, attempts: number, alert: string | null): void;
}

/**
 * Moves one send of money in the ledger at most once. The whole request is frozen in the ledger
 * before the gateway is first called (`request` makes it, the first time only), and every retry
 * sends exactly that, under the same key. After any attempt the gateway is asked (`lookup`) before
 * anything is sent again, and only its signed answers end the send (docs/lifecycle.md, "The payout
 * gateway contract"). Shared by the order's payout and refund and by its extra deposits' refunds.
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
    if (step.next === "sent") {
      outcomes.sent(step.txid);
      ledger.finish(key, "sent", step.txid, null, at);
    } else if (step.next === "failed") {
      await outcomes.failed(step.error, attempts);
      ledger.finish(key, "failed", null, step.error, at);
    } else if (step.next === "wait") {
      ledger.put(step.row, at);
      outcomes.retrying(step.error, attempts, step.alert);
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
  } else {
    let answer: LookupAnswer;
    try {
      answer = await gateway.lookup(key, row.request.network);
    } catch (err) {
      answer = { status: "error", error: String(err) };
    }
    if (!(await follow(afterLookup(row, answer, policy, now), row.attempts))) return;
  }
  const attempt = beforeSend(row, policy, now);
  ledger.put(attempt, at);
  let answer: SendAnswer;
  try {
    answer = await gateway.send(row.request);
  } catch (err) {
    answer = { status: "unknown", error: String(err) };
  }
  await follow(afterSend(attempt, answer), attempt.attempts);
}
