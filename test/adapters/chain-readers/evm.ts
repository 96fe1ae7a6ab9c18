import { delay, HttpResponse, http } from "msw";
import { describe, expect, it, vi } from "vitest";
import { createEvmReader, TRANSFER_TOPIC } from "../../../src/adapters/chain/evm-rpc";
import { ChainReaderError } from "../../../src/adapters/chain/http-util";
import { type AssetRef, confirmations, type IncomingTransfer } from "../../../src/adapters/chain/types";
import { chainReaderFor } from "../../../src/adapters/registry";
import { getConfig } from "../../../src/config";
import fullBlocks from "../../fixtures/chain/evm-getblocks-full.json";
import usdtLogs from "../../fixtures/chain/evm-getlogs-usdt.json";
import { createMockNetwork, type MockNetwork } from "../../support/msw";

const RPC = "https://ethereum-rpc.publicnode.com/";
const ADDRESS = "0x9cBaE97Fb54f32820DE834093691FF27A83D5531"; // EIP-55 spelling, as stored
const LOWER = ADDRESS.toLowerCase();
const USDT_CONTRACT = "0xdAC17F958D2ee523a2206206994597C13D831ec7";
const USDT: AssetRef = { coin: "USDT", network: "ETH", contract: USDT_CONTRACT, decimals: 6 };
const ETH: AssetRef = { coin: "ETH", network: "ETH", contract: null, decimals: 18 };
const HEAD = 21_634_000; // 0x14a1bd0

const B1 = { n: 21_633_836, hash: "0x2a3a7a7559f6deb9f2b48a69480dbe45ea4d5a20b8ef116ca91b82be1bb55f7d" };
const TX_E1 = "0x8b5cc4df7eec7d32a7814eca4af047ae33b2d52342667715682e19c25b0b9faa";
const TX_E5 = "0x43700797e2f9d4ad38ccf1355df3233453396bfcc8db8e424486e37bae42a9ec";

interface RpcRequest {
  jsonrpc: string;
  id: number;
  method: string;
  params: unknown[];
}
type Answer = { result: unknown } | { error: { code: number; message: string } };
type Methods = Record<string, (params: unknown[]) => Answer>;

/** A JSON-RPC endpoint answering single and batch requests from `methods`. */
function rpc(methods: Methods) {
  return http.post(RPC, async ({ request }) => {
    const body = (await request.json()) as RpcRequest | RpcRequest[];
    const answer = (req: RpcRequest) => {
      const handler = methods[req.method];
      const out: Answer = handler
        ? handler(req.params)
        : { error: { code: -32601, message: "method not found" } };
      return { jsonrpc: "2.0", id: req.id, ...out };
    };
    return HttpResponse.json(Array.isArray(body) ? body.map(answer) : answer(body));
  });
}

const blockNumber = (n = HEAD) => ({ eth_blockNumber: () => ({ result: `0x${n.toString(16)}` }) });
const bodies = (net: MockNetwork) => net.requests.map((r) => JSON.parse(r.body) as unknown);

function reader(
  net: MockNetwork,
  extra: { lookbackBlocks?: number; nativeScanBlocks?: number; timeoutMs?: number } = {},
) {
  return createEvmReader({ baseUrl: RPC, fetch: net.fetch, ...extra });
}

describe("evm reader: tip", () => {
  it("parses eth_blockNumber", async () => {
    const net = createMockNetwork(rpc(blockNumber()));
    expect(await reader(net).tipHeight()).toBe(HEAD);
    expect(net.requests.map((r) => `${r.method} ${r.url}`)).toEqual([`POST ${RPC}`]);
    expect(net.requests[0]!.headers.get("content-type")).toBe("application/json");
    expect(bodies(net)).toEqual([{ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }]);
    expect(net.unhandled).toEqual([]);
  });
});

