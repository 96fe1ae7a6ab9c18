// `npm run soak`: a few thousand orders, created concurrently against a private `wrangler dev`,
// driven through SimChain to terminal states by their own alarms while rate limits and injected
// faults are active, paying through a counting payout gateway (scripts/lib/gateway.mjs) that never
// deduplicates; then every invariant is checked against the gateway's own records and the counts
// printed.
//
//   npm run soak                         2,000 orders, 10% faults (≈ 5–8 min)
//   npm run soak -- --orders 500 --fault-rate 0.2
//   npm run soak -- --help
//
//   npm run soak -- --evm-orders 200   only the EVM window: the real EVM reader over a fake node
//
// See docs/performance.md for what it checks and a real run's counts.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { HDKey } from "@scure/bip32";
import Decimal from "decimal.js";
import { adminClient, call, createOrder, mapPool, progress, STATIC_PRICES, seedPartner } from "./lib/api.mjs";
import { startEvmNode } from "./lib/evm-node.mjs";
import { startGateway } from "./lib/gateway.mjs";
import { STREAM_TARGETS } from "./lib/stream-targets.mjs";
import { cpuTimeMs, findRuntimePid, ROOT, startWorker, stopOnSignals } from "./lib/worker.mjs";

const HELP = `Usage: npm run soak -- [options]

  --orders <n>          orders to create (default 2000)
  --concurrency <n>     concurrent creations (default 16)
  --unfunded <share>    share of orders never paid, left to expire (default 0.2)
  --short <share>       share paid below the pair minimum, to be refunded (default 0.1)
  --fault-rate <p>      fault probability: SimChain reads and the exchange; the payout gateway's
                        sends and lookups (default 0.1)
  --partner-limit <n>   the soak partner's rate_limit_per_minute (default 1200: creation and the
                        final reads run into 429s and retry after Retry-After)
  --max-minutes <m>     abort with a failure after this long (default 15)
  --port <n>            port of the private wrangler dev (default 8792; its devtools inspector
                        listens on a free port the system picks)
  --gateway-port <n>    port of the counting payout gateway (default: --port + 1)
  --gateway-forget <p>  share of lookups the gateway answers with a signed "unknown key" even for a
                        key it paid (a gateway that lost its records; default 0). Only to show that
                        the paid-twice checks fail: the soak must then exit 1.
  --state-dir <dir>     its state, wiped at start (default ${join(tmpdir(), "soak-state")})
  --seed <n>            PRNG seed for the order mix and the faults (default 42)
  --steady-orders <n>   after the orders end: a cohort of this many orders left waiting for a
                        deposit, three quarters on BTC and the rest spread over the four networks,
                        for the steady-state window (default 80; 0 skips the window and its gate)
  --steady-minutes <m>  that window's length: provider requests per open order per minute are
                        SimChain's reads over it, failing above 0.5 on the network with the most
                        cohort orders (default 3)
  --retention           terminal orders compact as soon as they may (ORDER_RETENTION_DAYS=0,
                        AFTER_WATCH_HORIZON_DAYS=0), and the cost table waits for their alarms:
                        its storage_bytes column is then storage per order after retention
  --evm-orders <n>      instead of the soak: n orders per EVM network (spread over its catalog
                        rows) left waiting for a deposit, every EVM network read by the real EVM
                        reader (CHAIN_MODE <network>:evm) over a local fake JSON-RPC node
                        (scripts/lib/evm-node.mjs, on --gateway-port); provider requests per open
                        order per minute per network over --steady-minutes, failing above 0.5 on any
  --keep                leave wrangler dev running at the end (the gateway stops with the soak)

  --streams <target>    instead of the orders above, one target of the live event streams
                        (scripts/lib/stream-targets.mjs, docs/events.md): latency (commit-to-
                        delivery p99 at --streams-count SSE streams, fails above 100 ms), idle
                        (--streams-count hibernated WebSockets, workerd's memory) or chaos
                        (--streams-count orders whose clients drop and resume; fails when one
                        differs from the webhook receiver's record)
  --streams-count <n>   streams or orders for --streams (default 1000; idle: 10000; chaos: 300)
`;

const { values: args } = parseArgs({
  options: {
    orders: { type: "string", default: "2000" },
    concurrency: { type: "string", default: "16" },
    unfunded: { type: "string", default: "0.2" },
    short: { type: "string", default: "0.1" },
    "fault-rate": { type: "string", default: "0.1" },
    "partner-limit": { type: "string", default: "1200" },
    "max-minutes": { type: "string", default: "15" },
    port: { type: "string", default: "8792" },
    "gateway-port": { type: "string" },
    "gateway-forget": { type: "string", default: "0" },
    "state-dir": { type: "string", default: join(tmpdir(), "soak-state") },
    seed: { type: "string", default: "42" },
    "steady-orders": { type: "string", default: "80" },
    "steady-minutes": { type: "string", default: "3" },
    retention: { type: "boolean", default: false },
    "evm-orders": { type: "string", default: "0" },
    keep: { type: "boolean", default: false },
    streams: { type: "string" },
    "streams-count": { type: "string" },
    help: { type: "boolean", short: "h", default: false },
  },
});
if (args.help) {
  console.log(HELP);
  process.exit(0);
}
const num = (name, { min = 0, max = Number.POSITIVE_INFINITY, integer = false } = {}) => {
  const n = Number(args[name]);
  if (!Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
    console.error(`--${name}: expected a ${integer ? "whole " : ""}number from ${min} to ${max}`);
    process.exit(2);
  }
  return n;
};
const N = num("orders", { min: 1, max: 100_000, integer: true });
const CONCURRENCY = num("concurrency", { min: 1, max: 256, integer: true });
const UNFUNDED = num("unfunded", { max: 1 });
const SHORT = num("short", { max: 1 - UNFUNDED });
const FAULT = num("fault-rate", { max: 1 });
const PARTNER_LIMIT = num("partner-limit", { min: 1, max: 1_000_000, integer: true });
const MAX_MS = num("max-minutes", { min: 1, max: 240 }) * 60_000;
const PORT = num("port", { min: 1, max: 65535, integer: true });
args["gateway-port"] ??= String(PORT + 1);
const GATEWAY_PORT = num("gateway-port", { min: 1, max: 65535, integer: true });
const SEED = num("seed", { integer: true });
const FORGET = num("gateway-forget", { max: 1 });
const STEADY_ORDERS = num("steady-orders", { max: 10_000, integer: true });
const STEADY_MS = num("steady-minutes", { min: 0.5, max: 60 }) * 60_000;
const EVM_ORDERS = num("evm-orders", { max: 10_000, integer: true });
/**
 * The steady window opens this long after the cohort's last order was created: each order lists its
 * address on its first poll (CHAIN_POLL_SECONDS=1, so within seconds, more on a loaded machine), a
 * fixed per-order read the cost table already counts; the window measures what recurs.
 */
