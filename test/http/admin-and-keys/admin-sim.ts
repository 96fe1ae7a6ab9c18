import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { commands } from "../../../scripts/cli/commands.mjs";
import { type CliOptions, runCli } from "../../../scripts/cli/core.mjs";
import { ApiError } from "../../../src/http/errors";
import { resolveSimNetwork } from "../../../src/http/routes/admin/sim";
import worker from "../../../src/index";
import { loadCatalog } from "../../../src/storage/catalog";
import { ADMIN_TOKEN, admin, BASE, call, expectError, json } from "../../helpers";

const HEX64 = /^[0-9a-f]{64}$/;
const BTC_ADDR = "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu";
const EVM_ADDR = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94";
const XRP_ADDR = "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh";

interface Status {
  network: string;
  height: number;
  mempool: number;
  reads: number;
}
interface Sent {
  txid: string;
  network: string;
  coin: string;
  contract: string | null;
  to: string;
  tag: string | null;
  amount: string;
}

const status = async (network: string) => json<Status>(await admin(`/sim/${network}`));
const send = (network: string, body: unknown) =>
  admin(`/sim/${network}/transfers`, { method: "POST", json: body });
const mine = (network: string, body?: unknown) =>
  admin(`/sim/${network}/blocks`, { method: "POST", ...(body === undefined ? {} : { json: body }) });
const reorg = (network: string, depth: unknown) =>
  admin(`/sim/${network}/reorg`, { method: "POST", json: { depth } });