describe("evm reader: ERC-20 transfers", () => {
  const logsNet = () =>
    createMockNetwork(rpc({ ...blockNumber(), eth_getLogs: () => ({ result: usdtLogs.result }) }));

  it("asks eth_getLogs for Transfer logs to the address and credits only genuine, live, non-zero ones", async () => {
    const net = logsNet();
    const transfers = await reader(net).incomingTransfers(USDT, ADDRESS, null);
    expect(bodies(net)).toEqual([
      { jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] },
      {
        jsonrpc: "2.0",
        id: 2,
        method: "eth_getLogs",
        params: [
          {
            fromBlock: "0x14a0848", // HEAD − 5000
            toBlock: "latest",
            address: "0xdac17f958d2ee523a2206206994597c13d831ec7",
            topics: [TRANSFER_TOPIC, null, `0x000000000000000000000000${LOWER.slice(2)}`],
          },
        ],
      },
    ]);
    expect(transfers).toEqual<IncomingTransfer[]>([
      // Two Transfer logs to the address in one tx: two transfers, told apart by logIndex.
      {
        txid: TX_E1,
        index: 0x5a,
        to: ADDRESS,
        tag: null,
        amount: "1.5",
        blockHeight: B1.n,
        blockHash: B1.hash,
        from: "0xbcadfe8b02f6eb199d7c5cdf4e148682fd41aef5", // the sender topic's address
      },
      {
        txid: TX_E1,
        index: 0x5c,
        to: ADDRESS,
        tag: null,
        amount: "250",
        blockHeight: B1.n,
        blockHash: B1.hash,
        from: "0xbcadfe8b02f6eb199d7c5cdf4e148682fd41aef5",
      },
      // Log address in EIP-55 case still matches the contract; 1 base unit is exact.
      {
        txid: TX_E5,
        index: 0x8b,
        to: ADDRESS,
        tag: null,
        amount: "0.000001",
        blockHeight: 21_633_951,
        blockHash: "0x0d0e381c9ff462c1fe8c698331702b51adeb3f1b8afcb75bd77d8216aaf18833",
        from: "0x8faaff3319f64c7c4b08675ec37cd4a442c006cd",
      },
      // Not credited: the removed (reorged) log, the look-alike token's log, the zero-value log.
    ]);
    expect(confirmations(transfers[0]!, HEAD)).toBe(HEAD - B1.n + 1);
    expect(net.unhandled).toEqual([]);
  });

  it("never credits a log from another contract, even if the node returns it", async () => {
    const fake = usdtLogs.result.filter((l) => l.address.toLowerCase() !== USDT_CONTRACT.toLowerCase());
    expect(fake).toHaveLength(1);
    const net = createMockNetwork(rpc({ ...blockNumber(), eth_getLogs: () => ({ result: fake }) }));
    expect(await reader(net).incomingTransfers(USDT, ADDRESS, null)).toEqual([]);
  });

  it("ignores removed logs and logs with the wrong shape (ERC-721 Transfer, other recipient)", async () => {
    const good = usdtLogs.result[0]!;
    const logs = [
      { ...good, removed: true },
      { ...good, topics: [...good.topics, `0x${"0".repeat(63)}7`], data: "0x" },
      { ...good, topics: [good.topics[0], good.topics[1], `0x${"0".repeat(24)}${"ab".repeat(20)}`] },
    ];
    const net = createMockNetwork(rpc({ ...blockNumber(), eth_getLogs: () => ({ result: logs }) }));
    expect(await reader(net).incomingTransfers(USDT, ADDRESS, null)).toEqual([]);
  });

  it("uses the configured look-back, never below block 0", async () => {
    const net = createMockNetwork(rpc({ ...blockNumber(100), eth_getLogs: () => ({ result: [] }) }));
    await reader(net, { lookbackBlocks: 5000 }).incomingTransfers(USDT, ADDRESS, null);
    const net2 = createMockNetwork(rpc({ ...blockNumber(), eth_getLogs: () => ({ result: [] }) }));
    await reader(net2, { lookbackBlocks: 1000 }).incomingTransfers(USDT, ADDRESS, null);
    const fromBlock = (n: MockNetwork) =>
      (bodies(n)[1] as { params: [{ fromBlock: string }] }).params[0].fromBlock;
    expect(fromBlock(net)).toBe("0x0");
    expect(fromBlock(net2)).toBe(`0x${(HEAD - 1000).toString(16)}`);
  });

  it("has no transfers for a tag, and refuses non-addresses", async () => {
    const net = logsNet();
    expect(await reader(net).incomingTransfers(USDT, ADDRESS, "1")).toEqual([]);
    await expect(reader(net).incomingTransfers(USDT, "0x1234", null)).rejects.toBeInstanceOf(TypeError);
    await expect(
      reader(net).incomingTransfers(
        { ...USDT, contract: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t" },
        ADDRESS,
        null,
      ),
    ).rejects.toBeInstanceOf(TypeError);
    expect(net.requests).toEqual([]);
  });
});

