/**
 * Every EVM network of the table read cheaply and by its finality (docs/performance.md, "Shared
 * chain reads"; docs/networks.md, "Finality"): the EVM reader CHAIN_MODE and CHAIN_URL_<NETWORK>
 * build (src/adapters/registry.ts) under the shared reads the network's ChainWatch object holds,
 * over a fake JSON-RPC node (test/support/fake-evm.ts), provider requests counted through MSW on a
 * clock the test moves. One row per EVM network of src/domain/networks.ts, its catalog rows from D1.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createSharedReader } from "../../src/adapters/chain/shared-reads";
import { type AssetRef, confirmations, type IncomingTransfer } from "../../src/adapters/chain/types";
import { chainReaderFor, liveReaderFor } from "../../src/adapters/registry";
import { getConfig } from "../../src/config";
import { NETWORK_CODES, NETWORKS, type NetworkCode } from "../../src/domain/networks";
import { FAKE_EVM_SENDER, fakeEvmNode } from "../support/fake-evm";

const EVM = NETWORK_CODES.filter((n) => NETWORKS[n].family === "evm");
const address = (i: number) => `0x${(0xa0000 + i).toString(16).padStart(40, "0")}`;
const START = 20_000_000;

async function catalogAssets(network: NetworkCode): Promise<AssetRef[]> {
  const { results } = await env.DB.prepare(
    "SELECT coin, network, contract_address, decimals FROM currencies WHERE network = ? AND is_active = 1 ORDER BY coin",
  )
    .bind(network)
    .all<{ coin: string; network: string; contract_address: string | null; decimals: number }>();
  return results.map((r) => ({
    coin: r.coin,
    network: r.network,
    contract: r.contract_address,
    decimals: r.decimals,
  }));
}

/** The network's reader as its ChainWatch object builds it, over a fake node, on a test clock. */
function watched(network: NetworkCode) {
  const url = `https://${network.toLowerCase()}.rpc.example/`;
  const node = fakeEvmNode(url, START);
  vi.stubGlobal("fetch", node.net.fetch);
  const config = getConfig({ CHAIN_MODE: `${network}:evm`, [`CHAIN_URL_${network}`]: url } as unknown as Env);
  let t = 1_000_000;
  const shared = createSharedReader(
    chainReaderFor(env, config, network),
    {
      tipMs: config.CHAIN_TIP_SECONDS * 1000,
      addressMs: config.CHAIN_ADDRESS_SECONDS * 1000,
      listingsPerMinute: config.CHAIN_LISTINGS_PER_MINUTE,
    },
    () => t,
  );
  return { node, config, shared, advance: (ms: number) => (t += ms) };
}

/** What a deposit of `units` whole coins is on chain. */
const baseUnits = (asset: AssetRef, units: number) => BigInt(units) * 10n ** BigInt(asset.decimals);

function pay(node: ReturnType<typeof fakeEvmNode>, asset: AssetRef, to: string, units: number) {
  const value = baseUnits(asset, units);
  return asset.contract === null
    ? node.mineWith({ native: [[to, value]] })
    : node.mineWith({ token: [[asset.contract, to, value]] });
}

afterEach(() => vi.unstubAllGlobals());

describe("shared reads on every EVM network: 10,000 open orders", () => {
  it.each(EVM)(
    "%s: ≤ 0.5 provider requests per open order per minute, every deposit seen at its order's next poll",
    async (network) => {
      const assets = await catalogAssets(network);
      expect(assets.length).toBeGreaterThan(0);
      const { node, config, shared, advance } = watched(network);
      // A live order of this network reads through its ChainWatch object, not the provider directly.
      expect(chainReaderFor(env, config, network).incomingTransfersMany).toBeDefined();
      expect(liveReaderFor(env, config, network).incomingTransfersMany).toBeUndefined();
      // A rollup's node serves a finalized block that stays put for minutes (it follows Ethereum's
      // finalized epochs); the others' confirmations never ask for it (the fake answers null).
      node.finalized = NETWORKS[network].finality === "rollup" ? START - 1 : null;

      // Each order polls every CHAIN_POLL_SECONDS, reading the tip and its listing as the tracker
      // does: one in `turns` of them every CHAIN_TIP_SECONDS, every catalog row's orders among them.
      const tickMs = config.CHAIN_TIP_SECONDS * 1000;
      const turns = Math.round((config.CHAIN_POLL_SECONDS * 1000) / tickMs);
      const N = 10_000;
      const row = (i: number) => Math.floor(i / turns) % assets.length;
      const orders = Array.from({ length: N }, (_, i) => ({ to: address(i), asset: assets[row(i)]! }));
      const poll = (tick: number) =>
        Promise.all(
          orders.map(async (o, i) => {
            if (i % turns !== tick % turns) return null;
            await shared.tipHeight();
            return shared.incomingTransfers(o.asset, o.to, null);
          }),
        );

      // Paid: each catalog row's first and last order, in a block at minute 1.
      const paid = assets.flatMap((_, r) => [
        orders.findIndex((_, i) => row(i) === r),
        orders.findLastIndex((_, i) => row(i) === r),
      ]);
      const blockMs = (NETWORKS[network].blockSeconds ?? 2) * 1000;
      const minutes = 3;
      const ticks = (minutes * 60_000) / tickMs;
      const deposits = new Map<
        number,
        { block: { height: number; hash: string; txids: string[] }; at: number }
      >();
      const seen = new Map<number, { transfers: IncomingTransfer[]; at: number }>();
      let mined = 0;
      for (let tick = 0; tick < ticks; tick++) {
        advance(tickMs);
        const due = Math.floor(((tick + 1) * tickMs) / blockMs) - mined;
        node.mine(due);
        mined += due;
        if (tick === 60_000 / tickMs)
          for (const i of paid)
            deposits.set(i, { block: pay(node, orders[i]!.asset, orders[i]!.to, 250), at: tick });
        const lists = await poll(tick);
        for (const i of paid) {
          const listed = lists[i];
          if (listed?.length && !seen.has(i)) seen.set(i, { transfers: listed, at: tick });
        }
        lists.forEach((l, i) => {
          if (l?.length && !deposits.has(i)) expect.fail(`${orders[i]!.to} was credited what nobody paid it`);
        });
      }

      for (const i of paid) {
        const { block, at } = deposits.get(i)!;
        const o = orders[i]!;
        expect(seen.get(i), `${o.asset.coin} to order ${i}`).toEqual({
          transfers: [
            {
              txid: block.txids[0],
              index: 0,
              to: o.to,
              tag: null,
              amount: "250",
              blockHeight: block.height,
              blockHash: block.hash,
              from: FAKE_EVM_SENDER,
            },
          ],
          // The order's first poll after the block.
          at: at + (((i % turns) - (at % turns) + turns) % turns),
        });
      }

      const requests = node.net.requests.length;
      const perOrderMinute = requests / N / minutes;
      expect(node.net.unhandled).toEqual([]);
      expect(perOrderMinute).toBeLessThanOrEqual(0.5);
      // The tip, and one listing (eth_blockNumber, then eth_getLogs or a batch of blocks) per catalog
      // row, each at most once per CHAIN_TIP_SECONDS, whatever N is.
      expect(requests).toBeLessThanOrEqual((ticks + 1) * (1 + 2 * assets.length));
      console.log(
        `EVM shared reads (${network}, ${assets.map((a) => a.coin).join(" + ")}): ${N} open orders, ${minutes} min, ${mined} blocks: ` +
          `${requests} provider requests (${(requests / (minutes * 60)).toFixed(2)}/s, ${perOrderMinute.toFixed(5)} per open order per minute)`,
      );
    },
    240_000,
  );
});

