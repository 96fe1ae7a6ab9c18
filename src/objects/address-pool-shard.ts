import { DurableObject } from "cloudflare:workers";
import { locationHintOf } from "../domain/liquidity";
import { poolAssignmentStatement, reservePoolBlock } from "../storage/orders";

/** Which pool a shard serves: passed with every call (a Durable Object does not know its name). */
export interface PoolShardKey {
  network: string;
  region: string;
}

/** Addresses a shard takes from D1 at a time, and the count below which it takes more in the background. */
export const POOL_BLOCK = 20;
export const POOL_LOW_WATER = 5;
/** Retry of a D1 write (assignments) that failed. */
const RECORD_RETRY_MS = 10_000;

/** Background work after an answer: the alarm retries the write, the next claim the refill. */
const warn = (msg: string, err: unknown) =>
  console.error(JSON.stringify({ level: "warn", msg, error: String(err) }));

export const poolShardName = (k: PoolShardKey) => `pool:${k.network}:${k.region}`;

/** The pool shard of a network in a region, placed near the region. */
export function poolShard(env: Env, key: PoolShardKey) {
  const ns = env.ADDRESS_POOL_SHARDS;
  const hint = locationHintOf(key.region);
  return ns.get(ns.idFromName(poolShardName(key)), hint ? { locationHint: hint } : {});
}

/**
 * One object per (pool network, region): holds a block of the operator-loaded addresses, reserved
 * for it in D1 (`address_pool.reserved_by`), and gives each to one order. Creation talks only to
 * this nearby object; D1 is written after the answer (the order's assignment) and in the
 * background (the next block, below POOL_LOW_WATER). An address is reserved by one shard (one
 * D1 statement) and handed out by that shard's single thread once, so no two orders share one.
 */
export class AddressPoolShard extends DurableObject<Env> {
  #refilling: Promise<void> | null = null;
  #recording: Promise<void> | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS held (
      address TEXT PRIMARY KEY,
      order_id TEXT UNIQUE,
      assigned_at TEXT,
      recorded INTEGER NOT NULL DEFAULT 0
    )`);
  }

  get #sql() {
    return this.ctx.storage.sql;
  }

  #free(): number {
    return this.#sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM held WHERE order_id IS NULL").one().n;
  }

  /** Takes (more of) the pool from D1; concurrent callers share one request. */
  #refill(key: PoolShardKey): Promise<void> {
    this.#refilling ??= (async () => {
      const held = await reservePoolBlock(
        this.env.DB,
        key.network,
        poolShardName(key),
        POOL_BLOCK,
        new Date().toISOString(),
      );
      for (const address of held) this.#sql.exec("INSERT OR IGNORE INTO held (address) VALUES (?)", address);
    })().finally(() => {
      this.#refilling = null;
    });
    return this.#refilling;
  }

  /**
   * The order's pool address: the one it already has (a creation retried after an eviction), or
   * a free one; null when neither this shard nor D1 has one left.
   */
  async claim(key: PoolShardKey, orderId: string, at: string): Promise<string | null> {
    if (!this.ctx.storage.kv.get("key")) this.ctx.storage.kv.put("key", key);
    const take = (): string | null => {
      const mine = this.#sql
        .exec<{ address: string }>("SELECT address FROM held WHERE order_id = ?", orderId)
        .toArray()[0];
      if (mine) return mine.address;
      const free = this.#sql
        .exec<{ address: string }>("SELECT address FROM held WHERE order_id IS NULL ORDER BY address LIMIT 1")
        .toArray()[0];
      if (!free) return null;
      this.#sql.exec(
        "UPDATE held SET order_id = ?, assigned_at = ? WHERE address = ?",
        orderId,
        at,
        free.address,
      );
      return free.address;
    };
    let address = take();
    if (address === null) {
      await this.#refill(key);
      address = take();
    }
    if (address === null) return null;
    // After the answer: the assignment into D1 (the alarm retries it), and the next block.
    await this.ctx.storage.setAlarm(Date.now() + RECORD_RETRY_MS);
    void this.#record(key).catch((err: unknown) => warn("pool assignment write failed", err));
    if (this.#free() < POOL_LOW_WATER)
      void this.#refill(key).catch((err: unknown) => warn("pool refill failed", err));
    return address;
  }

  /** Writes every hand-out D1 does not have yet. */
  #record(key: PoolShardKey): Promise<void> {
    this.#recording ??= (async () => {
      for (;;) {
        const rows = this.#sql
          .exec<{ address: string; order_id: string; assigned_at: string }>(
            "SELECT address, order_id, assigned_at FROM held WHERE order_id IS NOT NULL AND recorded = 0",
          )
          .toArray();
        if (rows.length === 0) return;
        await this.env.DB.batch(
          rows.map((r) =>
            poolAssignmentStatement(this.env.DB, {
              network: key.network,
              address: r.address,
              orderId: r.order_id,
              assignedAt: r.assigned_at,
            }),
          ),
        );
        for (const r of rows) this.#sql.exec("UPDATE held SET recorded = 1 WHERE address = ?", r.address);
      }
    })().finally(() => {
      this.#recording = null;
    });
    return this.#recording;
  }

  override async alarm(): Promise<void> {
    const key = this.ctx.storage.kv.get<PoolShardKey>("key");
    if (!key) return;
    await this.#record(key);
    const pending = this.#sql
      .exec<{ n: number }>("SELECT COUNT(*) AS n FROM held WHERE order_id IS NOT NULL AND recorded = 0")
      .one().n;
    if (pending > 0) await this.ctx.storage.setAlarm(Date.now() + RECORD_RETRY_MS);
  }
}
