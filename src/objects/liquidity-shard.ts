import { DurableObject } from "cloudflare:workers";
import {
  ledgerName,
  locationHintOf,
  rebalanceStep,
  shardFree,
  shardName,
  type Watermarks,
  watermarks,
} from "../domain/liquidity";
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

/**
 * `reserved`: what the shard holds for the order; absent when the coin is not liquidity-limited,
 * and then `unlimitedUntil` says until when (epoch ms) the ledger's "not limited" holds.
 */
export type Reservation =
  | { ok: true; reserved?: string; unlimitedUntil?: number }
  | { ok: false; free: string };
/** null: the coin is not liquidity-limited. */
export type ShardFree = string | null;

/** How long allowance must sit above the high water mark before the shard gives it back. */
export const RETURN_AFTER_MS = 60_000;

/** Allowance taken off here and not yet confirmed by the ledger (retried by the alarm). */
interface PendingReturn {
  id: string;
  amount: string;
}

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

  /** The alarm has no caller to name the shard: remember who this is. */
  #remember(key: ShardKey): void {
    if (!this.#kv.get("key")) this.#kv.put("key", key);
  }

  /** Low and high water marks, from the balance the ledger last reported; none before that. */
  #marks(): Watermarks | null {
    const balance = this.#kv.get<string>("balance");
    return balance === undefined ? null : watermarks(new Dec(balance));
  }

  /**
   * Arms the alarm for background work: a refill at once when below low water (or `now`), a
   * return when above high water for RETURN_AFTER_MS (the allowance sat idle). An earlier alarm
   * already armed stays.
   */
  async #schedule(now = false): Promise<void> {
    const marks = this.#marks();
    const step = marks && !this.#unlimited() ? rebalanceStep(this.#free(), marks) : null;
    if (!step && !now) return;
    const at = Date.now() + (step?.kind === "return" && !now ? RETURN_AFTER_MS : 0);
    const armed = await this.ctx.storage.getAlarm();
    if (armed === null || armed > at) await this.ctx.storage.setAlarm(at);
  }

  /** Gives the pending return to the ledger; kept (and retried) until the ledger confirms it. */
  async #sendReturn(key: ShardKey): Promise<void> {
    const pending = this.#kv.get<PendingReturn>("returning");
    if (!pending) return;
    const name = shardName(key.coin, key.network, key.region);
    const { available } = await this.#ledger(key).giveBack(
      key.coin,
      key.network,
      name,
      pending.id,
      pending.amount,
    );
    this.#kv.delete("returning");
    if (available !== null) this.#kv.put("ledger_available", available);
  }

  /**
   * Background refill and return (docs/liquidity.md, "Refill and return"): below low water asks
   * the ledger for allowance up to the target; above high water gives back what exceeds it. A
   * failure throws, and the alarm runs again (at-least-once; both steps are idempotent).
   */
  override async alarm(): Promise<void> {
    const key = this.#kv.get<ShardKey>("key");
    if (!key) return;
    await this.#sendReturn(key);
    const marks = this.#marks();
    if (!marks || this.#unlimited()) return;
    const step = rebalanceStep(this.#free(), marks);
    if (step?.kind === "refill") await this.#refill(key, step.amount);
    if (step?.kind === "return") {
      const amount = toDecimalString(step.amount);
      // Off this shard's allowance first, so the amount is never promised here and at the ledger.
      this.ctx.storage.transactionSync(() => {
        this.#kv.put("allowance", toDecimalString(this.#allowance().minus(amount)));
        this.#kv.put<PendingReturn>("returning", { id: crypto.randomUUID(), amount });
      });
      await this.#sendReturn(key);
    }
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
      this.#kv.put("balance", grant.balance);
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
    this.#remember(key);
    const reserved = this.#reservation(orderId);
    if (reserved !== undefined) return { ok: true, reserved };
    return this.#raise(key, orderId, new Dec(amount));
  }

  /**
   * Exchange time: raises the order's reservation to `total` (its payout at the current price).
   * Idempotent per order: a reservation already at `total` or above is left as it is.
   */
  extend(key: ShardKey, orderId: string, total: string): Promise<Reservation> {
    this.#remember(key);
    return this.#raise(key, orderId, new Dec(total));
  }

  /**
   * Brings the order's reservation up to `target`, the difference taken from the free allowance or,
   * failing that, from the ledger; `ok: false` names what is free. A single thread between awaits,
   * so a retry racing the first call finds its reservation and reserves nothing more.
   */
  async #raise(key: ShardKey, orderId: string, target: Decimal): Promise<Reservation> {
    for (;;) {
      if (this.#unlimited())
        return { ok: true, unlimitedUntil: this.#kv.get<number>("unlimited_until") ?? 0 };
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
        // Below low water now: the alarm refills, so the next order need not wait on the ledger.
        await this.#schedule();
        return { ok: true, reserved: amount };
      }
      if (!(await this.#refill(key, need.minus(free)))) {
        // What a refused order pulled in may now sit idle above high water.
        await this.#schedule();
        return { ok: false, free: toDecimalString(this.#free()) };
      }
    }
  }

  /**
   * What an order in this region could still reserve, for quotes: the free allowance here plus
   * what the ledger still had at this shard's last exchange with it (an order the allowance
   * cannot cover asks the ledger for the rest). null when the coin is not limited.
   */
  async free(key: ShardKey): Promise<ShardFree> {
    this.#remember(key);
    // Ask the ledger when nothing is known yet, or "not limited" has lapsed (it may still hold).
    const lapsed = this.#kv.get<number>("unlimited_until") !== undefined && !this.#unlimited();
    if ((this.#kv.get<string>("allowance") === undefined && !this.#unlimited()) || lapsed)
      await this.#refill(key, new Dec(0));
    if (this.#unlimited()) return null;
    return toDecimalString(this.#free().plus(this.#kv.get<string>("ledger_available") ?? 0));
  }

  /**
   * Expiry or refund: the reservation goes back to this shard's free allowance (and, should that
   * leave it idle above high water, to the ledger after RETURN_AFTER_MS).
   */
  async release(orderId: string): Promise<void> {
    this.ctx.storage.sql.exec("DELETE FROM reservations WHERE order_id = ?", orderId);
    await this.#schedule();
  }

  /**
   * Completion: the ledger takes the payout off the balance and the reservation off this shard's
   * grant (once per order), then the reservation leaves here. A failure throws, and the order
   * object sends the message again.
   */
  async settle(key: ShardKey, orderId: string, payout: string): Promise<void> {
    this.#remember(key);
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
   * longer limited. With `balance`: the new marks, against which the alarm refills or returns
   * at once (a lowered balance takes idle allowance back from the regions).
   */
  async forget(ledgerAvailable?: string | null, balance?: string | null): Promise<void> {
    if (ledgerAvailable === null) this.#kv.put("unlimited_until", Date.now() + BALANCE_CACHE_MS);
    else this.#kv.delete("unlimited_until");
    if (ledgerAvailable != null) this.#kv.put("ledger_available", ledgerAvailable);
    if (balance != null) {
      this.#kv.put("balance", balance);
      await this.#schedule(true);
    }
  }
}