/** The Worker with other vars, as a deployment on real chains would have them. */
async function withChainMode(chainMode: string, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${ADMIN_TOKEN}`);
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`${BASE}/admin/v1${path}`, { ...init, headers }),
    { ...env, CHAIN_MODE: chainMode },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

describe("operator API: SimChain", () => {
  it("requires the admin token", async () => {
    await expectError(await call("/admin/v1/sim/BTC"), 401, "invalid_api_key");
    await expectError(
      await call("/admin/v1/sim/BTC/transfers", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer wrong" },
        body: JSON.stringify({ to: BTC_ADDR, amount: "1" }),
      }),
      401,
      "invalid_api_key",
    );
  });

  it("send → mempool; mine → confirmed; the chain the order lifecycle reads sees it", async () => {
    const before = await status("BTC");
    expect(before.network).toBe("BTC");

    const res = await send("BTC", { to: BTC_ADDR, amount: "0.01500000" });
    expect(res.status).toBe(201);
    const sent = await json<Sent>(res);
    expect(sent).toEqual({
      txid: expect.stringMatching(HEX64),
      network: "BTC",
      coin: "BTC",
      contract: null,
      to: BTC_ADDR,
      tag: null,
      amount: "0.015",
    });
    expect(await status("BTC")).toEqual({ ...before, mempool: before.mempool + 1 });

    const chain = env.SIM_CHAIN.getByName("BTC");
    const asset = { address: BTC_ADDR, tag: null, coin: "BTC", contract: null };
    expect((await chain.incomingTransfers(asset)).find((t) => t.txid === sent.txid)?.blockHeight).toBeNull();

    const mined = await mine("BTC", { count: 3 });
    expect(mined.status).toBe(200);
    expect(await json(mined)).toEqual({ height: before.height + 3 });
    // The one listing read above is counted, as a provider would count it; sends and mining are not reads.
    expect(await status("BTC")).toEqual({
      network: "BTC",
      height: before.height + 3,
      mempool: 0,
      reads: before.reads + 1,
    });
    const t = (await chain.incomingTransfers(asset)).find((x) => x.txid === sent.txid);
    expect(t?.blockHeight).toBe(before.height + 1);

    // No body mines one block; amounts may be JSON numbers.
    expect(await json(await mine("BTC"))).toEqual({ height: before.height + 4 });
    expect(await json<Sent>(await send("BTC", { to: BTC_ADDR, amount: 0.25 }))).toMatchObject({
      amount: "0.25",
    });
  });

  it("coins: the native coin by default, tokens carry the catalog contract; network in any case", async () => {
    const usdt = await json<Sent>(await send("eth", { to: EVM_ADDR, amount: "25", coin: "usdt" }));
    expect(usdt).toMatchObject({
      network: "ETH",
      coin: "USDT",
      contract: "0xdAC17F958D2ee523a2206206994597C13D831ec7",
    });
    const bnb = await json<Sent>(await send("BSC", { to: EVM_ADDR, amount: "1" }));
    expect(bnb).toMatchObject({ network: "BSC", coin: "BNB", contract: null });

    const tagged = await json<Sent>(await send("XRP", { to: XRP_ADDR, amount: "20", tag: "1001" }));
    expect(tagged).toMatchObject({ coin: "XRP", tag: "1001" });
    const seen = await env.SIM_CHAIN.getByName("XRP").incomingTransfers({
      address: XRP_ADDR,
      tag: "1001",
      coin: "XRP",
      contract: null,
    });
    expect(seen.map((t) => t.txid)).toContain(tagged.txid);

    const dust = await expectError(
      await send("BTC", { to: BTC_ADDR, amount: "0.123456789" }),
      400,
      "invalid_request",
    );
    expect(dust.detail).toMatch(/BTC on BTC has 8 decimals/);
    expect(dust.errors).toMatchObject([
      { field: "amount", message: "at most 8 decimal places", code: "invalid_request" },
    ]);

    const e = await expectError(
      await send("ETH", { to: EVM_ADDR, amount: "1", coin: "BTC" }),
      400,
      "invalid_request",
    );
    expect(e.detail).toMatch(/BTC is not on network ETH.*ETH, USDT, USDC/);
    expect(e.errors).toMatchObject([{ field: "coin", message: expect.any(String), code: "invalid_request" }]);
  });

  it("reorg removes blocks and their deposits; too deep → 400", async () => {
    const sent = await json<Sent>(await send("LTC", { to: "ltc1qtest", amount: "1" }));
    const { height } = await json<{ height: number }>(await mine("LTC", { count: 2 }));
    const chain = env.SIM_CHAIN.getByName("LTC");
    const [t] = await chain.incomingTransfers({
      address: "ltc1qtest",
      tag: null,
      coin: "LTC",
      contract: null,
    });
    expect(t?.txid).toBe(sent.txid);

    const res = await reorg("LTC", 2);
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ height: height - 2 });
    expect(
      await chain.incomingTransfers({ address: "ltc1qtest", tag: null, coin: "LTC", contract: null }),
    ).toEqual([]);
    expect(await chain.isInBestChain(t!)).toBe(false);

    const e = await expectError(await reorg("LTC", height), 400, "invalid_request");
    expect(e.detail).toMatch(/exceeds the chain height/);
    for (const depth of [0, -1, 1.5, "2", null])
      await expectError(await reorg("LTC", depth), 400, "invalid_request");
    await expectError(await admin("/sim/LTC/reorg", { method: "POST", json: {} }), 400, "invalid_request");
  });

  it("DELETE drops a mempool transfer (204), 404 when not in the mempool", async () => {
    const pending = await json<Sent>(await send("DOGE", { to: "DTestAddr", amount: "100" }));
    const confirmed = await json<Sent>(await send("DOGE", { to: "DTestAddr", amount: "50" }));
    // Drop the first, then confirm the second: neither is in the mempool afterwards.
    const drop = (txid: string) => admin(`/sim/DOGE/transfers/${txid}`, { method: "DELETE" });
    const res = await drop(pending.txid.toUpperCase());
    expect(res.status).toBe(204);
    await mine("DOGE");
    await expectError(await drop(pending.txid), 404, "not_found");
    const e = await expectError(await drop(confirmed.txid), 404, "not_found");
    expect(e.detail).toMatch(/mempool/);
    await expectError(await drop("abc"), 400, "invalid_request");
    expect(await status("DOGE")).toMatchObject({ mempool: 0 });
  });

  it("outgoing lists payouts and refunds with their order ids", async () => {
    expect(await json(await admin("/sim/TRX/outgoing"))).toEqual({ data: [] });
    const chain = env.SIM_CHAIN.getByName("TRX");
    const orderId = crypto.randomUUID();
    const base = {
      orderId,
      to: "TXYZ",
      tag: null,
      coin: "USDT",
      contract: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
    };
    const p = await chain.sendPayout({
      ...base,
      idempotencyKey: `${orderId}:payout`,
      kind: "payout",
      amount: "99.5",
    });
    await chain.sendPayout({ ...base, idempotencyKey: `${orderId}:payout`, kind: "payout", amount: "99.5" });
    await chain.mine(1);
    const r = await chain.sendPayout({
      ...base,
      idempotencyKey: `${orderId}:refund`,
      kind: "refund",
      amount: "10",
    });
    const { data } = await json<{ data: Record<string, unknown>[] }>(await admin("/sim/trx/outgoing"));
    expect(data).toEqual([
      expect.objectContaining({
        txid: p.txid,
        order_id: orderId,
        kind: "payout",
        amount: "99.5",
        block_height: 1,
      }),
      expect.objectContaining({
        txid: r.txid,
        order_id: orderId,
        kind: "refund",
        amount: "10",
        block_height: null,
      }),
    ]);
    // Payouts wait in the mempool like any transfer.
    expect(await status("TRX")).toMatchObject({ height: 1, mempool: 1 });
  });

  it("validates bodies: 400 invalid_request with field errors", async () => {
    const badSends: unknown[] = [
      {},
      { amount: "1" },
      { to: "", amount: "1" },
      { to: BTC_ADDR },
      { to: BTC_ADDR, amount: "0" },
      { to: BTC_ADDR, amount: 0 },
      { to: BTC_ADDR, amount: "-1" },
      { to: BTC_ADDR, amount: -1 },
      { to: BTC_ADDR, amount: "abc" },
      { to: BTC_ADDR, amount: "1e999" },
      { to: BTC_ADDR, amount: true },
      { to: BTC_ADDR, amount: "1", tag: 5 },
      { to: BTC_ADDR, amount: "1", extra: true },
    ];
    const before = await status("SOL");
    for (const body of badSends) {
      const e = await expectError(await send("SOL", body), 400, "invalid_request");
      expect(e.errors?.length, JSON.stringify(body)).toBeGreaterThan(0);
    }
    for (const count of [0, 1001, 1.5, "3", null]) {
      const e = await expectError(await mine("SOL", { count }), 400, "invalid_request");
      expect(e.errors?.[0]?.field).toBe("count");
    }
    const malformed = await admin("/sim/SOL/transfers", {
      method: "POST",
      body: "{nope",
      headers: { "content-type": "application/json" },
    });
    expect((await expectError(malformed, 400, "invalid_request")).detail).toMatch(/json/i);
    expect(await status("SOL")).toEqual(before);
  });

  it("404 not_found for networks outside the catalog, on every route", async () => {
    const txid = "a".repeat(64);
    for (const network of ["NOPE", "BTC2"]) {
      const routes: [string, RequestInit & { json?: unknown }][] = [
        [`/sim/${network}`, {}],
        [`/sim/${network}/transfers`, { method: "POST", json: { to: BTC_ADDR, amount: "1" } }],
        [`/sim/${network}/blocks`, { method: "POST", json: { count: 1 } }],
        [`/sim/${network}/reorg`, { method: "POST", json: { depth: 1 } }],
        [`/sim/${network}/transfers/${txid}`, { method: "DELETE" }],
        [`/sim/${network}/outgoing`, {}],
      ];
      for (const [path, init] of routes) {
        const e = await expectError(await admin(path, init), 404, "not_found");
        expect(e.detail).toContain(`Unknown network ${network}`);
      }
    }
  });

  it("404 not_found for networks whose chain mode is not simulated", async () => {
    const mixed = "BTC:esplora,ETH:evm,*:simulated";
    const e = await expectError(await withChainMode(mixed, "/sim/BTC"), 404, "not_found");
    expect(e.detail).toMatch(/BTC is not simulated \(chain mode esplora\)/);
    await expectError(
      await withChainMode(mixed, "/sim/eth/transfers", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ to: EVM_ADDR, amount: "1" }),
      }),
      404,
      "not_found",
    );
    const ltc = await withChainMode(mixed, "/sim/LTC");
    expect(ltc.status).toBe(200);
    await expectError(await withChainMode("esplora", "/sim/LTC/outgoing"), 404, "not_found");
    await expectError(await withChainMode("BTC:bogus", "/sim/BTC"), 404, "not_found");
  });

  it("resolveSimNetwork: catalog membership and chainModeFor decide", async () => {
    const catalog = await loadCatalog(env.DB);
    const resolved = resolveSimNetwork("simulated", catalog, " eth ");
    expect(resolved.network).toBe("ETH");
    expect(resolved.coins.map((r) => r.coin).sort()).toEqual(["ETH", "LINK", "USDC", "USDT"]);
    // Inactive catalog rows still have a chain: the simulator does not care about listings.
    expect(resolveSimNetwork("simulated", catalog, "BCH").coins.map((r) => r.coin)).toEqual(["BCH"]);

    const refused = (mode: string, network: string) => {
      try {
        resolveSimNetwork(mode, catalog, network);
      } catch (e) {
        return e instanceof ApiError ? { status: e.status, code: e.code, detail: e.detail } : e;
      }
      return "resolved";
    };
    expect(refused("BTC:esplora,*:simulated", "LTC")).toBe("resolved");
    expect(refused("BTC:esplora,*:simulated", "btc")).toMatchObject({ status: 404, code: "not_found" });
    expect(refused("LTC:simulated,*:evm", "ETH")).toMatchObject({
      detail: expect.stringMatching(/mode evm/),
    });
    expect(refused("LTC:simulated,*:evm", "LTC")).toBe("resolved");
    expect(refused("trongrid", "TRX")).toMatchObject({ status: 404 });
    expect(refused("bogus", "BTC")).toMatchObject({ detail: expect.stringMatching(/mode invalid/) });
    expect(refused("simulated", "USDT")).toMatchObject({ status: 404, detail: "Unknown network USDT." });
  });

  it("sets faults: validated rates; a payout refused by chaos records nothing; zero rates turn chaos off", async () => {
    const bad = await admin("/sim/LTC/faults", { method: "PUT", json: { payout_fail_rate: 2 } });
    expect(bad.status).toBe(400);
    const set = await admin("/sim/LTC/faults", { method: "PUT", json: { payout_fail_rate: 1, seed: 7 } });
    expect(set.status).toBe(200);
    expect(await set.json()).toEqual({
      read_fail_rate: 0,
      payout_fail_rate: 1,
      payout_timeout_rate: 0,
      exchange_fail_rate: 0,
      exchange_throw_rate: 0,
      listing_window_blocks: 0,
      seed: 7,
    });
    const window = await admin("/sim/LTC/faults", { method: "PUT", json: { listing_window_blocks: -1 } });
    expect(window.status).toBe(400);
    const chain = env.SIM_CHAIN.getByName("LTC");
    const payout = {
      idempotencyKey: "k-chaos",
      orderId: "o",
      kind: "payout" as const,
      to: "ltc1qx",
      tag: null,
      amount: "1",
      coin: "LTC",
      contract: null,
    };
    let failed = false;
    try {
      await chain.sendPayout(payout);
    } catch {
      failed = true;
    }
    expect(failed).toBe(true);
    expect(await chain.findPayout("k-chaos")).toBeNull();
    await admin("/sim/LTC/faults", { method: "PUT", json: { payout_timeout_rate: 1 } });
    failed = false;
    try {
      await chain.sendPayout(payout);
    } catch {
      failed = true;
    }
    expect(failed).toBe(true); // the call failed, yet the payout was recorded: an unknown outcome
    expect(await chain.findPayout("k-chaos")).not.toBeNull();
    await admin("/sim/LTC/faults", { method: "PUT", json: {} });
    expect((await chain.sendPayout(payout)).created).toBe(false);
  });

  it("is in the OpenAPI document under Admin: SimChain", async () => {
    const doc = await json<{ paths: Record<string, Record<string, { tags: string[]; security: unknown }>> }>(
      await admin("/openapi.json"),
    );
    const paths = Object.keys(doc.paths).filter((p) => p.startsWith("/admin/v1/sim/"));
    expect(paths.sort()).toEqual([
      "/admin/v1/sim/{network}",
      "/admin/v1/sim/{network}/blocks",
      "/admin/v1/sim/{network}/faults",
      "/admin/v1/sim/{network}/outgoing",
      "/admin/v1/sim/{network}/reorg",
      "/admin/v1/sim/{network}/transfers",
      "/admin/v1/sim/{network}/transfers/{txid}",
    ]);
    for (const p of paths) {
      for (const op of Object.values(doc.paths[p]!)) {
        expect(op.tags).toEqual(["Admin: SimChain"]);
        expect(op.security).toEqual([{ AdminBearer: [] }]);
      }
    }
  });
});

// The CLI core (what `npm run cli` runs) against the real Worker, as in test/cli.test.ts.
interface Run {
  code: number;
  stdout: string;
  stderr: string;
  requests: { url: string; method: string; body: unknown }[];
}

const workerFetch: CliOptions["fetch"] = (url, init) => exports.default.fetch(new Request(url, init));

async function cli(argv: string[], fetch: CliOptions["fetch"] = workerFetch): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const requests: Run["requests"] = [];
  const code = await runCli(argv, {
    commands,
    env: { ADMIN_TOKEN, API_URL: BASE },
    print: (t) => out.push(t),
    printError: (t) => err.push(t),
    fetch: (url, init) => {
      requests.push({
        url,
        method: init.method ?? "GET",
        body: typeof init.body === "string" ? JSON.parse(init.body) : undefined,
      });
      return fetch(url, init);
    },
  });
  return { code, stdout: out.join("\n"), stderr: err.join("\n"), requests };
}

async function ok(...argv: string[]): Promise<string> {
  const r = await cli(argv);
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
  return r.stdout;
}

const txidIn = (text: string) => /txid\s+([0-9a-f]{64})/.exec(text)?.[1];

describe("cli: sim", () => {
  it("send → status → mine → status, in text and --json", async () => {
    const start = JSON.parse(await ok("--json", "sim", "status", "xlm")) as Status;
    expect(start).toMatchObject({ network: "XLM", mempool: 0 });

    const sent = await ok("sim", "send", "xlm", "GB3JDWCQ", "51.50", "--tag", "777");
    expect(sent).toContain("Sent 51.5 XLM to GB3JDWCQ (tag 777) on XLM; unconfirmed for now.");
    expect(sent).toContain("sim mine XLM");
    const txid = txidIn(sent);
    expect(txid).toMatch(HEX64);

    const st = await ok("sim", "status", "XLM");
    expect(st).toMatch(new RegExp(`^height\\s+${start.height}$`, "m"));
    expect(st).toMatch(/^mempool\s+1 transfer$/m);

    expect(await ok("sim", "mine", "XLM", "3")).toBe(
      `Mined 3 blocks on XLM; height is now ${start.height + 3}.`,
    );
    expect(await ok("sim", "mine", "XLM")).toBe(`Mined 1 block on XLM; height is now ${start.height + 4}.`);
    const [t] = await env.SIM_CHAIN.getByName("XLM").incomingTransfers({
      address: "GB3JDWCQ",
      tag: "777",
      coin: "XLM",
      contract: null,
    });
    expect(t).toMatchObject({ txid, amount: "51.5", blockHeight: start.height + 1 });

    const tok = JSON.parse(
      await ok("sim", "send", "ETH", EVM_ADDR, "25", "--coin", "USDC", "--json"),
    ) as Sent;
    expect(tok).toMatchObject({ coin: "USDC", contract: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48" });
  });

  it("drop and reorg", async () => {
    const txid = txidIn(await ok("sim", "send", "TON", "UQAzWZa6", "3"));
    expect(await ok("sim", "drop", "ton", txid!)).toBe(`Dropped ${txid} from the TON mempool.`);
    const again = await cli(["sim", "drop", "TON", txid!]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/\(not_found, HTTP 404\)/);
    expect(
      JSON.parse(await ok("--json", "sim", "drop", "TON", txidIn(await ok("sim", "send", "TON", "x", "1"))!)),
    ).toMatchObject({ network: "TON", dropped: true });

    const { height } = JSON.parse(await ok("--json", "sim", "mine", "TON", "5")) as { height: number };
    expect(await ok("sim", "reorg", "TON", "2")).toBe(
      `Removed the last 2 blocks on TON and the deposits in them; height is now ${height - 2}.`,
    );
    const tooDeep = await cli(["sim", "reorg", "TON", String(height)]);
    expect(tooDeep.code).toBe(1);
    expect(tooDeep.stderr).toMatch(/exceeds the chain height .*\(invalid_request, HTTP 400\)/);
  });

  it("outgoing lists payouts with order ids", async () => {
    expect(await ok("sim", "outgoing", "DASH")).toBe("No payouts or refunds on DASH yet.");
    const orderId = crypto.randomUUID();
    const { txid } = await env.SIM_CHAIN.getByName("DASH").sendPayout({
      idempotencyKey: orderId,
      orderId,
      kind: "refund",
      to: "XdashAddr",
      tag: null,
      amount: "0.75",
      coin: "DASH",
      contract: null,
    });
    const table = (await ok("sim", "outgoing", "DASH")).split("\n");
    expect(table[0]).toMatch(/^TXID\s+KIND\s+ORDER_ID\s+AMOUNT\s+COIN\s+TO\s+TAG\s+BLOCK\s+CREATED_AT$/);
    expect(table[2]).toMatch(
      new RegExp(`^${txid}\\s+refund\\s+${orderId}\\s+0\\.75\\s+DASH\\s+XdashAddr\\s+-\\s+mempool\\s`),
    );
  });

  it("usage errors make no request; API errors exit 1", async () => {
    for (const [argv, message] of [
      [["sim", "mine", "BTC", "0"], /<n> must be from 1 to 1000/],
      [["sim", "mine", "BTC", "1001"], /<n> must be from 1 to 1000/],
      [["sim", "mine", "BTC", "two"], /<n> must be a whole number/],
      [["sim", "reorg", "BTC", "-1"], /<depth> must be a whole number/],
      [["sim", "reorg", "BTC"], /missing argument <depth>/],
      [["sim", "send", "BTC", "bc1q"], /missing argument <amount>/],
      [["sim", "deposit"], /missing argument <order_id>/],
    ] as [string[], RegExp][]) {
      const r = await cli(argv);
      expect({ argv, code: r.code }).toEqual({ argv, code: 2 });
      expect(r.stderr).toMatch(message);
      expect(r.requests).toEqual([]);
    }
    const unknown = await cli(["sim", "send", "NOPE", "x", "1"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("Error: Unknown network NOPE. (not_found, HTTP 404)");
    const bad = await cli(["sim", "send", "BTC", BTC_ADDR, "-5"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/ {2}- amount: /);
  });

  describe("sim deposit (orders call stubbed)", () => {
    const order = {
      id: "5b0c7d1e-7a54-4a8e-9d1c-2f3b4a5c6d7e",
      short_id: "7K3M9QX2TB",
      status: "waiting_deposit",
      coin_from: "XRP",
      network_from: "XRP",
      deposit_address: XRP_ADDR,
      deposit_address_tag: "4242",
      amount_from_expected: 150.25,
      deposit_confirmations_required: 1,
    };
    const stub =
      (body: unknown, status = 200): CliOptions["fetch"] =>
      async (url, init) =>
        url.includes("/admin/v1/orders/")
          ? Response.json(body, { status, headers: { "x-request-id": "req-stub" } })
          : workerFetch(url, init);

    it("sends the expected amount to the order's deposit address and tag", async () => {
      const r = await cli(["sim", "deposit", order.short_id], stub(order));
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
      expect(r.requests.map((q) => [q.method, q.url])).toEqual([
        ["GET", `${BASE}/admin/v1/orders/${order.short_id}`],
        ["POST", `${BASE}/admin/v1/sim/XRP/transfers`],
      ]);
      expect(r.requests[1]?.body).toEqual({ to: XRP_ADDR, tag: "4242", coin: "XRP", amount: 150.25 });
      expect(r.stdout).toContain(`Deposit for order ${order.short_id}:`);
      expect(r.stdout).toContain(`Sent 150.25 XRP to ${XRP_ADDR} (tag 4242) on XRP`);
      expect(r.stdout).toContain("sim mine XRP` (the order needs 1 confirmation).");
      const seen = await env.SIM_CHAIN.getByName("XRP").incomingTransfers({
        address: XRP_ADDR,
        tag: "4242",
        coin: "XRP",
        contract: null,
      });
      expect(seen.map((t) => [t.txid, t.amount, t.blockHeight])).toEqual([
        [txidIn(r.stdout), "150.25", null],
      ]);
    });

    it("a given amount wins; tokens and untagged networks; --json adds the order id", async () => {
      const token = {
        ...order,
        status: "expired",
        coin_from: "USDT",
        network_from: "TRX",
        deposit_address: "TXdepositAddr",
        deposit_address_tag: null,
        deposit_confirmations_required: 20,
      };
      const text = await cli(["sim", "deposit", token.id, "99.9"], stub(token));
      expect(text.code).toBe(0);
      expect(text.requests[1]?.body).toEqual({ to: "TXdepositAddr", coin: "USDT", amount: "99.9" });
      expect(text.stdout).toContain("Sent 99.9 USDT to TXdepositAddr on TRX");
      expect(text.stdout).toContain("the order is expired");
      expect(text.stdout).toContain("sim mine TRX 20` (the order needs 20 confirmations).");

      const r = await cli(["--json", "sim", "deposit", token.id], stub(token));
      expect(JSON.parse(r.stdout)).toMatchObject({
        order_id: token.id,
        network: "TRX",
        coin: "USDT",
        contract: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
        amount: "150.25",
        tag: null,
      });
    });

    it("unknown order → exit 1 with the API's error, nothing sent", async () => {
      const r = await cli(
        ["sim", "deposit", "NOSUCHORDR"],
        stub({ detail: "Order not found.", code: "order_not_found" }, 404),
      );
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("Error: Order not found. (order_not_found, HTTP 404)");
      expect(r.requests).toHaveLength(1);
    });
  });
});