const L1 = EVM.filter((n) => NETWORKS[n].finality !== "rollup" && NETWORKS[n].confirmations.count > 2);
// By the table's finality, not by what the reader makes of it.
const ROLLUPS = EVM.filter((n) => NETWORKS[n].finality === "rollup");

describe("reorgs: an EVM L1 counts confirmations on the newest block", () => {
  it.each(L1)(
    "%s: a deposit reorged out before its confirmations is gone, never confirmed",
    async (network) => {
      for (const asset of await catalogAssets(network)) {
        const { node, shared, advance } = watched(network);
        const to = address(1);
        const required = NETWORKS[network].confirmations.count;
        const block = pay(node, asset, to, 3);
        node.mine(1);
        advance(60_000);
        const [listed] = await shared.incomingTransfers(asset, to, null);
        expect(listed, asset.coin).toMatchObject({ blockHeight: block.height, blockHash: block.hash });
        expect(confirmations(listed!, await shared.tipHeight())).toBe(2);
        expect(2).toBeLessThan(required);

        node.reorg(block.height);
        node.mine(required);
        advance(60_000);
        expect(await shared.incomingTransfers(asset, to, null), asset.coin).toEqual([]);
        expect(await shared.isInBestChain(listed!)).toBe(false);
      }
    },
  );
});

describe("reorgs: a rollup counts confirmations on its finalized block", () => {
  it.each(ROLLUPS)(
    "%s: a deposit has none until its block is finalized; reorged out before, it is gone",
    async (network) => {
      for (const asset of await catalogAssets(network)) {
        const { node, shared, advance } = watched(network);
        node.finalized = START;
        const to = address(2);
        const block = pay(node, asset, to, 3);
        node.mine(10);
        advance(60_000);
        const [listed] = await shared.incomingTransfers(asset, to, null);
        expect(listed, asset.coin).toMatchObject({ blockHeight: block.height, blockHash: block.hash });
        // Eleven blocks deep, not finalized: no confirmation, whatever the count required.
        expect(confirmations(listed!, await shared.tipHeight())).toBe(0);

        node.reorg(block.height);
        node.mine(10);
        advance(60_000);
        expect(await shared.incomingTransfers(asset, to, null), asset.coin).toEqual([]);
        expect(await shared.isInBestChain(listed!)).toBe(false);

        // Paid again; once its block is finalized it has its one confirmation.
        const again = pay(node, asset, to, 3);
        node.mine(1);
        node.finalized = again.height;
        advance(60_000);
        const [credited] = await shared.incomingTransfers(asset, to, null);
        expect(credited).toMatchObject({ blockHeight: again.height, blockHash: again.hash });
        expect(confirmations(credited!, await shared.tipHeight())).toBe(
          NETWORKS[network].confirmations.count,
        );
        expect(await shared.isInBestChain(credited!)).toBe(true);
      }
    },
  );
});

describe("a rollup's node without the finalized tag", () => {
  it.each(ROLLUPS)(
    "%s: the tip cannot be read, rather than counted from the newest block",
    async (network) => {
      const { node, shared } = watched(network);
      node.finalized = null;
      await expect(shared.tipHeight()).rejects.toThrow(/no finalized block/);
    },
  );
});
