import { DurableObject } from "cloudflare:workers";
import { deriveDepositAddress } from "../domain/addresses";
import { depositPath } from "../domain/deposit-allocation";
import { newShortId } from "../domain/short-id";

const bodies = new Map<number, string>();

/**
 * `{"pad":"xxx…"}` of exactly `bytes` bytes (never shorter than the 10 bytes of `{"pad":""}`), built
 * once per size: the bench's constant answers, so a reference moves the same bytes as the route it
 * is the floor of.
 */
export function constantBody(bytes: number): string {
  let body = bodies.get(bytes);
  if (body === undefined) {
    const empty = '{"pad":""}';
    body = `{"pad":"${"x".repeat(Math.max(0, bytes - empty.length))}"}`;
    if (bodies.size >= 16) bodies.clear();
    bodies.set(bytes, body);
  }
  return body;
}

/**
 * The floor of order creation in this runtime (docs/performance.md): a fresh object per call that
 * writes one row in one transaction and arms one alarm, nothing else. `POST /api/v1/_bench/new-object`
 * (BENCH_ROUTES only) creates one per request; its ratio against `POST /partner/orders` is the share
 * of a creation that is the runtime's new-object cost rather than ours. `GET /api/v1/_bench/object/{name}`
 * calls `ping` on an object that already exists: the floor of an order read, which is one call to the
 * order's object that answers the order's kept JSON text (`ping` answers a kept text of the size
 * asked for). The references the table judges by (docs/performance.md, "References"): a new
 * object that also derives a deposit address, and the call behind a partner's key, limiter and
 * request log.
 */
export class BenchObject extends DurableObject<Env> {
  /**
   * `xpub`: also derive a BTC deposit address from it at a new short id's path and keep it in the
   * row, as an order's object does for its own (the floor of a creation with its address).
   */
  async create(at: number, xpub?: string): Promise<number> {
    const row =
      xpub === undefined
        ? { at }
        : { at, address: deriveDepositAddress("btc", xpub, depositPath(newShortId())) };
    this.ctx.storage.transactionSync(() => this.ctx.storage.kv.put("row", row));
    await this.ctx.storage.setAlarm(at + 3_600_000);
    return at;
  }

  ping(bytes: number): string {
    return constantBody(bytes);
  }

  /** Armed only so that the floor pays for an alarm like an order does; there is nothing to do. */
  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }
}