const STEADY_WARMUP_MS = 30_000;

const ADMIN_TOKEN = `soak-${crypto.randomUUID()}`;
const GATEWAY_SECRET = `soak-gateway-${crypto.randomUUID()}`;
const EXPIRY_S = 120;
const VARS = {
  ADMIN_TOKEN,
  PRICE_SOURCE: "static",
  PRICE_MAX_AGE_SECONDS: "86400",
  CHAIN_POLL_SECONDS: "1",
  ORDER_EXPIRY_SECONDS: String(EXPIRY_S),
  LATE_DEPOSIT_WATCH_HOURS: "0",
  // Orders read SimChain through their network's ChainWatch, as live orders read a provider in
  // production; the tip is shared for 15 s (SimChain mines a block a second here).
  CHAIN_SHARED_READS: "all",
  CHAIN_TIP_SECONDS: "15",
  CHAIN_ADDRESS_SECONDS: "180",
  // Each order object counts what it costs (src/objects/order/meter.ts): the cost table.
  ORDER_METER: "true",
  // --retention: the storage an order keeps for good (docs/operators.md, "Retention").
  ...(args.retention ? { ORDER_RETENTION_DAYS: "0", AFTER_WATCH_HORIZON_DAYS: "0" } : {}),
};
/** The soak fails above this many provider requests per open order per minute in the steady window (issue 32). */
const MAX_PROVIDER_PER_ORDER_MINUTE = 0.5;
/** Completed orders whose deposit-seen → payout-sent time is within the p90 they were quoted. */
const MIN_ETA_SHARE = 0.9;
const TERMINAL = new Set(["completed", "refunded", "failed", "expired"]);
const NETWORKS = ["BTC", "XRP", "TRX", "ETH"];

// Four routes over four source networks (so no single SimChain carries every poll), with a memo
// network on each side, a token deposit (USDT on TRON), float and fixed rates.
const ROUTES = [
  {
    name: "BTC → USDT/TRX float",
    coin: "BTC",
    decimals: 8,
    body: {
      coin_from: "BTC",
      network_from: "BTC",
      coin_to: "USDT",
      network_to: "TRX",
      amount_from: "0.01",
      rate_type: "float",
      recipient_address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
      refund_address: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",
    },
  },
  {
    name: "XRP → ETH fixed",
    coin: "XRP",
    decimals: 6,
    body: {
      coin_from: "XRP",
      network_from: "XRP",
      coin_to: "ETH",
      network_to: "ETH",
      amount_from: "100",
      rate_type: "fixed",
      recipient_address: "0xde0B295669a9FD93d5F28D9Ec85E40f4cb697BAe",
      refund_address: "rPT1Sjq2YGrBMTttX4GZHjKu9dyfzbpAYe",
    },
  },
  {
    name: "USDT/TRX → BTC float",
    coin: "USDT",
    decimals: 6,
    body: {
      coin_from: "USDT",
      network_from: "TRX",
      coin_to: "BTC",
      network_to: "BTC",
      amount_from: "500",
      rate_type: "float",
      recipient_address: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",
      refund_address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
    },
  },
  {
    name: "ETH → XRP float, tag",
    coin: "ETH",
    decimals: 18,
    body: {
      coin_from: "ETH",
      network_from: "ETH",
      coin_to: "XRP",
      network_to: "XRP",
      amount_from: "0.5",
      rate_type: "float",
      recipient_address: "rPT1Sjq2YGrBMTttX4GZHjKu9dyfzbpAYe",
      recipient_address_tag: "424242",
      refund_address: "0xde0B295669a9FD93d5F28D9Ec85E40f4cb697BAe",
    },
  },
];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** mulberry32: a small seeded PRNG, so a seed gives the same order mix every run. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Half the pair minimum, as a decimal string of at most `decimals` places (rounded down). */
function halfOf(min, decimals) {
  const places = Math.min(decimals, 12);
  const f = 10 ** places;
  return (Math.floor((min / 2) * f) / f).toFixed(places).replace(/\.?0+$/, "");
}

const count = (xs, key) => xs.reduce((m, x) => m.set(key(x), (m.get(key(x)) ?? 0) + 1), new Map());
const asObject = (m) => Object.fromEntries([...m.entries()].sort(([a], [b]) => String(a).localeCompare(b)));

let worker = null;
let gateway = null;
stopOnSignals(() => ({
  stop: async () => {
    await gateway?.stop();
    await worker?.stop();
  },
}));

/** --streams: one target of the live event streams instead of the order soak. */
function streamTarget() {
  const run = STREAM_TARGETS[args.streams];
  if (!run) {
    console.error(`--streams: expected one of ${Object.keys(STREAM_TARGETS).join(", ")}`);
    process.exit(2);
  }
  args["streams-count"] ??= String({ idle: 10_000, chaos: 300 }[args.streams] ?? 1000);
  const count = num("streams-count", { min: 1, max: 20_000, integer: true });
  return run({ count, port: PORT, stateDir: args["state-dir"], seed: SEED || 1 });
}

