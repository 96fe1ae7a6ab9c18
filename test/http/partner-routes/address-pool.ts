import { env } from "cloudflare:workers";
import { base58 } from "@scure/base";
import { beforeAll, describe, expect, it } from "vitest";
import { getConfig } from "../../../src/config";
import { POOL_BLOCK, poolShard } from "../../../src/objects/address-pool-shard";
import { watchAddressPools } from "../../../src/services/address-pools";
import { refreshServiceStatus } from "../../../src/services/service-status";
import { admin, call, createPartner, expectError, json, setPrices, type TestPartner } from "../../helpers";
import { cli } from "../../support/cli";
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
    free: number;
    low: boolean;
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
    it("before any address is loaded, the operator's view lists SOL's pool as empty and low", async () => {
      expect(await poolView()).toEqual({
        network: "SOL",
        free: 0,
        low: true,
        available: 0,
        reserved: 0,
        assigned: 0,
        shards: [],
      });
    });

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
        free: 0,
        low: true,
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
        free: 0,
        low: true,
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

  describe("an empty or low pool is seen: service status, an operator alert, the CLI (issue 42, item 13)", () => {
    const config = getConfig(env);
    const solStatus = async () => {
      const s = await json<{ networks: { network: string; deposits: string; payouts: string }[] }>(
        await call("/api/v1/service-status"),
      );
      return s.networks.find((n) => n.network === "SOL");
    };
    const poolAlerts = async () =>
      (
        await json<{
          data: { order_id: string; kind: string; state: string; data: Record<string, unknown> }[];
        }>(await admin("/alerts?state=all&limit=500"))
      ).data.filter((a) => a.order_id === "address-pool:SOL");

    it("empty: SOL deposits down and quotes from SOL refused as such, the alert open; refilled with the CLI: degraded while the shards hold the rest, then operational and the alert cleared", async () => {
      // The tests above drained the pool.
      const shown = await cli("pool", "show", "--json");
      expect(shown.code).toBe(0);
      expect(JSON.parse(shown.stdout)).toMatchObject({
        low_water: config.ADDRESS_POOL_LOW_WATER,
        data: [expect.objectContaining({ network: "SOL", free: 0, low: true })],
      });
      expect((await cli("pool", "show")).stdout).toMatch(/SOL\s+0\s+0\s+0\s+\d+\s+EMPTY: orders refused/);

      await refreshServiceStatus(env, config, Date.now());
      expect(await solStatus()).toEqual(
        expect.objectContaining({ deposits: "down", payouts: "operational" }),
      );
      const refused = await expectError(
        await call("/api/v1/partner/rates?coin_from=SOL&coin_to=BTC&amount=1"),
        400,
        "pair_unavailable",
      );
      // First, as the network's; the pool's own reason follows once no isolate counts a stale address.
      expect(refused.errors?.[0]).toEqual({
        code: "network_unavailable",
        side: "from",
        detail: expect.stringContaining("SOL"),
      });
      await watchAddressPools(env, config, Date.now());
      expect(await poolAlerts()).toEqual([
        expect.objectContaining({
          kind: "address_pool_low",
          state: "open",
          data: { network: "SOL", free: 0, unreserved: 0, low_water: config.ADDRESS_POOL_LOW_WATER },
        }),
      ]);

      // A few addresses: the first order's shard takes them all, none is left for another region.
      const added = await cli("pool", "add", "SOL", solAddresses(3).join("\n"));
      expect(added).toMatchObject({ code: 0, stderr: "" });
      expect(added.stdout).toContain("Added 3 of 3 addresses to the SOL pool");
      // Orders from SOL resume with the cron's next judgement (each minute).
      await refreshServiceStatus(env, config, Date.now());
      expect(await solStatus()).toMatchObject({ deposits: "operational" });
      expect((await post()).status).toBe(201);
      await settledPoolView((v) => v.available === 0 && v.reserved === 2);
      await refreshServiceStatus(env, config, Date.now());
      expect(await solStatus()).toMatchObject({ deposits: "degraded" });
      await watchAddressPools(env, config, Date.now());
      expect(await poolAlerts()).toEqual([expect.objectContaining({ state: "open" })]);

      // Refilled above the low-water mark (more than one request's worth): operational, the alert cleared.
      const n = config.ADDRESS_POOL_LOW_WATER + 1000;
      expect((await cli("pool", "add", "SOL", solAddresses(n).join(","))).stdout).toContain(
        `Added ${n} of ${n}`,
      );
      await refreshServiceStatus(env, config, Date.now());
      expect(await solStatus()).toMatchObject({ deposits: "operational" });
      await watchAddressPools(env, config, Date.now());
      expect(await poolAlerts()).toEqual([expect.objectContaining({ state: "cleared" })]);
      expect((await cli("pool", "show")).stdout).toMatch(/SOL\s+\d+.*\bok$/m);
    });

    it("pool add refuses a bad address with the server's words and adds nothing from that request", async () => {
      const before = await poolView();
      const res = await cli("pool", "add", "SOL", `${solAddresses(1)[0]},not-a-sol-address`);
      expect(res.code).toBe(1);
      expect(res.stderr).toContain("not valid SOL addresses");
      expect((await poolView())?.available).toBe(before?.available);
      expect((await cli("pool", "add", "SOL", " , ")).code).toBe(2);
    });
  });
});
