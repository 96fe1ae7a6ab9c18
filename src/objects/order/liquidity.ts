import type { Config } from "../../config";
import { type LiquidityStep, liquidityStepOf, reservationFor } from "../../domain/liquidity";
import { Dec, toDecimalString } from "../../domain/money";
import type { OrderRecord } from "../../domain/order";
import type { OrderStatus } from "../../domain/order-state";
import { keyOf, shard } from "../liquidity-shard";

/**
 * The order object's side of liquidity: a widget order's seen deposit takes its reservation, a
 * status change that ends the promise (expiry, refund, failure) releases it, completion settles it
 * against the balance. The step is stored in the transition's transaction and sent after it, like
 * the webhook outbox.
 */
const PENDING = "liquidity_pending";
/** The reservation as the shard last confirmed it (taken at the deposit, or extended at exchange). */
export const RESERVED = "liquidity_reserved";

/** Inside a transition's transaction: remembers what the new status means for the reservation. */
export function markLiquidity(kv: SyncKvStorage, previous: OrderStatus, next: OrderRecord): void {
  const step = liquidityStepOf(previous, next);
  if (next.liquidityRegion && step) kv.put<LiquidityStep>(PENDING, step);
}

export function liquidityPending(kv: SyncKvStorage): boolean {
  return kv.get(PENDING) !== undefined;
}

/**
 * Sends the remembered step to the order's shard; on failure it stays pending and the order's next
 * alarm sends it again (each is idempotent per order). A reservation the shard cannot grant at the
 * deposit is not retried here: the exchange-time check (exchange-liquidity.ts) holds the exchange
 * until the payout is covered, so the money already sent never makes the order fail.
 */
export async function flushLiquidity(
  env: Env,
  config: Config,
  kv: SyncKvStorage,
  r: OrderRecord,
): Promise<void> {
  const step = kv.get<LiquidityStep>(PENDING);
  if (!step || !r.liquidityRegion) return;
  const key = keyOf(r, r.liquidityRegion);
  const stub = shard(env, key);
  try {
    if (step === "reserve") {
      const amount = reservationFor(new Dec(r.amountToExpected), r.rateType, config.SPREAD_FLOAT_BPS);
      const answer = await stub.extend(key, r.id, toDecimalString(amount));
      if (answer.ok && answer.reserved !== undefined) kv.put(RESERVED, answer.reserved);
    } else if (step === "release") await stub.release(r.id);
    else await stub.settle(key, r.id, r.amountToActual ?? r.amountToExpected);
    kv.delete(PENDING);
  } catch (err) {
    console.error(
      JSON.stringify({
        level: "warn",
        order: r.id,
        msg: `liquidity ${step} failed; will retry`,
        error: String(err),
      }),
    );
  }
}
