import { env } from "cloudflare:workers";
import { base58 } from "@scure/base";
import { beforeAll, describe, expect, it } from "vitest";
import { POOL_BLOCK, poolShard } from "../../../src/objects/address-pool-shard";
import { admin, call, createPartner, json, setPrices, type TestPartner } from "../../helpers";
import { BTC_TO_USDT } from "../../support/orders";

describe("address-pool", () => {
  const SOL_ORDER = { ...BTC_TO_USDT, coin_from: "SOL", network_from: "SOL", amount_from: 1 };

  let partner: TestPartner;

  const post = () =>
    call("/api/v1/partner/orders", {
      method: "POST",
      body: JSON.stringify(SOL_ORDER),
      headers: { Authorization: `Bearer ${partner.key}`, "content-type": "application/json" },
    });

  const solAddresses = (n: number) =>
    Array.from({ length: n }, () => base58.encode(crypto.getRandomValues(new Uint8Array(32))));

  interface PoolView {
    network: string;
    available: number;
    reserved: number;
    assigned: number;
    shards: { shard: string; reserved: number }[];
  }

  async function poolView(): Promise<PoolView | undefined> {
    const { data } = await json<{ data: PoolView[] }>(await admin("/address-pool"));
    return data.find((p) => p.network === "SOL");
  }

  /** The pool view once the shard's writes after the answers (assignments, next block) have landed. */
  async function settledPoolView(done: (v: PoolView) => boolean): Promise<PoolView> {
    for (let i = 0; ; i++) {
      const v = await poolView();
      if (v && done(v)) return v;
      if (i > 100) throw new Error(`pool view never settled: ${JSON.stringify(v)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  beforeAll(async () => {
    await setPrices();
    partner = await createPartner({ name: "pool", rate_limit_per_minute: 100_000 });
  });

  describe("SOL deposit addresses from the region's pool shard", () => {
    it("a claim repeated for the same order (a creation retried after an eviction) gets the same address", async () => {
      const loaded = solAddresses(2);
      await admin("/address-pool/SOL", { method: "POST", json: { addresses: loaded } });
      const key = { network: "SOL", region: "retry-test" };
      const shard = poolShard(env, key);
      const first = await shard.claim(key, "order-a", new Date().toISOString());
      expect(loaded).toContain(first);
      expect(await shard.claim(key, "order-a", new Date().toISOString())).toBe(first);
      const other = await shard.claim(key, "order-b", new Date().toISOString());
      expect(other).not.toBe(first);
      expect(loaded).toContain(other);
      expect(await settledPoolView((v) => v.assigned === 2)).toEqual({
        network: "SOL",
        available: 0,
        reserved: 0,
        assigned: 2,
        shards: [],
      });
    });

    it("concurrent creations never share an address; the pool runs dry with 400 pair_unavailable; D1 says who holds what", async () => {
      const loaded = solAddresses(POOL_BLOCK + 5);
      const load = await admin("/address-pool/SOL", { method: "POST", json: { addresses: loaded } });
      expect(await json(load)).toEqual({ network: "SOL", added: loaded.length });

      // The first order takes a block for the shard; the rest stays free in D1 until low water.
      expect((await post()).status).toBe(201);
      const afterOne = await settledPoolView((v) => v.assigned === 2 + 1);
      expect(afterOne.available + afterOne.reserved).toBe(loaded.length - 1);
      expect(afterOne.reserved).toBeGreaterThan(0);
      expect(afterOne.shards).toEqual([{ shard: "pool:SOL:default", reserved: afterOne.reserved }]);

      const answers = await Promise.all(Array.from({ length: loaded.length + 5 }, () => post()));
      const created = await Promise.all(
        answers.filter((r) => r.status === 201).map((r) => json<{ id: string; deposit_address: string }>(r)),
      );
      const refused = answers.filter((r) => r.status !== 201);
      expect(created.length).toBe(loaded.length - 1);
      for (const r of refused) {
        expect(r.status).toBe(400);
        expect(((await r.json()) as { code: string }).code).toBe("pair_unavailable");
      }
      const addresses = created.map((o) => o.deposit_address);
      expect(new Set(addresses).size).toBe(addresses.length);
      for (const a of addresses) expect(loaded).toContain(a);

      // + 2: the addresses the test above gave its two orders.
      const settled = await settledPoolView((v) => v.assigned === loaded.length + 2);
      expect(settled).toEqual({
        network: "SOL",
        available: 0,
        reserved: 0,
        assigned: loaded.length + 2,
        shards: [],
      });
      // The index (projected from each order) and the pool agree on who has which address.
      for (const o of created) {
        const row = await env.DB.prepare("SELECT order_id FROM address_pool WHERE address = ?")
          .bind(o.deposit_address)
          .first<{ order_id: string }>();
        expect(row?.order_id).toBe(o.id);
      }
    });
  });
});
