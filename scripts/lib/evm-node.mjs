// A fake EVM JSON-RPC node for the soak's EVM window (scripts/soak.mjs --evm-orders): one HTTP
// server, one chain per path (`/<NETWORK>`), each mining an empty block a second from `start`. It
// answers what the EVM reader asks (src/adapters/chain/evm-rpc.ts) — `eth_blockNumber`,
// `eth_getBlockByNumber` (a height, `latest` or `finalized`; batched too) and `eth_getLogs` (no
// logs: nobody pays) — like test/support/fake-evm.ts does for the tests over MSW, and counts, per
// chain, the HTTP requests it gets and the JSON-RPC calls they carry.
import { createServer } from "node:http";

/** How far a rollup's `finalized` block trails its newest one (blocks). */
const FINALIZED_LAG = 100;

const hex = (n) => `0x${n.toString(16)}`;

/**
 * Starts the node on 127.0.0.1:`port`. `networks` are the chains it serves; `start` the height each
 * begins at. Returns { url(network), counts(), stop() }; counts() is { NETWORK: { requests, calls,
 * methods: { method: calls }, logAddresses: addresses over all eth_getLogs } } so far.
 */
export async function startEvmNode({ port, networks, start = 20_000_000 }) {
  const t0 = Date.now();
  const head = () => start + Math.floor((Date.now() - t0) / 1000);
  const counts = Object.fromEntries(
    networks.map((n) => [n, { requests: 0, calls: 0, methods: {}, logAddresses: 0 }]),
  );
  const block = (network, n) =>
    n > head()
      ? null
      : {
          number: hex(n),
          hash: `0x${Buffer.from(`${network}:${n}`).toString("hex").padStart(64, "0")}`,
          transactions: [],
        };

  const answer = (network, req) => {
    const c = counts[network];
    c.calls += 1;
    c.methods[req.method] = (c.methods[req.method] ?? 0) + 1;
    const ok = (result) => ({ jsonrpc: "2.0", id: req.id, result });
    switch (req.method) {
      case "eth_blockNumber":
        return ok(hex(head()));
      case "eth_getBlockByNumber": {
        const [at] = req.params;
        if (at === "latest") return ok(block(network, head()));
        if (at === "finalized") return ok(block(network, head() - FINALIZED_LAG));
        return ok(block(network, Number.parseInt(at.slice(2), 16)));
      }
      case "eth_getLogs": {
        // How many addresses one listing serves: the `to` topic's OR list.
        const to = req.params[0]?.topics?.[2];
        c.logAddresses += Array.isArray(to) ? to.length : 1;
        return ok([]);
      }
      default:
        return { jsonrpc: "2.0", id: req.id, error: { code: -32601, message: `no ${req.method}` } };
    }
  };

  const server = createServer((req, res) => {
    const network = decodeURIComponent((req.url ?? "/").slice(1));
    const chunks = [];
    req.on("data", (d) => chunks.push(d));
    req.on("end", () => {
      if (!counts[network] || req.method !== "POST") {
        res.writeHead(404).end();
        return;
      }
      counts[network].requests += 1;
      let body;
      try {
        const parsed = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        body = Array.isArray(parsed) ? parsed.map((r) => answer(network, r)) : answer(network, parsed);
      } catch {
        res.writeHead(400).end();
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  return {
    url: (network) => `http://127.0.0.1:${port}/${network}`,
    counts: () => structuredClone(counts),
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