async function main() {
  const started = Date.now();
  const deadline = started + MAX_MS;
  const settleRand = prng(SEED + 1);
  const gatewayFaults = { sendFault: FAULT, lookupFault: FAULT, seed: SEED, forget: FORGET };
  gateway = await startGateway({
    port: GATEWAY_PORT,
    secret: GATEWAY_SECRET,
    faults: gatewayFaults,
    // A late payment shows up 1–5 s after its 504; lookups meanwhile answer 409 "in progress".
    settleAfterMs: () => 1000 + Math.floor(settleRand() * 4000),
  });
  console.log(`counting payout gateway on ${gateway.url} (faults ${JSON.stringify(gatewayFaults)})`);
  // Creation runs with simulated payouts: with PAYOUT_MODE=http the Worker rightly refuses every
  // pair whose deposits are read from SimChain (realPayoutRefusal, docs/adapters.md). No block is
  // mined before the restart below, so no deposit has a confirmation yet and no order can be paid
  // through SimChain (the verification checks that none was).
  worker = await startWorker({
    stateDir: args["state-dir"],
    port: PORT,
    inspectorPort: 0,
    vars: { ...VARS, PAYOUT_MODE: "simulated" },
  });
  const base = worker.baseUrl;
  console.log(`wrangler dev on ${base} (pid ${worker.pid}, state ${worker.stateDir})`);
  const admin = adminClient(base, ADMIN_TOKEN);
  await admin.put("/prices", { prices: STATIC_PRICES });
  const { key, partnerId } = await seedPartner(admin, { name: "soak", rateLimitPerMinute: PARTNER_LIMIT });

  // Short deposits: half the pair minimum (a float deposit below the minimum, a fixed one outside
  // the tolerance) — refunded to the refund address.
  for (const route of ROUTES) {
    const b = route.body;
    const q = await call(
      base,
      "GET",
      `/api/v1/partner/rates?coin_from=${b.coin_from}&network_from=${b.network_from}&coin_to=${b.coin_to}&network_to=${b.network_to}&rate_type=${b.rate_type}`,
      { token: key },
    );
    if (q.status !== 200) throw new Error(`rates for ${route.name}: ${q.status} ${JSON.stringify(q.body)}`);
    route.shortAmount = halfOf(q.body.min_amount, route.decimals);
  }

  // SimChain's own payout faults stay off: payouts go through the gateway, which has its own.
  const faults = { read_fail_rate: FAULT, exchange_fail_rate: FAULT, seed: SEED };
  for (const net of NETWORKS) await admin.put(`/sim/${net}/faults`, faults);
  console.log(`Faults on ${NETWORKS.join(", ")}: ${JSON.stringify(faults)}`);

  // ── creation (and deposits right after) ──
  const rand = prng(SEED);
  const runId = crypto.randomUUID().slice(0, 8);
  const plan = Array.from({ length: N }, (_, i) => {
    const r = rand();
    return {
      i,
      route: ROUTES[i % ROUTES.length],
      kind: r < UNFUNDED ? "unfunded" : r < UNFUNDED + SHORT ? "short" : "exact",
      // Every 50th order is sent twice at once with the same Idempotency-Key.
      duplicate: i % 50 === 7,
    };
  });
  const stats = { rateLimited: 0, attempts: 0, duplicatesSame: 0, duplicatesDiffer: 0, depositErrors: 0 };
  const orders = [];
  const p = progress("created", N);
  console.log(
    `\nCreating ${N} orders (${CONCURRENCY} at a time, partner limit ${PARTNER_LIMIT}/min; 429s are retried after Retry-After)…`,
  );
  await mapPool(plan, CONCURRENCY, async (item) => {
    const idempotencyKey = `soak-${runId}-${item.i}`;
    const once = () =>
      createOrder(base, key, item.route.body, { idempotencyKey, deadline, maxAttempts: 200 });
    const results = await Promise.all(item.duplicate ? [once(), once()] : [once()]);
    for (const r of results) {
      stats.rateLimited += r.rateLimited;
      stats.attempts += r.attempts;
    }
    const order = results[0].order;
    if (item.duplicate) {
      if (results[1].order.id === order.id) stats.duplicatesSame++;
      else stats.duplicatesDiffer++;
    }
    const rec = { ...item, id: order.id, short_id: order.short_id, created: order, funded: false };
    orders.push(rec);
    if (item.kind !== "unfunded") {
      const amount = item.kind === "exact" ? item.route.body.amount_from : item.route.shortAmount;
      try {
        // A long timeout: a deposit that lands after the client gave up would be counted as unsent.
        const r = await call(base, "POST", `/admin/v1/sim/${order.network_from}/transfers`, {
          token: ADMIN_TOKEN,
          timeoutMs: 180_000,
          body: {
            to: order.deposit_address,
            amount,
            coin: item.route.coin,
            ...(order.deposit_address_tag ? { tag: order.deposit_address_tag } : {}),
          },
        });
        if (r.status !== 201) throw new Error(`${r.status} ${JSON.stringify(r.body)}`);
        rec.funded = true;
        rec.depositAmount = amount;
      } catch (err) {
        stats.depositErrors++;
        rec.depositError = String(err);
      }
    }
    p.tick();
  });
  const creationSeconds = p.elapsedSeconds();

  // ── the same state, restarted with payouts through the counting gateway ──
  const restartAt = Date.now();
  let cpuSeconds = runtimeCpuSeconds(worker);
  await worker.stop();
  worker = await startWorker({
    stateDir: args["state-dir"],
    port: PORT,
    inspectorPort: 0,
    fresh: false,
    vars: {
      ...VARS,
      PAYOUT_MODE: "http",
      PAYOUT_GATEWAY_URL: gateway.url,
      PAYOUT_GATEWAY_SECRET: GATEWAY_SECRET,
    },
  });
  const restartSeconds = (Date.now() - restartAt) / 1000;
  console.log(`\nRestarted with PAYOUT_MODE=http in ${restartSeconds.toFixed(0)} s; mining from now on.`);

  // Blocks: one per second on every network from now to the end: the deposits confirm, the orders
  // move on and pay through the gateway.
  const miner = startMiner(admin);

  // ── wait for every order to reach a terminal state (operator view: not rate limited) ──
  console.log(
    `\nWaiting for terminal states (deadline in ${((deadline - Date.now()) / 60000).toFixed(1)} min)…`,
  );
  const state = new Map(orders.map((o) => [o.id, null]));
  let lastPrint = 0;
  for (;;) {
    const pending = orders.filter((o) => !isTerminal(state.get(o.id)));
    await mapPool(pending, 8, async (o) => {
      const r = await call(base, "GET", `/admin/v1/orders/${o.id}`, { token: ADMIN_TOKEN }).catch(() => null);
      if (r?.status === 200) state.set(o.id, r.body);
    });
    const still = orders.filter((o) => !isTerminal(state.get(o.id)));
    if (Date.now() - lastPrint > 10_000 || still.length === 0) {
      lastPrint = Date.now();
      const byStatus = asObject(count([...state.values()], (v) => v?.status ?? "unknown"));
      console.log(`  ${((Date.now() - started) / 1000).toFixed(0)} s: ${JSON.stringify(byStatus)}`);
    }
    if (still.length === 0) break;
    if (Date.now() > deadline) break;
    await sleep(3000);
  }
  const blocks = await miner.stop();
  const timedOut = orders.some((o) => !isTerminal(state.get(o.id)));
  cpuSeconds += runtimeCpuSeconds(worker);
  // SimChain's read counts now, before the verification's own reads (it reads no chain, but a
  // loaded machine can drop a call: retried).
  const providerReads = await simReads(admin);

  // ── verification ──
  console.log("\nVerifying…");
  // 1. The partner's view of every order, by UUID, through the (still limited) partner API.
  const partnerView = new Map();
  let verifyRateLimited = 0;
  await mapPool(orders, 8, async (o) => {
    for (let attempt = 0; attempt < 100; attempt++) {
      const r = await call(base, "GET", `/api/v1/partner/orders/${o.id}`, { token: key }).catch(() => null);
      if (r?.status === 429) {
        verifyRateLimited++;
        await sleep(Number(r.headers.get("retry-after") ?? "1") * 1000);
        continue;
      }
      if (r) partnerView.set(o.id, r);
      return;
    }
  });
  // 2. Payouts and refunds: the gateway's own records, one entry per payment it made.
  const outgoing = new Map();
  const strays = [];
  const ids = new Set(orders.map((o) => o.id));
  for (const [key, payments] of gateway.gw.payments) {
    for (const { txid, body } of payments) {
      const t = { key, txid, ...JSON.parse(body) };
      if (!ids.has(t.orderId)) {
        strays.push(t);
        continue;
      }
      outgoing.set(t.orderId, [...(outgoing.get(t.orderId) ?? []), t]);
    }
  }
  // Nothing may have left through SimChain (the phase before the restart paid nothing).
  const simPayouts = [];
  for (const net of NETWORKS) simPayouts.push(...(await admin.get(`/sim/${net}/outgoing`)).data);
  const catalog = new Map((await admin.get("/currencies")).data.map((c) => [`${c.coin}|${c.network}`, c]));
  // 3. The D1 index (read through wrangler d1 execute; the object is the source of truth).
  let index = readIndex(worker);
  let indexMismatch = compareIndex(orders, state, index);
  if (indexMismatch.length > 0) {
    // A failed projection is retried from the object's alarm 10 s later.
    await sleep(15_000);
    for (const o of orders) {
      const r = await call(base, "GET", `/admin/v1/orders/${o.id}`, { token: ADMIN_TOKEN }).catch(() => null);
      if (r?.status === 200) state.set(o.id, r.body);
    }
    index = readIndex(worker);
    indexMismatch = compareIndex(orders, state, index);
  }

  const problems = [];
  const problem = (o, what) => problems.push({ id: o.id, kind: o.kind, route: o.route.name, what });
  const now = Date.now();
  const depositKeys = new Set();
  for (const o of orders) {
    const view = state.get(o.id);
    const pv = partnerView.get(o.id);
    if (pv?.status !== 200) problem(o, `GET by uuid answered ${pv?.status ?? "nothing"}`);
    if (!view) {
      problem(o, "no operator view");
      continue;
    }
    if (pv?.status === 200 && pv.body.status !== view.status)
      problem(o, `partner view ${pv.body.status} ≠ object ${view.status}`);
    if (!isTerminal(view)) problem(o, `not terminal: ${view.status}`);
    if (view.status === "expired" && Date.parse(view.expires_at) > now)
      problem(o, "expired before its deadline");
    const depKey = `${view.network_from}|${view.deposit_address}|${view.deposit_address_tag ?? ""}`;
    if (depositKeys.has(depKey)) problem(o, `deposit address reused: ${depKey}`);
    depositKeys.add(depKey);
    const out = outgoing.get(o.id) ?? [];
    if (out.length > 1)
      problem(o, `${out.length} payments by the gateway: ${out.map((t) => `${t.key} ${t.txid}`).join(", ")}`);
    const [paid] = out;
    switch (view.status) {
      case "completed": {
        const want = {
          kind: "payout",
          txid: view.payout_txid,
          to: view.recipient_address,
          tag: view.recipient_address_tag,
          amount: view.amount_to_actual,
        };
        const wrong = paymentMismatch(paid, want);
        if (wrong) problem(o, `completed, but the gateway's payment ${wrong}`);
        break;
      }
      case "refunded": {
        const coin = catalog.get(`${view.coin_from}|${view.network_from}`);
        const refund = new Decimal(o.depositAmount ?? "0")
          .sub(coin?.withdraw_fee ?? "0")
          .toDecimalPlaces(coin?.decimals ?? 0, Decimal.ROUND_DOWN);
        const want = {
          kind: "refund",
          txid: view.refund_txid,
          to: view.refund_address,
          tag: view.refund_address_tag,
          amount: refund.toString(),
        };
        const wrong = paymentMismatch(paid, want);
        if (wrong) problem(o, `refunded, but the gateway's payment ${wrong}`);
        break;
      }
      case "failed":
      case "expired":
        if (out.length) problem(o, `${view.status} but ${out.length} payment(s) by the gateway`);
        break;
    }
    if (o.funded && view.status === "expired") problem(o, "paid on time, yet expired (deposit never seen)");
    if (!o.funded && o.kind !== "unfunded") problem(o, `deposit not sent: ${o.depositError}`);
    if (o.kind === "unfunded" && view.status !== "expired") problem(o, `never paid, yet ${view.status}`);
  }
  for (const m of indexMismatch) problems.push({ id: m.id, what: m.what });
  for (const t of strays)
    problems.push({ id: t.orderId, what: `gateway payment for an unknown order: ${t.key}` });
  for (const key of gateway.gw.paidTwice())
    problems.push({ what: `key paid more than once by the gateway: ${key}` });
  for (const key of gateway.gw.resentWithoutLookup())
    problems.push({ what: `key re-sent without a lookup since its previous send: ${key}` });
  for (const t of simPayouts)
    problems.push({ id: t.order_id, what: `paid through SimChain, not the gateway: ${t.txid}` });
  if (stats.duplicatesDiffer)
    problems.push({ what: `${stats.duplicatesDiffer} idempotent duplicates got two ids` });
  if (index.length !== orders.length)
    problems.push({ what: `index has ${index.length} rows for ${orders.length} orders` });

  // Counts.
  const views = orders.map((o) => ({ o, v: state.get(o.id) }));
  const byOutcome = asObject(
    count(
      views,
      ({ o, v }) => `${o.kind} → ${v?.status ?? "?"}${v?.status_reason ? ` (${v.status_reason})` : ""}`,
    ),
  );
  const eventCounts = asObject(
    count(
      views.flatMap(({ v }) =>
        (v?.events ?? []).filter((e) => /attempt failed|lookup failed/.test(e.reason)),
      ),
      (e) => e.reason,
    ),
  );
  // ── whether the ETAs held: a completed order's deposit-seen → payout-sent time against the p90 it
  // was quoted (docs/orders.md, "How long it takes") ──
  const timed = views
    .map(({ v }) => v)
    .filter((v) => v?.status === "completed" && v.eta_seconds && v.payout_seconds !== null);
  const withinP90 = timed.filter(
    (v) => v.deposit_confirmation_seconds + v.payout_seconds <= v.eta_seconds.p90,
  ).length;
  const etaShare = timed.length ? withinP90 / timed.length : null;
  if (etaShare !== null && timed.length >= 10 && etaShare < MIN_ETA_SHARE)
    problems.push({
      what: `${(etaShare * 100).toFixed(1)} % of completed orders within their quoted p90 (target ≥ ${MIN_ETA_SHARE * 100} %)`,
    });
  // ── what the orders cost ──
  if (args.retention) {
    // A terminal order compacts at its own alarm, due at expires_at at the latest (the watch is 0 h).
    const lastDue = Math.max(...[...state.values()].map((v) => Date.parse(v.expires_at)));
    const wait = lastDue + 15_000 - Date.now();
    if (wait > 0) {
      console.log(`\nWaiting ${Math.ceil(wait / 1000)} s for the last orders' retention alarms…`);
      await new Promise((r) => setTimeout(r, wait));
    }
  }
  const cost = costOfOrders(orders, state, providerReads, gateway.gw, worker, cpuSeconds);
  const faultsInLog = injectedFaults(worker.logPath);
  const steady = STEADY_ORDERS > 0 ? await steadyWindow(key) : null;
  if (steady && steady.perOrderMinute > MAX_PROVIDER_PER_ORDER_MINUTE)
    problems.push({
      what: `${steady.perOrderMinute.toFixed(3)} provider requests per open order per minute on ${steady.gated} in the steady window (target ≤ ${MAX_PROVIDER_PER_ORDER_MINUTE})`,
    });
  if (steady?.closedEarly)
    problems.push({
      what: `${steady.closedEarly} steady-window order(s) left the deposit wait before the window ended`,
    });
  const seconds = (Date.now() - started) / 1000;
  const summary = {
    orders: orders.length,
    requested: N,
    creation_seconds: Math.round(creationSeconds),
    restart_seconds: Math.round(restartSeconds),
    creation_rate_limited_429: stats.rateLimited,
    creation_requests: stats.attempts,
    idempotent_duplicates: { same_order: stats.duplicatesSame, different: stats.duplicatesDiffer },
    funded: orders.filter((o) => o.funded).length,
    by_status: asObject(count(views, ({ v }) => v?.status ?? "unknown")),
    by_plan_and_outcome: byOutcome,
    retries_in_event_logs: eventCounts,
    payouts: [...outgoing.values()].flat().filter((t) => t.kind === "payout").length,
    refunds: [...outgoing.values()].flat().filter((t) => t.kind === "refund").length,
    gateway: {
      sends: gateway.gw.ops.filter((x) => x.op === "send").length,
      lookups: gateway.gw.ops.filter((x) => x.op === "lookup").length,
      keys_paid: gateway.gw.payments.size,
      faults_served: asObject(gateway.gw.faultsServed),
      keys_paid_twice: gateway.gw.paidTwice().length,
      keys_resent_without_lookup: gateway.gw.resentWithoutLookup().length,
    },
    orders_paid_twice: [...outgoing.values()].filter((l) => l.length > 1).length,
    simchain_payouts: simPayouts.length,
    index_rows: index.length,
    index_mismatches: indexMismatch.length,
    verification_rate_limited_429: verifyRateLimited,
    faults_seen_in_worker_log: faultsInLog,
    blocks_mined: blocks,
    provider_requests: providerReads,
    open_order_minutes: Number(cost.openOrderMinutes.toFixed(1)),
    // Not gated: each order's fixed reads (first listing, re-listing once mined, reorg checks) over
    // its ~2 minutes of life dominate; the steady window below measures what grows with open orders.
    provider_requests_per_open_order_per_minute_with_fixed_reads: Number(
      cost.providerPerOrderMinute.toFixed(3),
    ),
    steady_window: steady && {
      open_orders: steady.open,
      by_network: steady.byNetwork,
      minutes: Number(steady.minutes.toFixed(2)),
      provider_requests: steady.reads,
      per_open_order_per_minute_all_networks: Number(steady.allNetworks.toFixed(3)),
      gated_network: steady.gated,
      provider_requests_per_open_order_per_minute: steady.perOrderMinute,
    },
    eta: { completed_orders: timed.length, within_quoted_p90: withinP90, share: etaShare },
    cost_per_order: cost.table,
    cpu_ms_per_order: Number(cost.cpuMsPerOrder.toFixed(1)),
    timed_out: timedOut,
    seconds: Math.round(seconds),
    problems: problems.length,
  };
  console.log(`\n${JSON.stringify(summary, null, 2)}`);
  printCost(cost);
  if (steady)
    console.log(
      `  provider requests per open order per minute, steady window: ${steady.perOrderMinute.toFixed(3)} on ${steady.gated} (${steady.byNetwork[steady.gated].requests} requests, ${steady.byNetwork[steady.gated].orders} orders waiting for a deposit, ${steady.minutes.toFixed(2)} min; target ≤ ${MAX_PROVIDER_PER_ORDER_MINUTE}); ${steady.allNetworks.toFixed(3)} over all ${steady.open} on ${Object.keys(steady.byNetwork).length} networks`,
    );
  if (problems.length) {
    console.log(`\nProblems (first 20 of ${problems.length}):`);
    for (const x of problems.slice(0, 20)) console.log(`  ${JSON.stringify(x)}`);
  }
  const ok = problems.length === 0 && !timedOut;
  console.log(
    ok
      ? `\nSOAK PASSED: ${orders.length} orders, all terminal, every invariant holds (${summary.seconds} s).`
      : `\nSOAK FAILED${timedOut ? ` (not all terminal after ${args["max-minutes"]} min)` : ""}: ${problems.length} problem(s).`,
  );
  mkdirSync(join(ROOT, "bench/results"), { recursive: true });
  writeFileSync(
    join(ROOT, "bench/results/soak.json"),
    `${JSON.stringify(
      {
        kind: "soak",
        at: new Date().toISOString(),
        settings: {
          orders: N,
          concurrency: CONCURRENCY,
          unfunded: UNFUNDED,
          short: SHORT,
          faults,
          gateway_faults: gatewayFaults,
          partner_limit: PARTNER_LIMIT,
          vars: { ...VARS, ADMIN_TOKEN: "(random)" },
          steady_orders: STEADY_ORDERS,
          steady_minutes: STEADY_MS / 60_000,
        },
        partner_id: partnerId,
        summary,
        problems,
      },
      null,
      2,
    )}\n`,
  );
  console.log("Written: bench/results/soak.json");
  return ok;
}