describe("evm reader: native transfers", () => {
  const blocksByHeight = new Map(fullBlocks.map((r) => [r.result.number, r.result]));
  const blocksNet = (answer?: (params: unknown[]) => Answer) =>
    createMockNetwork(
      rpc({
        ...blockNumber(),
        eth_getBlockByNumber:
          answer ?? ((params) => ({ result: blocksByHeight.get(params[0] as string) ?? null })),
      }),
    );

  it("scans the newest nativeScanBlocks blocks in one batch and credits value sent to the address", async () => {
    const net = blocksNet();
    const transfers = await reader(net, { nativeScanBlocks: 3 }).incomingTransfers(ETH, ADDRESS, null);
    expect(bodies(net)).toEqual([
      { jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] },
      [
        { jsonrpc: "2.0", id: 2, method: "eth_getBlockByNumber", params: ["0x14a1bce", true] },
        { jsonrpc: "2.0", id: 3, method: "eth_getBlockByNumber", params: ["0x14a1bcf", true] },
        { jsonrpc: "2.0", id: 4, method: "eth_getBlockByNumber", params: ["0x14a1bd0", true] },
      ],
    ]);
    expect(net.requests).toHaveLength(2);
    expect(transfers).toEqual<IncomingTransfer[]>([
      {
        // `to` spelled in EIP-55 case by the node: still ours.
        txid: "0x676b8bb84ce7267dd520deca4811c8f10a53e636352f06987f42fe425acedd80",
        index: 0,
        to: ADDRESS,
        tag: null,
        amount: "1.5",
        blockHeight: 21_633_998,
        blockHash: "0x3090deb3383bf951f676825adf07ec41453d5963d134e188a1c36df63c3ed5dc",
        from: "0xbcadfe8b02f6eb199d7c5cdf4e148682fd41aef5", // the transaction's sender
      },
      {
        // 1 wei, exact; the zero-value call to the address in the same block is not a transfer.
        txid: "0x4a8456f10e37689778cef532ab6a73742a152d4481190ab31de5d6f3f32f329c",
        index: 0,
        to: ADDRESS,
        tag: null,
        amount: "0.000000000000000001",
        blockHeight: HEAD,
        blockHash: "0x70a063658266f07031cd8cbf2a049dc18553512dd4bc5f43b321c0b9df564c5c",
        from: "0x8faaff3319f64c7c4b08675ec37cd4a442c006cd",
      },
    ]);
    expect(transfers.map((t) => confirmations(t, HEAD))).toEqual([3, 1]);
    expect(net.unhandled).toEqual([]);
  });

  it("matches batch answers by id, whatever their order", async () => {
    const net = createMockNetwork(
      http.post(RPC, async ({ request }) => {
        const body = (await request.json()) as RpcRequest | RpcRequest[];
        if (!Array.isArray(body))
          return HttpResponse.json({ jsonrpc: "2.0", id: body.id, result: "0x14a1bd0" });
        const answers = body.map((req) => ({
          jsonrpc: "2.0",
          id: req.id,
          result: blocksByHeight.get(req.params[0] as string),
        }));
        return HttpResponse.json(answers.reverse());
      }),
    );
    const transfers = await reader(net, { nativeScanBlocks: 3 }).incomingTransfers(ETH, ADDRESS, null);
    expect(transfers.map((t) => t.amount)).toEqual(["1.5", "0.000000000000000001"]);
  });

  it("fails rather than skip a block the node does not have", async () => {
    const net = blocksNet(() => ({ result: null }));
    await expect(
      reader(net, { nativeScanBlocks: 3 }).incomingTransfers(ETH, ADDRESS, null),
    ).rejects.toMatchObject({
      kind: "invalid_body",
    });
  });

  it("reports a batch answered with one error object as rpc_error", async () => {
    const net = createMockNetwork(
      http.post(RPC, async ({ request }) => {
        const body = (await request.json()) as RpcRequest | RpcRequest[];
        if (!Array.isArray(body))
          return HttpResponse.json({ jsonrpc: "2.0", id: body.id, result: "0x14a1bd0" });
        return HttpResponse.json({
          jsonrpc: "2.0",
          id: null,
          error: { code: -32600, message: "batch too large" },
        });
      }),
    );
    await expect(reader(net).incomingTransfers(ETH, ADDRESS, null)).rejects.toMatchObject({
      kind: "rpc_error",
      rpcCode: -32600,
    });
  });

  it("nativeBalance reads eth_getBalance in coin units", async () => {
    const net = createMockNetwork(rpc({ eth_getBalance: () => ({ result: "0x14d1120d7b160000" }) }));
    const r = reader(net);
    expect(await r.nativeBalance(ADDRESS)).toBe("1.5");
    expect(await r.nativeBalance(ADDRESS, HEAD - 11)).toBe("1.5");
    expect(bodies(net)).toEqual([
      { jsonrpc: "2.0", id: 1, method: "eth_getBalance", params: [LOWER, "latest"] },
      { jsonrpc: "2.0", id: 2, method: "eth_getBalance", params: [LOWER, `0x${(HEAD - 11).toString(16)}`] },
    ]);
  });
});

