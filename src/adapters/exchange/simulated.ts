import { DomainError } from "../../domain/errors";
import { parseDecimal, toDecimalString } from "../../domain/money";
import { quoteForward } from "../../domain/pricing";
import { fixedPayoutAmount } from "../../domain/settlement";
import { simChain } from "../chain/simulated";
import type { ExchangeResult, ExchangeVenue, MarketView } from "./types";

/**
 * EXCHANGE_MODE `simulated`: fills at the current market price with the order's own spread and
 * markup (float), or at the locked rate (fixed), as a real venue would settle the order. The source
 * network's SimChain (a test order's own `chain`) can inject venue failures and crashes
 * (SimFaults.exchangeFailRate, exchangeThrowRate, SimChain.failNext).
 */
export function createSimulatedExchange(env: Env, market: MarketView, chain?: string): ExchangeVenue {
  return {
    async execute(req): Promise<ExchangeResult> {
      const fault = await simChain(env, chain ?? req.networkFrom).exchangeFault();
      if (fault === "throw") throw new Error("simulated venue crash");
      if (fault === "fail_for_good")
        return { status: "failed", retryable: false, error: "simulated venue refused the exchange" };
      if (fault === "fail") return { status: "failed", retryable: true, error: "simulated venue failure" };
      const received = parseDecimal(req.amountFrom);
      if (req.rateType === "fixed") return { status: "done", amountTo: fixedPayoutAmount(req, received) };
      try {
        const input = await market.pricing(
          {
            coinFrom: req.coinFrom,
            networkFrom: req.networkFrom,
            coinTo: req.coinTo,
            networkTo: req.networkTo,
          },
          req.spreadBps,
          req.markupBps,
          Date.now(),
        );
        const amountTo = quoteForward(input, received).amountTo;
        // The floor holds here as on a real venue: below it, nothing is exchanged.
        if (req.amountToMin !== undefined && amountTo.lessThan(parseDecimal(req.amountToMin)))
          return {
            status: "failed",
            retryable: false,
            error: `at the price now the payout ${toDecimalString(amountTo)} would fall below amount_to_min ${req.amountToMin}`,
            belowMinOut: true,
          };
        return { status: "done", amountTo: toDecimalString(amountTo) };
      } catch (err) {
        // Stale prices clear up by themselves; a pair that became unavailable does not.
        const retryable = err instanceof DomainError && err.code === "prices_stale";
        return { status: "failed", retryable, error: err instanceof Error ? err.message : String(err) };
      }
    },
  };
}
