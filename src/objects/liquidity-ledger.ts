import { DurableObject } from "cloudflare:workers";
import { available, grantSize } from "../domain/liquidity";
import { Dec, type Decimal, toDecimalString } from "../domain/money";
import { BALANCE_CACHE_MS, type Balance, type BalanceSourceName, readBalance } from "./liquidity-balance";

export { BALANCE_CACHE_MS };

/**
 * `available`: what the ledger still has for shards after this grant; `balance`: the coin's
 * balance, from which the shard sets its low and high water marks.
 */
export type Grant =
  | { limited: false }
  | { limited: true; granted: string; available: string; balance: string };

export interface LedgerView {
  coin: string;
  network: string;
  /** null: not liquidity-limited. */
  balance: string | null;
  /** Paid out since the balance was set. */
  paid: string;
  /** Allowance held by shards (reserved for orders or free there). */
  granted: string;
  /** What the ledger can still hand to shards. */
  available: string | null;
  /** Where the balance comes from: the operator's figure wins over the payout gateway's. */
  source: BalanceSourceName | null;
}

interface Paid {
  basis: string;
  amount: string;
}

/**
 * One object per coin on a network: the only place that knows the balance. It hands allowance to
 * regional LiquidityShards and takes payouts off the balance, keeping
 * Σ grants + paid ≤ balance, so no shard can promise what the coin does not have.
 */
export class LiquidityLedger extends DurableObject<Env> {
  #cache: { balance: Balance | null; at: number } | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS grants (shard TEXT PRIMARY KEY, amount TEXT NOT NULL)`);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS settled (order_id TEXT PRIMARY KEY)`);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS returns (id TEXT PRIMARY KEY)`);
  }

  async #balance(coin: string, network: string): Promise<Balance | null> {
    const now = Date.now();
    if (!this.#cache || now - this.#cache.at > BALANCE_CACHE_MS) {
      this.#cache = { balance: await readBalance(this.env, this.ctx.storage.kv, coin, network), at: now };
    }
    return this.#cache.balance;
  }

  /** Payouts since the balance was set; a new balance starts the count again. */
  #paid(balance: Balance): Decimal {
    const paid = this.ctx.storage.kv.get<Paid>("paid");
    return paid && paid.basis === balance.basis ? new Dec(paid.amount) : new Dec(0);
  }

  #granted(): Decimal {
    return this.ctx.storage.sql
      .exec<{ amount: string }>("SELECT amount FROM grants")
      .toArray()
      .reduce((sum, g) => sum.plus(g.amount), new Dec(0));
  }

  #grantOf(shard: string): Decimal {
    const row = this.ctx.storage.sql
      .exec<{ amount: string }>("SELECT amount FROM grants WHERE shard = ?", shard)
      .toArray()[0];
    return new Dec(row?.amount ?? 0);
  }

  #setGrant(shard: string, amount: Decimal): void {
    this.ctx.storage.sql.exec(
      "INSERT INTO grants (shard, amount) VALUES (?, ?) ON CONFLICT (shard) DO UPDATE SET amount = excluded.amount",
      shard,
      toDecimalString(Dec.max(amount, 0)),
    );
  }

  /** A shard asks for allowance; it is told when the coin is not limited at all. */
  async grant(coin: string, network: string, shard: string, requested: string): Promise<Grant> {
    const balance = await this.#balance(coin, network);
    // Known shards are told when a balance is set (refresh), so each asks once it is limited.
    const held = this.#grantOf(shard);
    if (!balance) {
      this.#setGrant(shard, held);
      return { limited: false };
    }
    const free = available(balance.amount, this.#granted(), this.#paid(balance));
    const give = grantSize(free, new Dec(requested));
    this.#setGrant(shard, held.plus(give));
    return {
      limited: true,
      granted: toDecimalString(give),
      available: toDecimalString(free.minus(give)),
      balance: toDecimalString(balance.amount),
    };
  }

  /**
   * A shard gives back allowance it held idle (above its high water mark), once per `returnId`;
   * the shard took it off its own allowance first, so it is never promised in two places.
   * Answers what the ledger then has free (null: the coin is not limited any more).
   */
  async giveBack(
    coin: string,
    network: string,
    shard: string,
    returnId: string,
    amount: string,
  ): Promise<{ available: string | null }> {
    this.ctx.storage.transactionSync(() => {
      if (this.ctx.storage.sql.exec("SELECT 1 FROM returns WHERE id = ?", returnId).toArray().length) return;
      this.ctx.storage.sql.exec("INSERT INTO returns (id) VALUES (?)", returnId);
      this.#setGrant(shard, this.#grantOf(shard).minus(amount));
    });
    return { available: (await this.view(coin, network)).available };
  }

  /**
   * A completed order: its reservation leaves the shard's grant and its payout leaves the balance.
   * Once per order, so a retried message never deducts twice.
   */
  async settle(
    coin: string,
    network: string,
    shard: string,
    orderId: string,
    reserved: string,
    payout: string,
  ): Promise<void> {
    const balance = await this.#balance(coin, network);
    this.ctx.storage.transactionSync(() => {
      if (this.ctx.storage.sql.exec("SELECT 1 FROM settled WHERE order_id = ?", orderId).toArray().length)
        return;
      this.ctx.storage.sql.exec("INSERT INTO settled (order_id) VALUES (?)", orderId);
      this.#setGrant(shard, this.#grantOf(shard).minus(reserved));
      if (balance) {
        const paid = this.#paid(balance).plus(payout);
        this.ctx.storage.kv.put<Paid>("paid", { basis: balance.basis, amount: toDecimalString(paid) });
      }
    });
  }

  /**
   * The operator changed the balance: read it again now, make every shard that has asked forget
   * that the coin was unlimited, and (given the coin) tell them what the ledger now has free and
   * the new balance, so each refills or returns allowance against its new marks.
   */
  async refresh(coin?: string, network?: string): Promise<void> {
    this.#cache = null;
    const view = coin && network ? await this.view(coin, network) : undefined;
    const shards = this.ctx.storage.sql.exec<{ shard: string }>("SELECT shard FROM grants").toArray();
    await Promise.all(
      shards.map((s) =>
        this.env.LIQUIDITY_SHARDS.get(this.env.LIQUIDITY_SHARDS.idFromName(s.shard)).forget(
          view?.available,
          view?.balance,
        ),
      ),
    );
  }

  async view(coin: string, network: string): Promise<LedgerView> {
    const balance = await this.#balance(coin, network);
    const granted = this.#granted();
    const paid = balance ? this.#paid(balance) : new Dec(0);
    return {
      coin,
      network,
      balance: balance ? toDecimalString(balance.amount) : null,
      paid: toDecimalString(paid),
      granted: toDecimalString(granted),
      available: balance ? toDecimalString(available(balance.amount, granted, paid)) : null,
      source: balance?.source ?? null,
    };
  }
}
