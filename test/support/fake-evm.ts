/**
 * A fake EVM JSON-RPC node over MSW: a chain of blocks with native transfers and ERC-20 `Transfer`
 * logs, a `finalized` block a test moves, and reorgs. It answers what the EVM reader asks
 * (src/adapters/chain/evm-rpc.ts): `eth_blockNumber`, `eth_getBlockByNumber` (a height or the
 * `latest` / `finalized` tag; full or headers, batched too) and `eth_getLogs` filtered as a node
 * does (range, contract, the OR list of `to` topics).
 */
import { HttpResponse, http } from "msw";
import { TRANSFER_TOPIC } from "../../src/adapters/chain/evm-rpc";
import { createMockNetwork, type MockNetwork } from "./msw";

interface NativeTx {
  hash: string;
  from: string;
  to: string;
  value: bigint;
}
interface TokenLog {
  contract: string;
  from: string;
  to: string;
  value: bigint;
  hash: string;
  logIndex: number;
}
interface Content {
  txs: NativeTx[];
  logs: TokenLog[];
}

interface RpcRequest {
  id: number;
  method: string;
  params: unknown[];
}

/** Who sends a mined block's transfers unless a test names another: a stranger. */
export const FAKE_EVM_SENDER = `0x${"11".repeat(20)}`;

const hex = (n: number | bigint) => `0x${n.toString(16)}`;
const word = (s: string) => `0x${s.replace(/^0x/, "").toLowerCase().padStart(64, "0")}`;

export interface FakeEvmNode {
  net: MockNetwork;
  head(): number;
  /** The `finalized` block's height; null: the node does not serve the tag (answers null). */
  finalized: number | null;
  /** Mines `n` empty blocks. */
  mine(n: number): void;
  /** Mines one block holding these transfers (from `from`, else a stranger); returns its height and hash. */
  mineWith(content: {
    native?: Array<[string, bigint]>;
    token?: Array<[string, string, bigint]>;
    from?: string;
  }): {
    height: number;
    hash: string;
    txids: string[];
  };
  /** Replaces the blocks from `height` up with as many empty ones (other hashes): a reorg. */
  reorg(height: number): void;
  hashAt(height: number): string;
}

export function fakeEvmNode(url: string, start: number): FakeEvmNode {
  const hashes = new Map<number, string>();
  const contents = new Map<number, Content>();
  let head = start;
  let fork = 0;
  let txCount = 0;
  const blockHash = (n: number) => word(`${fork.toString(16)}b${n.toString(16)}`);
  // Some history below the start, for the reader's windows.
  for (let n = start - 4096; n <= start; n++) hashes.set(n, blockHash(n));

  const block = (n: number, full: boolean) => {
    const hash = hashes.get(n);
    if (hash === undefined) return null;
    const txs = contents.get(n)?.txs ?? [];
    return {
      number: hex(n),
      hash,
      transactions: full
        ? txs.map((t) => ({ hash: t.hash, from: t.from, to: t.to, value: hex(t.value) }))
        : [],
    };
  };

  const logs = (filter: { fromBlock: string; toBlock: string; address: string; topics: unknown[] }) => {
    const from = Number.parseInt(filter.fromBlock.slice(2), 16);
    const to = filter.toBlock === "latest" ? head : Number.parseInt(filter.toBlock.slice(2), 16);
    const wanted = filter.topics[2];
    const toTopics = new Set((Array.isArray(wanted) ? wanted : [wanted]).map((t) => String(t).toLowerCase()));
    const out: unknown[] = [];
    for (const [n, c] of contents) {
      if (n < from || n > to) continue;
      for (const l of c.logs) {
        const toTopic = word(l.to);
        if (l.contract.toLowerCase() !== filter.address.toLowerCase() || !toTopics.has(toTopic)) continue;
        out.push({
          address: l.contract.toLowerCase(),
          topics: [TRANSFER_TOPIC, word(l.from), toTopic],
          data: word(l.value.toString(16)),
          blockNumber: hex(n),
          blockHash: hashes.get(n),
          transactionHash: l.hash,
          logIndex: hex(l.logIndex),
          removed: false,
        });
      }
    }
    return out;
  };

  const answer = (req: RpcRequest) => {
    const ok = (result: unknown) => ({ jsonrpc: "2.0", id: req.id, result });
    switch (req.method) {
      case "eth_blockNumber":
        return ok(hex(head));
      case "eth_getBlockByNumber": {
        const [at, full] = req.params as [string, boolean];
        if (at === "latest") return ok(block(head, full));
        if (at === "finalized") return ok(node.finalized === null ? null : block(node.finalized, full));
        return ok(block(Number.parseInt(at.slice(2), 16), full));
      }
      case "eth_getLogs":
        return ok(logs(req.params[0] as Parameters<typeof logs>[0]));
    }
    return { jsonrpc: "2.0", id: req.id, error: { code: -32601, message: `no ${req.method}` } };
  };

  const net = createMockNetwork(
    http.post(url, async ({ request }) => {
      const body = (await request.json()) as RpcRequest | RpcRequest[];
      return HttpResponse.json(Array.isArray(body) ? body.map(answer) : answer(body));
    }),
  );

  const node: FakeEvmNode = {
    net,
    head: () => head,
    finalized: null,
    mine(n) {
      for (let i = 0; i < n; i++) {
        head += 1;
        hashes.set(head, blockHash(head));
      }
    },
    mineWith({ native = [], token = [], from = FAKE_EVM_SENDER }) {
      node.mine(1);
      const txid = () => word(`7a${(++txCount).toString(16)}`);
      const c: Content = {
        txs: native.map(([to, value]) => ({ hash: txid(), from, to, value })),
        logs: token.map(([contract, to, value], logIndex) => ({
          contract,
          from,
          to,
          value,
          hash: txid(),
          logIndex,
        })),
      };
      contents.set(head, c);
      return { height: head, hash: hashes.get(head)!, txids: [...c.txs, ...c.logs].map((t) => t.hash) };
    },
    reorg(height) {
      fork += 1;
      for (let n = height; n <= head; n++) {
        hashes.set(n, blockHash(n));
        contents.delete(n);
      }
    },
    hashAt: (n) => hashes.get(n)!,
  };
  return node;
}