/** One block a second on every network until `stop()`, which answers the blocks mined. */
function startMiner(admin) {
  let mining = true;
  let blocks = 0;
  const loop = (async () => {
    while (mining) {
      await Promise.all(
        NETWORKS.map((net) =>
          admin
            .post(`/sim/${net}/blocks`, { count: 1 })
            .then(() => blocks++)
            .catch(() => {}),
        ),
      );
      await sleep(1000);
    }
  })();
  return {
    stop: async () => {
      mining = false;
      await loop;
      return blocks;
    },
  };
}

/** SimChain's read counts per network (a loaded machine can drop a call: retried). */
async function simReads(admin) {
  const reads = {};
  for (const net of NETWORKS) {
    for (let attempt = 1; reads[net] === undefined; attempt++) {
      try {
        reads[net] = (await admin.get(`/sim/${net}`)).reads;
      } catch (err) {
        if (attempt >= 5) throw err;
        await sleep(2000);
      }
    }
  }
  return reads;
}

/**
 * The steady state issue 32 gates: what the provider sees per open order per minute once the orders
 * are only waiting, i.e. what grows with open orders rather than with orders made. After the soak's
 * orders are terminal (they read nothing more), the Worker restarts on the same state with simulated
 * payouts (creation needs them, see main) and an expiry that outlasts the window; a cohort of orders
 * is created and never funded; blocks are mined throughout, as a live chain moves. SimChain's reads
 * are counted over the window, which opens STEADY_WARMUP_MS after the last creation.
 */
