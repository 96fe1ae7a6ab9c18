import { type LiquidityStep, liquidityStep } from "../../domain/liquidity";
import type { OrderRecord } from "../../domain/order";
import type { OrderStatus } from "../../domain/order-state";
import { keyOf, shard } from "../liquidity-shard";

/**
 * The order object's side of liquidity: a status change that ends the promise (expiry, refund,
 * failure) releases the order's reservation, completion settles it against the balance. The step
 * is stored in the transition's transaction and sent after it, like the webhook outbox.
 */
const PENDING = "liquidity_pending";

/** Inside a transition's transaction: remembers what the new status means for the reservation. */
export function markLiquidity(kv: SyncKvStorage, previous: OrderStatus, next: OrderRecord): void {
  const step = liquidityStep(next.status);
  if (next.liquidityRegion && step && liquidityStep(previous) === null) kv.put<LiquidityStep>(PENDING, step);
}

export function liquidityPending(kv: SyncKvStorage): boolean {
  return kv.get(PENDING) !== undefined;
}

/**
 * Sends the remembered release or settlement to the order's shard; on failure it stays pending and
 * the order's next alarm sends it again (release and settle are idempotent per order).
 */
export async function flushLiquidity(env: Env, kv: SyncKvStorage, r: OrderRecord): Promise<void> {
  const step = kv.get<LiquidityStep>(PENDING);
  if (!step || !r.liquidityRegion) return;
  const stub = shard(env, keyOf(r, r.liquidityRegion));
  try {
    if (step === "release") await stub.release(r.id);
    else await stub.settle(keyOf(r, r.liquidityRegion), r.id, r.amountToActual ?? r.amountToExpected);
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
