/**
 * Every EVM catalog row is read by the one EVM reader, configured per network by CHAIN_MODE and
 * CHAIN_URL_<NETWORK> alone (docs/networks.md, "Add an EVM chain"). The node's answers are the
 * recorded Ethereum fixtures (test/fixtures/chain/evm-*.json) replayed on each chain, the token
 * logs re-addressed to that row's own contract: the reader's work is the same on every EVM chain;
 * what differs is the endpoint and the contract.
 */
import { env } from "cloudflare:workers";
import { HttpResponse, http } from "msw";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AssetRef } from "../../src/adapters/chain/types";
import { chainReaderFor } from "../../src/adapters/registry";
import { getConfig } from "../../src/config";
import { NETWORK_CODES, NETWORKS } from "../../src/domain/networks";
import fullBlocks from "../fixtures/chain/evm-getblocks-full.json";
import usdtLogs from "../fixtures/chain/evm-getlogs-usdt.json";
import { createMockNetwork } from "../support/msw";

const ADDRESS = "0x9cBaE97Fb54f32820DE834093691FF27A83D5531";
const RECORDED_CONTRACT = "0xdac17f958d2ee523a2206206994597c13d831ec7";
const HEAD = "0x14a1bd0";
/** What the recorded answers hold for ADDRESS: three genuine token transfers, two native ones. */
const TOKEN_TXIDS = [
  "0x8b5cc4df7eec7d32a7814eca4af047ae33b2d52342667715682e19c25b0b9faa",
  "0x8b5cc4df7eec7d32a7814eca4af047ae33b2d52342667715682e19c25b0b9faa",
  "0x43700797e2f9d4ad38ccf1355df3233453396bfcc8db8e424486e37bae42a9ec",
];
const NATIVE_TXIDS = [
  "0x676b8bb84ce7267dd520deca4811c8f10a53e636352f06987f42fe425acedd80",
  "0x4a8456f10e37689778cef532ab6a73742a152d4481190ab31de5d6f3f32f329c",
];

interface RpcRequest {
  id: number;
  method: string;
  params: unknown[];
}

/** A JSON-RPC node at `url` answering from the recorded fixtures, token logs under `contract`. */
function recordedNode(url: string, contract: string | null) {
  const blocks = new Map(fullBlocks.map((r) => [r.result.number, r.result]));
  const logs = usdtLogs.result.map((l) =>
    l.address.toLowerCase() === RECORDED_CONTRACT && contract !== null
      ? { ...l, address: contract.toLowerCase() }
      : l,
  );
  const answer = (req: RpcRequest) => {
    const result =
      req.method === "eth_blockNumber"
        ? HEAD
        : req.method === "eth_getLogs"
          ? logs
          : (blocks.get(req.params[0] as string) ?? null);
    return { jsonrpc: "2.0", id: req.id, result };
  };
  return createMockNetwork(
    http.post(url, async ({ request }) => {
      const body = (await request.json()) as RpcRequest | RpcRequest[];
      return HttpResponse.json(Array.isArray(body) ? body.map(answer) : answer(body));
    }),
  );
}

const EVM_NETWORKS = NETWORK_CODES.filter((n) => NETWORKS[n].family === "evm");

describe("the EVM reader on every EVM network", () => {
  afterEach(() => vi.unstubAllGlobals());

  it.each(EVM_NETWORKS)("%s: each catalog row's deposits, from CHAIN_URL_%s", async (network) => {
    const { results: rows } = await env.DB.prepare(
      "SELECT coin, network, contract_address, decimals FROM currencies WHERE network = ? AND is_active = 1",
    )
      .bind(network)
      .all<{ coin: string; network: string; contract_address: string | null; decimals: number }>();
    expect(rows.length, network).toBeGreaterThan(0);
    const url = `https://${network.toLowerCase()}.rpc.example/`;
    const config = getConfig({
      CHAIN_MODE: `${network}:evm`,
      [`CHAIN_URL_${network}`]: url,
      [`CHAIN_SCAN_BLOCKS_${network}`]: "3",
    } as unknown as Env);
    for (const row of rows) {
      const node = recordedNode(url, row.contract_address);
      vi.stubGlobal("fetch", node.fetch);
      const asset: AssetRef = {
        coin: row.coin,
        network,
        contract: row.contract_address,
        decimals: row.decimals,
      };
      const transfers = await chainReaderFor(env, config, network).incomingTransfers(asset, ADDRESS, null);
      expect(
        transfers.map((t) => t.txid),
        `${row.coin}/${network}`,
      ).toEqual(row.contract_address === null ? NATIVE_TXIDS : TOKEN_TXIDS);
      expect(node.unhandled).toEqual([]);
      if (row.contract_address !== null) {
        const asked = node.requests
          .map((r) => JSON.parse(r.body) as RpcRequest)
          .find((r) => r.method === "eth_getLogs");
        expect((asked?.params[0] as { address: string } | undefined)?.address).toBe(
          row.contract_address.toLowerCase(),
        );
      }
    }
  });
});