async function steadyWindow(key) {
  await worker.stop();
  worker = await startWorker({
    stateDir: args["state-dir"],
    port: PORT,
    inspectorPort: 0,
    fresh: false,
    vars: {
      ...VARS,
      PAYOUT_MODE: "simulated",
      ORDER_EXPIRY_SECONDS: String(Math.ceil((STEADY_WARMUP_MS + STEADY_MS) / 1000) + 600),
    },
  });
  const base = worker.baseUrl;
  const admin = adminClient(base, ADMIN_TOKEN);
  const cohort = Array.from({ length: STEADY_ORDERS }, (_, i) =>
    i < (STEADY_ORDERS * 3) / 4 ? ROUTES[0] : ROUTES[i % ROUTES.length],
  );
  console.log(`
Steady window: ${STEADY_ORDERS} orders left waiting for a deposit…`);
  const miner = startMiner(admin);
  const runId = crypto.randomUUID().slice(0, 8);
  const deadline = Date.now() + 10 * 60_000;
  const ids = [];
  await mapPool(cohort, CONCURRENCY, async (route, i) => {
    const { order } = await createOrder(base, key, route.body, {
      idempotencyKey: `soak-steady-${runId}-${i}`,
      deadline,
      maxAttempts: 200,
    });
    ids.push(order.id);
  });
  await sleep(STEADY_WARMUP_MS);
  const before = await simReads(admin);
  const from = Date.now();
  await sleep(STEADY_MS);
  const after = await simReads(admin);
  const minutes = (Date.now() - from) / 60_000;
  await miner.stop();
  let waiting = 0;
  await mapPool(ids, 8, async (id) => {
    const r = await call(base, "GET", `/admin/v1/orders/${id}`, { token: ADMIN_TOKEN }).catch(() => null);
    if (r?.status === 200 && r.body.status === "waiting_deposit") waiting++;
  });
  const reads = NETWORKS.reduce((a, net) => a + after[net] - before[net], 0);
  const perNetwork = count(cohort, (r) => r.body.network_from);
  const byNetwork = Object.fromEntries(
    [...perNetwork].map(([net, n]) => {
      const requests = after[net] - before[net];
      return [net, { orders: n, requests, per_order_minute: Number((requests / (n * minutes)).toFixed(3)) }];
    }),
  );
  // Gated: the network with the most orders. A network's tip is read at most 4 times a minute
  // (CHAIN_TIP_SECONDS=15) while any of its orders polls, whatever their number: that constant
  // shows on the networks with a handful of orders; what grows with open orders shows on the big one.
  const [gated] = [...perNetwork].sort((a, b) => b[1] - a[1])[0];
  return {
    open: ids.length,
    closedEarly: ids.length - waiting,
    byNetwork,
    gated,
    minutes,
    reads,
    allNetworks: reads / (ids.length * minutes),
    perOrderMinute: byNetwork[gated].per_order_minute,
  };
}

