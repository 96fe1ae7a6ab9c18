import { simChain } from "../chain/simulated";
import type { PayoutGateway, PayoutRequest, PayoutResult } from "./types";

/**
 * PAYOUT_MODE `simulated`: payouts become outgoing transfers on the network's SimChain, recorded
 * once per idempotency key, so re-sends after a timeout or an alarm re-run never pay twice.
 */
export function createSimulatedPayout(env: Env): PayoutGateway {
  return {
    async send(req: PayoutRequest): Promise<PayoutResult> {
      try {
        const { txid } = await simChain(env, req.network).sendPayout({
          idempotencyKey: req.idempotencyKey,
          orderId: req.orderId,
          kind: req.kind,
          to: req.to,
          tag: req.tag,
          amount: req.amount,
          coin: req.coin,
          contract: req.contract,
        });
        return { status: "sent", txid };
      } catch (e) {
        const error = e instanceof Error ? e.message : String(e);
        // SimChain rejects bad input with RangeError; anything else is the transport, and a retry
        // with the same key is safe because the chain records each key once.
        return { status: "failed", retryable: !(e instanceof RangeError), error };
      }
    },
    lookup: (idempotencyKey, network) => simChain(env, network).findPayout(idempotencyKey),
  };
}
