import { simChain } from "../chain/simulated";
import type { PayoutGateway, PayoutRequest, PayoutResult } from "./types";

/**
 * PAYOUT_MODE `simulated`: payouts become outgoing transfers on the network's SimChain, recorded
 * once per idempotency key, so re-sends after a timeout or an alarm re-run never pay twice. A test
 * order's payouts go to its own `chain`.
 */
export function createSimulatedPayout(env: Env, chain?: string): PayoutGateway {
  return {
    async send(req: PayoutRequest): Promise<PayoutResult> {
      try {
        const { txid } = await simChain(env, chain ?? req.network).sendPayout({
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
        // SimChain rejects bad input with RangeError (refused: nothing recorded); anything else is
        // the transport, and a retry with the same key is safe because the chain records each key once.
        return e instanceof RangeError ? { status: "refused", error } : { status: "unknown", error };
      }
    },
    async lookup(req) {
      const found = await simChain(env, chain ?? req.network).findPayout(req.idempotencyKey);
      // SimChain records every key it accepted, so its "not found" is as good as a signed one.
      return found ? { status: "sent", txid: found.txid } : { status: "unknown_key" };
    },
  };
}