function isTerminal(view) {
  if (!view) return false;
  if (view.status === "expired") return Date.parse(view.expires_at) <= Date.now();
  return TERMINAL.has(view.status);
}

/** Injected faults as the Worker logged them (chain reads fail outside any event log). */
function injectedFaults(logPath) {
  const log = readFileSync(logPath, "utf8");
  const n = (re) => (log.match(re) ?? []).length;
  return {
    chain_read_outages: n(/Uncaught Error: simulated chain provider outage/g),
    lifecycle_steps_failed_and_rearmed: n(/lifecycle step failed/g),
  };
}

/** What is wrong with an order's one gateway payment, or null when it is exactly `want`. */
function paymentMismatch(paid, want) {
  if (!paid) return "is missing";
  const same = (a, b) => (typeof b === "number" ? Number(a) === b : new Decimal(a).eq(b));
  const wrong = [
    paid.kind !== want.kind && `is a ${paid.kind}`,
    paid.txid !== want.txid && `has txid ${paid.txid}, the order ${want.txid}`,
    paid.to !== want.to && `goes to ${paid.to}, not ${want.to}`,
    (paid.tag ?? null) !== (want.tag ?? null) && `has tag ${paid.tag}, not ${want.tag}`,
    !same(paid.amount, want.amount) && `is ${paid.amount}, not ${want.amount}`,
  ].filter(Boolean);
  return wrong.length ? wrong.join("; ") : null;
}

function readIndex(w) {
  return w.d1({ command: "SELECT id, status FROM orders" })[0].results;
}

function compareIndex(orders, state, index) {
  const byId = new Map(index.map((r) => [r.id, r.status]));
  const out = [];
  for (const o of orders) {
    const v = state.get(o.id);
    const s = byId.get(o.id);
    if (s === undefined) out.push({ id: o.id, what: "missing from the D1 index" });
    else if (v && s !== v.status) out.push({ id: o.id, what: `index says ${s}, object says ${v.status}` });
  }
  return out;
}