describe("evm reader: best chain", () => {
  const transfer: IncomingTransfer = {
    txid: TX_E1,
    index: 0x5a,
    to: ADDRESS,
    tag: null,
    amount: "1.5",
    blockHeight: B1.n,
    blockHash: B1.hash,
  };
  const header = (hash: string) => ({ number: "0x14a1b2c", hash, parentHash: `0x${"1".repeat(64)}` });

  it("compares the hash of the block now at that height", async () => {
    const net = createMockNetwork(
      rpc({ eth_getBlockByNumber: () => ({ result: header(B1.hash.toUpperCase().replace("0X", "0x")) }) }),
    );
    expect(await reader(net).isInBestChain(transfer)).toBe(true);
    expect(bodies(net)).toEqual([
      { jsonrpc: "2.0", id: 1, method: "eth_getBlockByNumber", params: ["0x14a1b2c", false] },
    ]);
  });

  it("is false after a reorg (another hash) or when the height is gone", async () => {
    const other = createMockNetwork(
      rpc({ eth_getBlockByNumber: () => ({ result: header(`0x${"ab".repeat(32)}`) }) }),
    );
    expect(await reader(other).isInBestChain(transfer)).toBe(false);
    const gone = createMockNetwork(rpc({ eth_getBlockByNumber: () => ({ result: null }) }));
    expect(await reader(gone).isInBestChain(transfer)).toBe(false);
  });

  it("is true for an unconfirmed transfer, without a request", async () => {
    const net = createMockNetwork();
    expect(await reader(net).isInBestChain({ ...transfer, blockHeight: null, blockHash: null })).toBe(true);
    expect(net.requests).toEqual([]);
  });
});

