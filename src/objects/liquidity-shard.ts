import { DurableObject } from "cloudflare:workers";
import { ledgerName, locationHintOf, shardFree, shardName } from "../domain/liquidity";
import { Dec, type Decimal, toDecimalString } from "../domain/money";
import type { OrderRecord } from "../domain/order";
import { BALANCE_CACHE_MS } from "./liquidity-ledger";

/** Which coin and region a shard serves: passed with every call (a Durable Object does not know its name). */
export interface ShardKey {
  coin: string;
  network: string;
  region: string;
}

/** The shard of an order's destination coin in a region, placed near the region. */
export function shard(env: Env, key: ShardKey) {
  const ns = env.LIQUIDITY_SHARDS;
  const hint = locationHintOf(key.region);
  return ns.get(
    ns.idFromName(shardName(key.coin, key.network, key.region)),
    hint ? { locationHint: hint } : {},
  );
}

export const keyOf = (o: Pick<OrderRecord, "coinTo" | "networkTo">, region: string): ShardKey => ({
  coin: o.coinTo,
  network: o.networkTo,
  region,
});

/** `reserved`: what the shard holds for the order; absent when the coin is not liquidity-limited. */
export type Reservation = { ok: true; reserved?: string } | { ok: false; free: string };
/** null: the coin is not liquidity-limited. */
export type ShardFree = string | null;

/**
 * One object per (coin, region): holds the allowance its ledger granted and the reservations of
 * the region's open orders. A single thread, so parallel creations in a region are serialised
 * here and together never reserve more than the allowance.
 */