/**
 * CPU seconds the Worker's runtime has used so far: the inner workerd that runs the Worker, its
 * objects and the local D1 (not wrangler's proxy), as the bench measures it.
 */
function runtimeCpuSeconds(w) {
  const pid = findRuntimePid(w.pid);
  return pid === null ? 0 : (cpuTimeMs(pid) ?? 0) / 1000;
}

/** Each order object's `_meter` rows (ORDER_METER), read from the local state with the sqlite3 CLI. */
function readMeters(w) {
  const dir = join(w.stateDir, "persist/v3/do/swap-partner-api-OrderObject");
  const meters = new Map();
  if (!existsSync(dir)) return meters;
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".sqlite"))) {
    let out = "";
    try {
      out = execFileSync("sqlite3", ["-readonly", join(dir, file), "SELECT k, n FROM _meter"], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      });
    } catch {
      continue; // no _meter table (not an order), or no sqlite3 CLI
    }
    const row = Object.fromEntries(
      out
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split("|")),
    );
    const id = Object.keys(row)
      .find((k) => k.startsWith("order:"))
      ?.slice(6);
    if (id) meters.set(id, { ...row, storage_bytes: storageBytes(join(dir, file)) });
  }
  return meters;
}

/**
 * The bytes an object's SQLite pages hold (its tables, indexes and key-value rows; not free pages),
 * less the soak's own `_meter` table: what Cloudflare would store for it. 0 without dbstat.
 */
function storageBytes(file) {
  try {
    return Number(
      execFileSync(
        "sqlite3",
        [
          "-readonly",
          file,
          "SELECT SUM(pgsize) FROM dbstat WHERE name NOT IN ('_meter', 'sqlite_autoindex__meter_1')",
        ],
        { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] },
      ).trim(),
    );
  } catch {
    return 0;
  }
}

/**
 * Per order, by outcome: the order object's own counts (alarms, storage and D1 rows written, chain
 * reads it asked, venue calls), its gateway calls (from the gateway's records) and its share of the
 * shared provider requests and of the Worker's CPU; provider requests per open order per minute.
 */
function costOfOrders(orders, state, providerReads, gw, w, cpuSeconds) {
  const meters = readMeters(w);
  const orderOfSend = new Map();
  for (const op of gw.ops)
    if (op.op === "send" && op.body) orderOfSend.set(op.key, JSON.parse(op.body).orderId);
  const gatewayCalls = count(gw.ops, (op) => orderOfSend.get(op.key) ?? "?");
  let openMs = 0;
  for (const o of orders) {
    const v = state.get(o.id);
    if (!v) continue;
    const end =
      v.status === "expired" ? Date.parse(v.expires_at) : Date.parse(v.events?.at(-1)?.at ?? v.updated_at);
    openMs += Math.max(0, end - Date.parse(v.created_at));
  }
  const provider = Object.values(providerReads).reduce((a, b) => a + b, 0);
  const openOrderMinutes = openMs / 60_000;
  const chainAsked = [...meters.values()].reduce((a, m) => a + Number(m.chain_reads ?? 0), 0);
  const rows = new Map();
  for (const o of orders) {
    const status = state.get(o.id)?.status ?? "unknown";
    const m = meters.get(o.id) ?? {};
    const r = rows.get(status) ?? { orders: 0, metered: 0, sums: {} };
    r.orders++;
    if (meters.has(o.id)) r.metered++;
    const add = (k, n) => {
      r.sums[k] = (r.sums[k] ?? 0) + n;
    };
    add("alarms", Number(m.alarms ?? 0));
    add("chain_reads_asked", Number(m.chain_reads ?? 0));
    // The shared provider requests, apportioned by the reads each order asked of its ChainWatch.
    add("provider_requests", chainAsked ? (provider * Number(m.chain_reads ?? 0)) / chainAsked : 0);
    add("venue_calls", Number(m.venue_calls ?? 0));
    add("gateway_calls", gatewayCalls.get(o.id) ?? 0);
    add("d1_rows_written", Number(m.d1_rows_written ?? 0));
    add("storage_rows_written", Number(m.storage_rows_written ?? 0));
    add("storage_bytes", Number(m.storage_bytes ?? 0));
    rows.set(status, r);
  }
  const table = {};
  for (const [status, r] of rows)
    table[status] = {
      orders: r.orders,
      metered: r.metered,
      ...Object.fromEntries(Object.entries(r.sums).map(([k, v]) => [k, Number((v / r.orders).toFixed(2))])),
    };
  return {
    table,
    openOrderMinutes,
    providerPerOrderMinute: openOrderMinutes ? provider / openOrderMinutes : 0,
    provider,
    cpuMsPerOrder: (cpuSeconds * 1000) / orders.length,
  };
}

function printCost(cost) {
  const cols = [
    "alarms",
    "provider_requests",
    "chain_reads_asked",
    "venue_calls",
    "gateway_calls",
    "d1_rows_written",
    "storage_rows_written",
    "storage_bytes",
  ];
  console.log(
    `\nCost per order (means; counted by the order objects, the gateway and SimChain; storage_bytes ${args.retention ? "after retention" : "before retention (--retention: after)"}):`,
  );
  console.log(`  ${["outcome", "orders", ...cols].map((c) => c.padStart(14)).join(" ")}`);
  for (const [status, r] of Object.entries(cost.table))
    console.log(
      `  ${[status, r.orders, ...cols.map((c) => r[c])].map((c) => String(c).padStart(14)).join(" ")}`,
    );
  console.log(
    `  Worker + objects CPU: ${cost.cpuMsPerOrder.toFixed(1)} ms per order (the Worker's workerd over the whole soak: its status polling and the deposits' admin calls included, so an upper bound)`,
  );
  console.log(
    `  provider requests per open order per minute, whole run with each order's fixed reads: ${cost.providerPerOrderMinute.toFixed(3)} (${cost.provider} requests over ${cost.openOrderMinutes.toFixed(1)} open order-minutes; not gated)`,
  );
}

/**
 * `--evm-orders`: §4 of issue 43 with the real EVM reader. The Worker starts with every network on
 * SimChain to learn the EVM networks (a `caip2` in `eip155`) and their catalog rows, then again on
 * the same state with each EVM network read by the EVM reader from the fake node, production's
 * chain reads (15 s polls, the 5 s tip, shared reads) and an expiry that
 * outlasts the window. EVM_ORDERS orders per network, round-robin over its rows, are created and
 * never funded; the node's requests and JSON-RPC calls per network are counted over the window,
 * which opens STEADY_WARMUP_MS after the last creation.
 */