describe("evm reader: failures", () => {
  it("a JSON-RPC error → rpc_error with the code", async () => {
    const net = createMockNetwork(
      rpc({
        ...blockNumber(),
        eth_getLogs: () => ({ error: { code: -32005, message: "query returned more than 10000 results" } }),
      }),
    );
    const err = await reader(net)
      .incomingTransfers(USDT, ADDRESS, null)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChainReaderError);
    expect(err).toMatchObject({ kind: "rpc_error", rpcCode: -32005, source: "evm-rpc" });
    expect((err as Error).message).toContain("more than 10000 results");
  });

  it("HTTP 500 → http_status", async () => {
    const net = createMockNetwork(http.post(RPC, () => new HttpResponse("upstream error", { status: 500 })));
    await expect(reader(net).tipHeight()).rejects.toMatchObject({ kind: "http_status", status: 500 });
  });

  it("a slow node → timeout", async () => {
    const net = createMockNetwork(
      http.post(RPC, async () => {
        await delay(2_000);
        return HttpResponse.json({ jsonrpc: "2.0", id: 1, result: "0x1" });
      }),
    );
    await expect(reader(net, { timeoutMs: 50 }).tipHeight()).rejects.toMatchObject({ kind: "timeout" });
  });

  it("garbage, a wrong id or a wrong result type → invalid_body", async () => {
    const answers = [
      () => HttpResponse.text("<html>cloudflare</html>"),
      () => HttpResponse.json({ jsonrpc: "2.0", id: 99, result: "0x1" }),
      () => HttpResponse.json({ jsonrpc: "2.0", id: 1, result: 21634000 }),
      () => HttpResponse.json({ jsonrpc: "2.0", id: 1 }),
      () => HttpResponse.json([{ jsonrpc: "2.0", id: 1, result: "0x1" }]),
    ];
    for (const answer of answers) {
      const net = createMockNetwork(http.post(RPC, answer));
      await expect(reader(net).tipHeight()).rejects.toMatchObject({
        name: "ChainReaderError",
        kind: "invalid_body",
      });
    }
  });

  it("a Transfer log whose value is not 32 bytes or whose sender topic is no address → invalid_body", async () => {
    const log = usdtLogs.result[0]!;
    for (const bad of [
      { ...log, data: "0x01" },
      { ...log, topics: [log.topics[0]!, `0x${"ff".repeat(32)}`, log.topics[2]!] },
    ]) {
      const net = createMockNetwork(rpc({ ...blockNumber(), eth_getLogs: () => ({ result: [bad] }) }));
      await expect(reader(net).incomingTransfers(USDT, ADDRESS, null)).rejects.toMatchObject({
        kind: "invalid_body",
      });
    }
  });
});

describe("evm reader from config", () => {
  it("CHAIN_SCAN_BLOCKS_<NETWORK> sets the native scan window of that network only", async () => {
    const seen: unknown[] = [];
    const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (_url, init) => {
      const body = JSON.parse(String(init?.body)) as RpcRequest | RpcRequest[];
      seen.push(body);
      if (Array.isArray(body)) {
        return Response.json(
          body.map((r) => ({
            jsonrpc: "2.0",
            id: r.id,
            result: { number: r.params[0], hash: `0x${"ab".repeat(32)}`, transactions: [] },
          })),
        );
      }
      return Response.json({ jsonrpc: "2.0", id: body.id, result: "0x64" });
    });
    try {
      const config = getConfig({
        CHAIN_MODE: "evm",
        CHAIN_URL_BSC: RPC,
        CHAIN_URL_ETH: RPC,
        CHAIN_SCAN_BLOCKS_BSC: "7",
      } as unknown as Env);
      const bnb: AssetRef = { coin: "BNB", network: "BSC", contract: null, decimals: 18 };
      await chainReaderFor({} as Env, config, "BSC").incomingTransfers(bnb, ADDRESS, null);
      expect((seen[1] as unknown[]).length).toBe(7);
      await chainReaderFor({} as Env, config, "ETH").incomingTransfers(ETH, ADDRESS, null);
      expect((seen[3] as unknown[]).length).toBe(20);
    } finally {
      spy.mockRestore();
    }
  });
});
