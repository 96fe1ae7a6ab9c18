// The `payout.sent` webhook event (docs/webhooks.md): a statement's payout left, with its txid.
import { sha256Hex } from "./credentials";
import type { WebhookMessage } from "./webhooks";

export const PAYOUT_SENT_EVENT = "payout.sent";

export interface PaidStatement {
  /** The payout's ledger key: the event id is derived from it, so a repeat is the same event. */
  key: string;
  statementId: string;
  partnerId: string;
  livemode: boolean;
  month: string;
  request: { coin: string; network: string; amount: string; to: string; tag: string | null };
}

export interface PayoutSentEvent {
  id: string;
  type: typeof PAYOUT_SENT_EVENT;
  created_at: string;
  data: {
    statement_id: string;
    month: string;
    livemode: boolean;
    txid: string;
    coin: string;
    network: string;
    amount: string;
    address: string;
    tag: string | null;
  };
}

/** The queue message of a payout's event; sequence 0 like every event that is not an order's. */
export async function payoutSentMessage(p: PaidStatement, txid: string, at: string): Promise<WebhookMessage> {
  const id = `evt_${(await sha256Hex(`${PAYOUT_SENT_EVENT}:${p.key}`)).slice(0, 32)}`;
  const event: PayoutSentEvent = {
    id,
    type: PAYOUT_SENT_EVENT,
    created_at: at,
    data: {
      statement_id: p.statementId,
      month: p.month,
      livemode: p.livemode,
      txid,
      coin: p.request.coin,
      network: p.request.network,
      amount: p.request.amount,
      address: p.request.to,
      tag: p.request.tag,
    },
  };
  return {
    event_id: id,
    partner_id: p.partnerId,
    mode: p.livemode ? "live" : "test",
    order_id: null,
    sequence: 0,
    type: PAYOUT_SENT_EVENT,
    created_at: at,
    body: JSON.stringify(event),
  };
}