export class LiquidityShard extends DurableObject<Env> {
  #refilling: Promise<boolean> | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(
      `CREATE TABLE IF NOT EXISTS reservations (order_id TEXT PRIMARY KEY, amount TEXT NOT NULL)`,
    );
  }

  get #kv() {
    return this.ctx.storage.kv;
  }

  #allowance(): Decimal {
    return new Dec(this.#kv.get<string>("allowance") ?? 0);
  }

  #reserved(): Decimal {
    return this.ctx.storage.sql
      .exec<{ amount: string }>("SELECT amount FROM reservations")
      .toArray()
      .reduce((sum, r) => sum.plus(r.amount), new Dec(0));
  }

  #reservation(orderId: string): string | undefined {
    return this.ctx.storage.sql
      .exec<{ amount: string }>("SELECT amount FROM reservations WHERE order_id = ?", orderId)
      .toArray()[0]?.amount;
  }

  #free(): Decimal {
    return shardFree(this.#allowance(), this.#reserved());
  }

  /** The ledger said "not limited" less than BALANCE_CACHE_MS ago. */
  #unlimited(): boolean {
    return (this.#kv.get<number>("unlimited_until") ?? 0) > Date.now();
  }

  #ledger(key: ShardKey) {
    return this.env.LIQUIDITY_LEDGERS.getByName(ledgerName(key.coin, key.network));
  }

  /**
   * Asks the ledger for more allowance; concurrent callers share one request. True when the
   * ledger granted something or the coin is unlimited, false when the ledger had nothing left.
   */
  #refill(key: ShardKey, requested: Decimal): Promise<boolean> {
    this.#refilling ??= (async () => {
      const name = shardName(key.coin, key.network, key.region);
      const grant = await this.#ledger(key).grant(key.coin, key.network, name, toDecimalString(requested));
      if (!grant.limited) {
        this.#kv.put("unlimited_until", Date.now() + BALANCE_CACHE_MS);
        return true;
      }
      this.#kv.delete("unlimited_until");
      const granted = new Dec(grant.granted);
      this.#kv.put("allowance", toDecimalString(this.#allowance().plus(granted)));
      this.#kv.put("ledger_available", grant.available);
      return granted.gt(0);
    })().finally(() => {
      this.#refilling = null;
    });
    return this.#refilling;
  }

  /**
   * Reserves `amount` for the order, once (a retry with the same id succeeds without reserving
   * again). Goes to the ledger only when the allowance here cannot cover the order.
   */
  async reserve(key: ShardKey, orderId: string, amount: string): Promise<Reservation> {
    const reserved = this.#reservation(orderId);
    if (reserved !== undefined) return { ok: true, reserved };
    return this.#raise(key, orderId, new Dec(amount));
  }

  /**
   * Exchange time: raises the order's reservation to `total` (its payout at the current price).
   * Idempotent per order: a reservation already at `total` or above is left as it is.
   */
  extend(key: ShardKey, orderId: string, total: string): Promise<Reservation> {
    return this.#raise(key, orderId, new Dec(total));
  }

  /**
   * Brings the order's reservation up to `target`, the difference taken from the free allowance or,
   * failing that, from the ledger; `ok: false` names what is free. A single thread between awaits,
   * so a retry racing the first call finds its reservation and reserves nothing more.
   */
  async #raise(key: ShardKey, orderId: string, target: Decimal): Promise<Reservation> {
    for (;;) {
      if (this.#unlimited()) return { ok: true };
      const current = new Dec(this.#reservation(orderId) ?? 0);
      if (current.gte(target)) return { ok: true, reserved: toDecimalString(current) };
      const need = target.minus(current);
      const free = this.#free();
      if (free.gte(need)) {
        const amount = toDecimalString(target);
        this.ctx.storage.sql.exec(
          "INSERT INTO reservations (order_id, amount) VALUES (?, ?) ON CONFLICT (order_id) DO UPDATE SET amount = excluded.amount",
          orderId,
          amount,
        );
        return { ok: true, reserved: amount };
      }
      if (!(await this.#refill(key, need.minus(free))))
        return { ok: false, free: toDecimalString(this.#free()) };
    }
  }

  /**
   * What an order in this region could still reserve, for quotes: the free allowance here plus
   * what the ledger still had at this shard's last exchange with it (an order the allowance
   * cannot cover asks the ledger for the rest). null when the coin is not limited.
   */
  async free(key: ShardKey): Promise<ShardFree> {
    if (this.#kv.get<string>("allowance") === undefined && !this.#unlimited())
      await this.#refill(key, new Dec(0));
    if (this.#unlimited()) return null;
    return toDecimalString(this.#free().plus(this.#kv.get<string>("ledger_available") ?? 0));
  }

  /** Expiry or refund: the reservation goes back to this shard's free allowance. */
  release(orderId: string): void {
    this.ctx.storage.sql.exec("DELETE FROM reservations WHERE order_id = ?", orderId);
  }

  /**
   * Completion: the ledger takes the payout off the balance and the reservation off this shard's
   * grant (once per order), then the reservation leaves here. A failure throws, and the order
   * object sends the message again.
   */
  async settle(key: ShardKey, orderId: string, payout: string): Promise<void> {
    const done = `settled:${orderId}`;
    if (this.#kv.get(done)) return;
    // An order paid without a reservation here (released at expiry, then a late deposit went on)
    // still takes its payout out of this shard's allowance, so the grants never exceed the balance.
    const reserved = this.#reservation(orderId) ?? toDecimalString(Dec.min(new Dec(payout), this.#free()));
    const name = shardName(key.coin, key.network, key.region);
    await this.#ledger(key).settle(key.coin, key.network, name, orderId, reserved, payout);
    this.ctx.storage.transactionSync(() => {
      this.ctx.storage.sql.exec("DELETE FROM reservations WHERE order_id = ?", orderId);
      this.#kv.put("allowance", toDecimalString(Dec.max(this.#allowance().minus(reserved), 0)));
      this.#kv.put(done, true);
    });
  }

  /**
   * A balance was set for the coin. Without `ledgerAvailable` (unknown): ask the ledger again on
   * the next order. With it: what the ledger now has free, for quotes; null: the coin is no
   * longer limited.
   */
  forget(ledgerAvailable?: string | null): void {
    if (ledgerAvailable === null) this.#kv.put("unlimited_until", Date.now() + BALANCE_CACHE_MS);
    else this.#kv.delete("unlimited_until");
    if (ledgerAvailable != null) this.#kv.put("ledger_available", ledgerAvailable);
  }
}