async function evmWindow() {
  const stateDir = args["state-dir"];
  worker = await startWorker({ stateDir, port: PORT, inspectorPort: 0, vars: { ADMIN_TOKEN } });
  const rows = (await call(worker.baseUrl, "GET", "/api/v1/currencies")).body.filter(
    (c) => c.caip2?.startsWith("eip155:") && c.is_deposit_enabled,
  );
  const networks = [...new Set(rows.map((c) => c.network))];
  await worker.stop();
  const node = await startEvmNode({ port: GATEWAY_PORT, networks });
  gateway = node; // stopped as the gateway is, at the end and on a signal
  const chainVars = Object.fromEntries(networks.map((n) => [`CHAIN_URL_${n}`, node.url(n)]));
  worker = await startWorker({
    stateDir,
    port: PORT,
    inspectorPort: 0,
    fresh: false,
    vars: {
      ADMIN_TOKEN,
      PRICE_SOURCE: "static",
      PRICE_MAX_AGE_SECONDS: "86400",
      ORDER_EXPIRY_SECONDS: String(Math.ceil((STEADY_WARMUP_MS + STEADY_MS) / 1000) + 1800),
      CHAIN_MODE: `${networks.map((n) => `${n}:evm`).join(",")},*:simulated`,
      ...chainVars,
      // Production's chain reads, not dev's (wrangler.toml: shared reads off, 2 s polls).
      CHAIN_SHARED_READS: "providers",
      CHAIN_POLL_SECONDS: "15",
      // Real deposits need real payouts and venue, and a deposit key of the operator's own
      // (docs/operators.md, "Guard rails"): nothing is ever paid, so neither is called for an order.
      PAYOUT_MODE: "http",
      PAYOUT_GATEWAY_URL: node.url("gateway"),
      PAYOUT_GATEWAY_SECRET: GATEWAY_SECRET,
      EXCHANGE_MODE: "binance",
      EXCHANGE_URL: node.url("venue"),
      EXCHANGE_API_KEY: "soak",
      EXCHANGE_API_SECRET: "soak",
      CABINET_ORIGIN: "https://soak.example",
      DEPOSIT_XPUB_EVM: HDKey.fromMasterSeed(crypto.getRandomValues(new Uint8Array(32))).derive(
        "m/44'/60'/0'",
      ).publicExtendedKey,
    },
  });
  const base = worker.baseUrl;
  console.log(`wrangler dev on ${base}; fake EVM node for ${networks.join(", ")} on port ${GATEWAY_PORT}`);
  const admin = adminClient(base, ADMIN_TOKEN);
  await admin.put("/prices", { prices: STATIC_PRICES });
  const { key } = await seedPartner(admin, { name: "soak-evm", rateLimitPerMinute: 1_000_000 });
  const bodies = [];
  for (const network of networks) {
    const own = rows.filter((c) => c.network === network);
    for (const c of own) {
      const q = `coin_from=${c.coin}&network_from=${network}&coin_to=USDT&network_to=TRX`;
      const r = await call(base, "GET", `/api/v1/partner/rates?${q}`, { token: key });
      if (r.status !== 200) throw new Error(`rates ${q}: ${r.status} ${JSON.stringify(r.body)}`);
      c.amount = String(r.body.min_amount * 2);
    }
    for (let i = 0; i < EVM_ORDERS; i++) {
      const c = own[i % own.length];
      bodies.push({
        coin_from: c.coin,
        network_from: network,
        coin_to: "USDT",
        network_to: "TRX",
        amount_from: c.amount,
        rate_type: "float",
        recipient_address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
        refund_address: "0xde0B295669a9FD93d5F28D9Ec85E40f4cb697BAe",
      });
    }
  }
  console.log(
    `\nCreating ${bodies.length} orders (${EVM_ORDERS} per EVM network), left waiting for a deposit…`,
  );
  const runId = crypto.randomUUID().slice(0, 8);
  const p = progress("created", bodies.length);
  await mapPool(bodies, CONCURRENCY, async (body, i) => {
    await createOrder(base, key, body, {
      idempotencyKey: `soak-evm-${runId}-${i}`,
      deadline: Date.now() + MAX_MS,
      maxAttempts: 200,
    });
    p.tick();
  });
  await sleep(STEADY_WARMUP_MS);
  const before = node.counts();
  const from = Date.now();
  await sleep(STEADY_MS);
  const after = node.counts();
  const minutes = (Date.now() - from) / 60_000;
  const byNetwork = Object.fromEntries(
    networks.map((n) => {
      const requests = after[n].requests - before[n].requests;
      const calls = after[n].calls - before[n].calls;
      const per = (x, orders) => Number((x / (orders * minutes)).toFixed(4));
      const methods = Object.fromEntries(
        Object.entries(after[n].methods).map(([m, c]) => [m, c - (before[n].methods[m] ?? 0)]),
      );
      return [
        n,
        {
          rows: rows.filter((c) => c.network === n).map((c) => c.coin),
          requests,
          json_rpc_calls: calls,
          methods,
          addresses_per_get_logs: methods.eth_getLogs
            ? Number(((after[n].logAddresses - before[n].logAddresses) / methods.eth_getLogs).toFixed(1))
            : null,
          requests_per_open_order_per_minute: per(requests, EVM_ORDERS),
          calls_per_open_order_per_minute: per(calls, EVM_ORDERS),
        },
      ];
    }),
  );
  console.log(
    JSON.stringify(
      { orders_per_network: EVM_ORDERS, minutes: Number(minutes.toFixed(2)), by_network: byNetwork },
      null,
      2,
    ),
  );
  const over = networks.filter(
    (n) => byNetwork[n].requests_per_open_order_per_minute > MAX_PROVIDER_PER_ORDER_MINUTE,
  );
  for (const n of over)
    console.log(
      `FAIL ${n}: ${byNetwork[n].requests_per_open_order_per_minute} provider requests per open order per minute (target ≤ ${MAX_PROVIDER_PER_ORDER_MINUTE})`,
    );
  return over.length === 0;
}

let code = 1;
try {
  const run = args.streams ? streamTarget : EVM_ORDERS > 0 ? evmWindow : main;
  code = (await run()) ? 0 : 1;
} catch (err) {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  if (worker) console.error(`wrangler log: ${worker.logPath}`);
} finally {
  await gateway?.stop();
  if (worker && args.keep) console.log(`wrangler dev left running on ${worker.baseUrl}, pid ${worker.pid}`);
  else await worker?.stop();
}
process.exit(code);
