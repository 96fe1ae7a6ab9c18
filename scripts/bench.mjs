// `npm run bench`: HTTP benchmarks of the Worker running locally in workerd (`wrangler dev`).
//
//   npm run bench                      the endpoint table, each row against its reference (≈ 19 min)
//                                      → bench/results/latest.json
//   npm run bench -- --scale           read latency with 1,000 and 50,000 orders in the index
//                                      (API reads, the cabinet's orders page and search, and the
//                                      full CSV export; ≈ 15–20 min) → bench/results/scale.json
//   npm run bench -- --widget-size     only the embeddable widget's size: its scripts and CSS as
//                                      served, gzipped (docs/widget.md; target ≤ 60 KB)
//   npm run bench -- --help            options
//
// Every row is measured against its reference in alternating one-second windows over the same
// connections (scripts/lib/paired.mjs), so both meet the machine at the same moments. The
// reference of the cheap routes is GET /api/v1/_bench/baseline (src/http/routes/bench.ts, enabled
// by BENCH_ROUTES=true), a constant JSON body of the same size as /currencies with no Durable
// Object and no D1 on its path; GET /api/v1/_bench/limited, the same body behind the per-IP
// limiter, is a row without a target. Order reads and order creation are compared with what the
// runtime itself makes possible: a call to an existing Durable Object behind the key's check, the
// partner's limiter and the request log (`object-call-keyed`), and a fresh object that writes one
// row, arms an alarm and derives a deposit address (`object-floor-address`); the request log with
// the same read with the log off. `--strict` fails on a missed target (the ratios, CPU per
// creation, p99, the request log's cost, listing lag). See docs/performance.md, "The table".
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import {
  adminClient,
  call,
  createOrder,
  mapPool,
  ORDER_BODY,
  progress,
  STATIC_PRICES,
  seedPartner,
} from "./lib/api.mjs";
import { runLoad, warmUp } from "./lib/load.mjs";
import {
  compareBySpan,
  FREQUENCY,
  perfAvailable,
  samplesBySpan,
  startNativeProfile,
} from "./lib/native-profile.mjs";
import { runPaired } from "./lib/paired.mjs";
import { selfTimes, startProfile, writeProfile } from "./lib/profile.mjs";
import {
  cpuTimeMs,
  findRuntimePid,
  findRuntimeUrl,
  ROOT,
  startWorker,
  stopOnSignals,
} from "./lib/worker.mjs";

const HELP = `Usage: npm run bench -- [options]

  --connections <n>      concurrent connections per measurement (default 20)
  --windows <n>          the table: windows of each kind, a row's and its reference's, sent
                         alternately over the same connections (default 30)
  --window-ms <ms>       the table: length of a window; its first 200 ms are not counted
                         (default 1000)
  --duration <s>         seconds per measurement of --scale and of --profile (default 10)
  --warmup <s>           unmeasured seconds before each measurement (default 2)
  --only <ids>           comma-separated endpoint ids (see the table's id column)
  --port <n>             port of the private wrangler dev (default 8790)
  --state-dir <dir>      its state, wiped at start (default ${join(tmpdir(), "bench-state")})
  --strict               exit 1 when a target is missed
  --via-proxy            load wrangler dev's own port (its proxy worker in front) instead of the
                         runtime that runs the Worker (default: the runtime; see docs)
  --local-observability  keep Miniflare's local trace store on (off by default; see docs)
  --keep                 leave wrangler dev running at the end (prints its URL and pid)
  --profile <dir>        record a CPU profile of the Worker runtime during each endpoint's
                         20-connection run (<dir>/<id>.cpuprofile) and print its top self times
  --perf <dir>           a native profile (Linux perf) of the runtime during each row's paired
                         windows (<dir>/<id>.perf.data): its CPU per request by what it does
                         (SQLite, a new object, HTTP, RPC, GC, JavaScript …), the row beside its
                         reference in the same windows (needs perf, run as root)

  --widget-size          instead of the table: the widget's scripts and CSS, gzipped (≤ 60 KB)
  --scale                instead of the table: read latency with 1,000 and 50,000 orders
  --scale-sizes <a,b>    index sizes (default 1000,50000)
  --scale-direct         insert the orders beyond the first size straight into the D1 index
                         (wrangler d1 execute) instead of creating them through the API
  --scale-max-minutes <m>  cap on API creation; the rest is inserted directly (default 20)
  --scale-rounds <n>     interleaved measuring rounds per size; each endpoint keeps its median
                         round by req/s (default 5)
`;

const { values: args } = parseArgs({
  options: {
    connections: { type: "string", default: "20" },
    duration: { type: "string", default: "10" },
    warmup: { type: "string", default: "2" },
    windows: { type: "string", default: "30" },
    "window-ms": { type: "string", default: "1000" },
    only: { type: "string" },
    port: { type: "string", default: "8790" },
    "state-dir": { type: "string", default: join(tmpdir(), "bench-state") },
    strict: { type: "boolean", default: false },
    "local-observability": { type: "boolean", default: false },
    "via-proxy": { type: "boolean", default: false },
    keep: { type: "boolean", default: false },
    profile: { type: "string" },
    perf: { type: "string" },
    scale: { type: "boolean", default: false },
    "widget-size": { type: "boolean", default: false },
    "scale-sizes": { type: "string", default: "1000,50000" },
    "scale-direct": { type: "boolean", default: false },
    "scale-max-minutes": { type: "string", default: "20" },
    "scale-rounds": { type: "string", default: "5" },
    help: { type: "boolean", short: "h", default: false },
  },
});
if (args.help) {
  console.log(HELP);
  process.exit(0);
}

const int = (name, min = 1) => {
  const n = Number(args[name]);
  if (!Number.isInteger(n) || n < min) {
    console.error(`--${name} must be a whole number ≥ ${min}`);
    process.exit(2);
  }
  return n;
};
if (args.perf) {
  if (!perfAvailable()) {
    console.error("--perf needs Linux perf on the PATH (Debian: apt-get install linux-perf), run as root");
    process.exit(2);
  }
  mkdirSync(args.perf, { recursive: true });
}
const CONNECTIONS = int("connections");
/** --scale: one cron run's p50 at the large size may be at most this multiple of its p50 at the small. */
const SWEEP_MAX_RATIO = 1.5;
const DURATION = int("duration");
const WARMUP = int("warmup", 0);
const PORT = int("port");
const ROUNDS = int("scale-rounds");
const WINDOWS = int("windows");
/** Not counted at a window's start: what the other kind's answers leave behind settles there. */
const GUARD_MS = 200;
const WINDOW_MS = int("window-ms", GUARD_MS + 100);
// p99 at CONNECTIONS within this factor of its reference row's (the baseline's, or for creation the
// new-object floor's), and a creation's runtime CPU within this factor of the floor's.
const P99_FACTOR = 1.5;
const CPU_FACTOR = 2.0;
// Public and keyed quotes alike: a keyed quote adds the key's check, the partner's limiter and the
// request log (≈ 5 %) to the public one's work.
const RATES_RATIO = 0.8;
const RESULTS_DIR = join(ROOT, "bench/results");

const ADMIN_TOKEN = `bench-${crypto.randomUUID()}`;
const VARS = {
  ADMIN_TOKEN,
  BENCH_ROUTES: "true",
  // Deterministic quotes; prices are set once through PUT /admin/v1/prices and must not go stale
  // during a long --scale run.
  PRICE_SOURCE: "static",
  PRICE_MAX_AGE_SECONDS: "86400",
  // Rate limiting stays on: every limited request still makes its RateLimiter round trip, the
  // limits are just high enough never to refuse one.
  PUBLIC_RATE_LIMIT_PER_MINUTE: "100000000",
  // The orders the bench creates must not poll SimChain in the background while other endpoints
  // are measured (tens of thousands of alarms would swamp two cores): no poll within the hour,
  // no expiry within the day. The lifecycle's own cost is what the soak test measures.
  CHAIN_POLL_SECONDS: "3600",
  ORDER_EXPIRY_SECONDS: "86400",
};

const RATES = "/api/v1/partner/rates?coin_from=BTC&network_from=BTC&coin_to=USDT&network_to=TRX&amount=0.01";

let worker = null;
/** The workerd that runs the Worker, for its CPU time (Linux). */
let runtimePid = null;
stopOnSignals(() => worker);

const fmt = (n, d = 0) => (n === null || n === undefined || Number.isNaN(n) ? "—" : n.toFixed(d));
const pad = (s, n) => String(s).padEnd(n);
const lpad = (s, n) => String(s).padStart(n);

async function seed(base) {
  const admin = adminClient(base, ADMIN_TOKEN);
  await admin.put("/prices", { prices: STATIC_PRICES });
  const { partnerId, key } = await seedPartner(admin, {
    name: "bench",
    rateLimitPerMinute: 1_000_000,
  });
  return { admin, partnerId, key };
}

async function createMany(base, key, n, { concurrency = 32, label = "orders", deadline } = {}) {
  const p = progress(label, n);
  const orders = [];
  await mapPool(Array.from({ length: n }), concurrency, async () => {
    if (deadline && Date.now() > deadline) return;
    const { order } = await createOrder(base, key, ORDER_BODY, { deadline: deadline ?? Infinity });
    orders.push({ id: order.id, short_id: order.short_id });
    p.tick();
  });
  return { orders, seconds: p.elapsedSeconds() };
}

function measureOpts(base, ep) {
  return {
    baseUrl: base,
    path: ep.path,
    paths: ep.paths,
    method: ep.method,
    headers: ep.headers,
    body: ep.body,
    expect: ep.expect,
    connections: CONNECTIONS,
    duration: DURATION,
  };
}

async function measure(base, ep, { connections = CONNECTIONS, duration = DURATION, warmup = WARMUP } = {}) {
  const opts = { ...measureOpts(base, ep), connections, duration };
  await warmUp(opts, warmup);
  const profiling = args.profile && connections === CONNECTIONS;
  const stop = profiling ? await startProfile(PORT + 1) : null;
  const cpuBefore = runtimePid ? cpuTimeMs(runtimePid) : null;
  const r = await runLoad(opts);
  const cpuAfter = runtimePid ? cpuTimeMs(runtimePid) : null;
  // The runtime's CPU time per request: what the load of other processes on the machine changes
  // least (req/s and latency move with it; this moves with the work done per request).
  r.cpuMs =
    cpuBefore !== null && cpuAfter !== null && r.requests > 0 ? (cpuAfter - cpuBefore) / r.requests : null;
  if (stop) reportProfile(ep.id, await stop());
  process.stdout.write(
    `  ${pad(ep.id, 18)} ${lpad(connections, 2)} conn ${lpad(fmt(r.rps), 6)} req/s  p50 ${lpad(fmt(r.p50), 3)} ms  p99 ${lpad(fmt(r.p99), 3)} ms  cpu ${fmt(r.cpuMs, 2)} ms/req` +
      `${r.non2xx || r.errors ? `  non-2xx ${r.non2xx} errors ${r.errors} ${JSON.stringify(r.statusCodes)}` : ""}\n`,
  );
  return r;
}

function reportProfile(id, profile) {
  mkdirSync(args.profile, { recursive: true });
  writeProfile(join(args.profile, `${id}.cpuprofile`), profile);
  for (const { fn, share } of selfTimes(profile, 15))
    console.log(`      ${lpad(fmt(share * 100, 1), 5)} %  ${fn}`);
}

/**
 * The pair's native profile: the row's and its reference's runtime CPU per request by category,
 * from the samples inside each kind's counted spans (the same windows as the ratio).
 */
async function reportNative(row, pair, file) {
  const [a, b] = await samplesBySpan(file, pair.counted);
  const parts = compareBySpan(a, b, pair.a.ok, pair.b.ok);
  const total = (k, answers) => (answers > 0 ? (k.samples * 1000) / FREQUENCY / answers : null);
  console.log(
    `      native, ms per request in the same windows: ${row.id} ${fmt(total(a, pair.a.ok), 3)} vs ${row.ref.id} ${fmt(total(b, pair.b.ok), 3)}`,
  );
  for (const c of parts)
    console.log(
      `      ${pad(c.name, 20)} ${lpad(fmt(c.rowMs, 3), 7)} ${lpad(fmt(c.refMs, 3), 7)} ${lpad(`${c.diffMs >= 0 ? "+" : ""}${fmt(c.diffMs, 3)}`, 7)}` +
        (c.rowParseMs >= 0.0005 ? `  (parsing SQL ${fmt(c.rowParseMs, 3)})` : ""),
    );
  return parts;
}

/** The same endpoint with one connection: its service time, without queueing behind others. */
const SERIAL = { connections: 1, duration: 3, warmup: 0 };

/** Where the load goes: the Worker's runtime directly, unless --via-proxy (or it cannot be found). */
async function loadTarget(w) {
  if (args["via-proxy"]) return { url: w.baseUrl, via: "wrangler dev proxy" };
  const url = await findRuntimeUrl(w.pid);
  if (url) return { url, via: "Worker runtime (wrangler's proxy bypassed)" };
  console.log("  (could not find the Worker runtime's port; measuring through wrangler's proxy)");
  return { url: w.baseUrl, via: "wrangler dev proxy" };
}

function machine() {
  const c = cpus();
  return { cpus: c.length, model: c[0]?.model ?? "?", node: process.version, platform: process.platform };
}

// ── the endpoint table ──────────────────────────────────────────────────────────────────────

async function table() {
  worker = await startWorker({
    stateDir: args["state-dir"],
    port: PORT,
    vars: VARS,
    localObservability: args["local-observability"],
  });
  const target = await loadTarget(worker);
  const base = target.url;
  runtimePid = findRuntimePid(worker.pid);
  console.log(`wrangler dev on ${worker.baseUrl} (pid ${worker.pid}, state ${worker.stateDir})`);
  console.log(`load goes to ${base}: ${target.via}`);
  const { key } = await seed(base);
  const auth = { authorization: `Bearer ${key}` };

  const { orders } = await createMany(base, key, 200, { label: "seed orders" });
  const currencies = await call(base, "GET", "/api/v1/currencies");
  const etag = currencies.headers.get("etag");
  if (!etag) throw new Error("GET /currencies sent no ETag");
  const bodyBytes = Buffer.byteLength(JSON.stringify(currencies.body));
  // No Durable Object and no D1 on its path: what the platform does for a response this size.
  const baseline = {
    id: "baseline",
    label: `baseline (constant ${bodyBytes} B JSON, no limiter)`,
    path: `/api/v1/_bench/baseline?bytes=${bodyBytes}`,
  };
  const check = await call(base, "GET", baseline.path);
  if (check.status !== 200) throw new Error(`baseline route answered ${check.status}`);
  // Each floor answers as many bytes as the route it floors, as the baseline does /currencies'.
  const created = await createOrder(base, key, ORDER_BODY);
  const createdBytes = Buffer.byteLength(JSON.stringify(created.order));
  const read = await call(base, "GET", `/api/v1/partner/orders/${orders[0].id}`, { token: key });
  const readBytes = Buffer.byteLength(JSON.stringify(read.body));
  // The floor of a creation here: a fresh Durable Object that writes one row, arms an alarm and
  // derives one BTC deposit address (no auth, pricing, allocation or projection). The address is
  // JavaScript every creation must run (two BigInt base-point multiplications), so it belongs in
  // the floor (docs/performance.md, "The table").
  const addressFloor = {
    id: "object-floor-address",
    label: `new object + 1 row + alarm + a BTC deposit address, ${createdBytes} B`,
    path: `/api/v1/_bench/new-object?bytes=${createdBytes}&address=btc`,
    method: "POST",
  };
  const uuidReads = { paths: orders.map((o) => `/api/v1/partner/orders/${o.id}`), headers: auth };
  // The floor of an order read here: a call to an object that already exists and answers a kept
  // text, behind the key's check, the partner's limiter and the request log that every keyed route
  // has (as many objects as seeded orders, each called once before the row).
  const keyedCall = {
    id: "object-call-keyed",
    label: `call to an existing object behind key, limiter and request log, ${readBytes} B`,
    paths: orders.map((_, i) => `/api/v1/_bench/keyed-object/o${i}?bytes=${readBytes}`),
    headers: auth,
  };

  // Each row is measured against its reference in alternating windows (scripts/lib/paired.mjs).
  const rows = [
    // No target: the baseline against itself, the method's own spread in this run (a ratio
    // away from 1.00 here is the machine, not the code).
    {
      id: "control",
      label: "baseline against itself (control)",
      ref: baseline,
      target: null,
      path: baseline.path,
    },
    // No target: the same constant behind the per-IP limiter, i.e. what rate limiting costs.
    {
      id: "baseline-limited",
      label: "constant JSON + per-IP limiter",
      ref: baseline,
      target: null,
      path: `/api/v1/_bench/limited?bytes=${bodyBytes}`,
    },
    { id: "currencies", label: "GET /currencies", ref: baseline, target: 0.9, path: "/api/v1/currencies" },
    {
      id: "currencies-304",
      label: "GET /currencies, If-None-Match → 304",
      ref: baseline,
      target: 0.95,
      path: "/api/v1/currencies",
      headers: { "if-none-match": etag },
      expect: 304,
    },
    {
      id: "rates-float",
      label: "GET /partner/rates float, public",
      ref: baseline,
      target: RATES_RATIO,
      path: RATES,
    },
    {
      id: "rates-float-key",
      label: "GET /partner/rates float, key",
      ref: baseline,
      target: RATES_RATIO,
      path: RATES,
      headers: auth,
    },
    {
      id: "rates-fixed",
      label: "GET /partner/rates fixed, public",
      ref: baseline,
      target: RATES_RATIO,
      path: `${RATES}&rate_type=fixed`,
    },
    {
      id: "rates-fixed-key",
      label: "GET /partner/rates fixed, key",
      ref: baseline,
      target: RATES_RATIO,
      path: `${RATES}&rate_type=fixed`,
      headers: auth,
    },
    {
      id: "order-create",
      label: "POST /partner/orders",
      ref: addressFloor,
      target: 0.55,
      cpuTarget: CPU_FACTOR,
      path: "/api/v1/partner/orders",
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify(ORDER_BODY),
    },
    // Issue 44: creation with its address screening (sanctions list, entries: isolate memory)
    // against the same creation with screening skipped (a header honoured only with BENCH_ROUTES).
    {
      id: "screening",
      label: "POST /partner/orders, screening on",
      ref: {
        id: "order-create-unscreened",
        label: "the same, screening off",
        path: "/api/v1/partner/orders",
        method: "POST",
        headers: { ...auth, "content-type": "application/json", "x-bench-no-screening": "1" },
        body: JSON.stringify(ORDER_BODY),
      },
      target: SCREENING_RATIO,
      cpuTarget: CPU_FACTOR,
      path: "/api/v1/partner/orders",
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify(ORDER_BODY),
    },
    { id: "order-uuid", label: "GET /partner/orders/{uuid}", ref: keyedCall, target: 0.9, ...uuidReads },
    {
      id: "order-short-id",
      label: "GET /partner/orders/{short_id}",
      ref: keyedCall,
      target: 0.9,
      paths: orders.map((o) => `/api/v1/partner/orders/${o.short_id}`),
      headers: auth,
    },
    // Issue 31: the same keyed reads with the request log off (a header the Worker honours only
    // with BENCH_ROUTES) as the reference: the log's own cost.
    {
      id: "request-log",
      label: "GET /partner/orders/{uuid}, request log on",
      ref: {
        id: "order-uuid-log-off",
        label: "the same, log off",
        paths: uuidReads.paths,
        headers: { ...auth, "x-bench-no-request-log": "1" },
      },
      target: REQUEST_LOG_RATIO,
      windowsFactor: REQUEST_LOG_WINDOWS_FACTOR,
      ...uuidReads,
    },
  ];
  const only = args.only ? new Set(args.only.split(",").map((s) => s.trim())) : null;
  const selected = only ? rows.filter((r) => only.has(r.id)) : rows;
  if (selected.length === 0) throw new Error(`--only matched nothing; ids: ${rows.map((r) => r.id)}`);

  console.log(
    `\nMeasuring each row against its reference: ${WINDOWS} windows of ${WINDOW_MS} ms each (the request log ${REQUEST_LOG_WINDOWS_FACTOR * WINDOWS}) (the first ${GUARD_MS} ms of each not counted), alternating, at ${CONNECTIONS} connections; then the row alone for ${SERIAL.duration} s with 1 connection.`,
  );
  const profiledRefs = new Set();
  for (const row of selected) {
    await warmUp(measureOpts(base, row), WARMUP);
    await warmUp(measureOpts(base, row.ref), WARMUP);
    await settle();
    Object.assign(row, judge(row, await measurePair(base, row)));
    row.serial = await measure(base, row, SERIAL);
    if (args.profile) {
      await measure(base, row, { warmup: 0 });
      // Each reference once too: a row's profile is read against its reference's.
      if (!profiledRefs.has(row.ref.id)) await measure(base, row.ref, { warmup: 0 });
      profiledRefs.add(row.ref.id);
    }
  }

  const lines = renderTable(selected);
  console.log(`\n${lines.join("\n")}\n`);
  const lag = await listingLag(base, key);
  console.log(
    `Listing lag (201 → in GET /partner/orders), ${lag.samples.length} orders one at a time: p50 ${fmt(lag.p50)} ms, max ${fmt(lag.max)} ms (bound ${LISTING_LAG_BOUND_MS} ms: ${lag.pass ? "pass" : "FAIL"})\n`,
  );

  const report = {
    kind: "bench",
    at: new Date().toISOString(),
    machine: machine(),
    settings: {
      connections: CONNECTIONS,
      windows: WINDOWS,
      window_ms: WINDOW_MS,
      guard_ms: GUARD_MS,
      warmup_s: WARMUP,
      p99_factor: P99_FACTOR,
      cpu_factor: CPU_FACTOR,
    },
    vars: { ...VARS, ADMIN_TOKEN: "(random)" },
    local_observability: args["local-observability"],
    target: target.via,
    currencies_body_bytes: bodyBytes,
    order_body_bytes: { created: createdBytes, read: readBytes },
    rows: selected.map((r) => ({
      id: r.id,
      label: r.label,
      ...figures(r.pair.a),
      reference: { id: r.ref.id, label: r.ref.label, ...figures(r.pair.b) },
      one_connection: { rps: r.serial.rps, ms_each: 1000 / r.serial.rps, p99_ms: r.serial.p99 },
      ratio: r.pair.ratio,
      ratio_interval_95: r.pair.interval,
      cpu_ratio: r.pair.cpuRatio,
      window_ratios: r.pair.windowRatios,
      ratio_target: r.target,
      ratio_pass: r.ratioPass,
      cpu_target: r.cpuTarget ?? null,
      cpu_pass: r.cpuPass,
      p99_pass: r.p99Pass,
      non2xx: r.pair.a.non2xx + r.pair.b.non2xx + r.serial.non2xx,
      errors: r.pair.a.errors + r.pair.b.errors + r.serial.errors,
    })),
    table: lines.join("\n"),
    listing_lag: lag,
    widget_size: await widgetSize(base),
  };
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, "latest.json"), `${JSON.stringify(report, null, 2)}\n`);
  console.log(`Written: bench/results/latest.json`);
  const missed = report.rows.filter(
    (r) =>
      r.ratio_pass === false || r.p99_pass === false || r.cpu_pass === false || r.non2xx > 0 || r.errors > 0,
  );
  if (!report.widget_size.pass) missed.push({ id: "widget-size" });
  return missed.length + (lag.pass ? 0 : 1);
}

/** Issue 44: creation with screening keeps this share of its rate without (≤ 1 ms on a ~20 ms creation). */
const SCREENING_RATIO = 0.95;
/** Issue 31: a keyed read with the request log on keeps this share of its rate with it off. */
const REQUEST_LOG_RATIO = 0.95;
/**
 * The log costs the read about 4–5 %, its target 5 %: its row gets this many times the windows,
 * which halves its interval (docs/performance.md, "Method").
 */
const REQUEST_LOG_WINDOWS_FACTOR = 4;

/** A row and its reference in alternating windows over the same connections. */
async function measurePair(base, row) {
  const native = args.perf && runtimePid ? join(args.perf, `${row.id}.perf.data`) : null;
  const stopNative = native ? startNativeProfile(runtimePid, native) : null;
  const pair = await runPaired({
    baseUrl: base,
    a: row,
    b: row.ref,
    connections: CONNECTIONS,
    windows: WINDOWS * (row.windowsFactor ?? 1),
    windowMs: WINDOW_MS,
    guardMs: GUARD_MS,
    cpuMs: runtimePid ? () => cpuTimeMs(runtimePid) : undefined,
  });
  const side = (x) =>
    `${lpad(fmt(x.rps), 6)} req/s  p99 ${lpad(fmt(x.p99), 3)} ms  cpu ${fmt(x.cpuMs, 3)} ms/req` +
    (x.non2xx || x.errors ? `  non-2xx ${x.non2xx} errors ${x.errors} ${JSON.stringify(x.statusCodes)}` : "");
  console.log(`  ${pad(row.id, 18)} ${side(pair.a)}`);
  const within = pair.interval ? ` [${pair.interval.map((x) => fmt(x, 3)).join("–")}]` : "";
  console.log(
    `  ${pad(`  ${row.ref.id}`, 18)} ${side(pair.b)}  → ${fmt(pair.ratio, 3)}${within} (CPU ${fmt(pair.cpuRatio, 3)})`,
  );
  if (stopNative) {
    await stopNative();
    pair.native = await reportNative(row, pair, native);
  }
  return pair;
}

/**
 * A row against its targets, from its pair: req/s over the reference's, the runtime CPU per
 * request over the reference's, and p99 within P99_FACTOR of the reference's, all from the same
 * windows. Null where the row has no such target.
 */
function judge(row, pair) {
  return {
    pair,
    ratioPass: row.target === null ? null : pair.ratio >= row.target,
    cpuPass: row.cpuTarget === undefined || pair.cpuRatio === null ? null : pair.cpuRatio <= row.cpuTarget,
    p99Pass: row.target === null ? null : pair.a.p99 <= P99_FACTOR * pair.b.p99,
  };
}

function figures(x) {
  return {
    rps: x.rps,
    p50_ms: x.p50,
    p99_ms: x.p99,
    max_ms: x.max,
    cpu_ms: x.cpuMs,
    status_codes: x.statusCodes,
  };
}

/** docs/orders.md: a new order is in the partner's list within this bound, locally. */
const LISTING_LAG_BOUND_MS = 2_000;

/**
 * How long after its 201 a new order shows in GET /partner/orders (the D1 index is projected from
 * the order's object after the answer): orders created one at a time, the list polled every 5 ms.
 */
async function listingLag(base, key, n = 20) {
  const samples = [];
  for (let i = 0; i < n; i++) {
    const { order } = await createOrder(base, key, ORDER_BODY);
    const t0 = performance.now();
    for (;;) {
      const list = await call(base, "GET", "/api/v1/partner/orders?limit=5", { token: key });
      if (list.body?.data?.some((o) => o.id === order.id)) break;
      if (performance.now() - t0 > 30_000) throw new Error(`order ${order.id} not listed after 30 s`);
      await sleep(5);
    }
    samples.push(performance.now() - t0);
  }
  const max = Math.max(...samples);
  return {
    samples,
    p50: median(samples),
    max,
    bound_ms: LISTING_LAG_BOUND_MS,
    pass: max <= LISTING_LAG_BOUND_MS,
  };
}

/**
 * Waits until the Worker's runtime is idle (at most 20 s): what a row leaves behind — a creation's
 * projection after its 201, request-log flushes — must not be billed to the row after it, nor to
 * the baseline.
 */
async function settle() {
  if (!runtimePid) return;
  const deadline = Date.now() + 20_000;
  let last = cpuTimeMs(runtimePid);
  while (last !== null && Date.now() < deadline) {
    await sleep(250);
    const now = cpuTimeMs(runtimePid);
    // ≤ 10 % of one core over the interval (the counter moves in 10 ms ticks).
    if (now === null || now - last <= 25) return;
    last = now;
  }
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return null;
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

function renderTable(rows) {
  const head = [
    "endpoint",
    "req/s",
    "p50 ms",
    "p99 ms",
    "CPU ms",
    "reference: req/s, p99, CPU",
    "ratio [95 % interval] (CPU)",
    "1 conn: req/s, ms each",
    "target",
    `p99 ≤ ${P99_FACTOR}× reference's`,
  ];
  // Latencies to a tenth of a millisecond; with one connection 1000 / (req/s) is the time each
  // request takes end to end (client included).
  const serial = (x) => `${fmt(x.rps)}, ${fmt(1000 / x.rps, 2)}`;
  const verdict = (pass) => ({ true: "pass", false: "FAIL", null: "—" })[String(pass)];
  const body = rows.map((r) => {
    const { a, b } = r.pair;
    const errs = a.non2xx + a.errors + b.non2xx + b.errors + r.serial.non2xx + r.serial.errors;
    const targets = [];
    if (r.target !== null)
      targets.push(`${fmt(r.pair.ratio, 2)} of ${r.ref.id} (≥ ${r.target}) ${verdict(r.ratioPass)}`);
    if (r.cpuTarget !== undefined)
      targets.push(`CPU ${fmt(r.pair.cpuRatio, 2)}× ${r.ref.id}'s (≤ ${r.cpuTarget}) ${verdict(r.cpuPass)}`);
    return [
      r.label,
      fmt(a.rps),
      fmt(a.p50, 1),
      fmt(a.p99, 1),
      fmt(a.cpuMs, 3),
      `${r.ref.id}: ${fmt(b.rps)}, ${fmt(b.p99, 1)}, ${fmt(b.cpuMs, 3)}`,
      `${fmt(r.pair.ratio, 2)} [${r.pair.interval ? r.pair.interval.map((x) => fmt(x, 2)).join("–") : "—"}] (${fmt(r.pair.cpuRatio === null ? null : 1 / r.pair.cpuRatio, 2)})`,
      serial(r.serial),
      targets.join("; ") || "—",
      verdict(r.p99Pass) + (errs ? ` (${errs} errors!)` : ""),
    ];
  });
  return markdownTable(head, body, new Set([1, 2, 3, 4, 7]));
}

/** A Markdown table, right-aligning the `numeric` columns. */
function markdownTable(head, body, numeric) {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => String(row[i]).length)));
  const line = (cells) =>
    `| ${cells.map((c, i) => (numeric.has(i) ? lpad(c, widths[i]) : pad(c, widths[i]))).join(" | ")} |`;
  return [
    line(head),
    `|${widths.map((w, i) => (numeric.has(i) ? `${"-".repeat(w + 1)}:` : "-".repeat(w + 2))).join("|")}|`,
    ...body.map(line),
  ];
}

// ── the scale check ─────────────────────────────────────────────────────────────────────────

async function scale() {
  const sizes = args["scale-sizes"].split(",").map(Number);
  if (sizes.length !== 2 || !sizes.every((n) => Number.isInteger(n) && n > 0) || sizes[1] <= sizes[0]) {
    console.error("--scale-sizes must be two increasing whole numbers, e.g. 1000,50000");
    process.exit(2);
  }
  const [small, large] = sizes;
  const vars = { ...VARS };
  const start = async (fresh) => {
    worker = await startWorker({
      stateDir: args["state-dir"],
      port: PORT,
      vars,
      testScheduled: true,
      fresh,
      localObservability: args["local-observability"],
    });
    return loadTarget(worker);
  };
  /** Writes straight into the local D1 need the Worker stopped: stop, write, start again. */
  const withWorkerStopped = async (write) => {
    await worker.stop();
    write();
    target = await start(false);
    base = target.url;
  };
  let target = await start(true);
  let base = target.url;
  console.log(`wrangler dev on ${worker.baseUrl} (pid ${worker.pid}, state ${worker.stateDir})`);
  console.log(`load goes to ${base}: ${target.via}`);
  const { key, partnerId } = await seed(base);
  const auth = { authorization: `Bearer ${key}` };
  const cabinet = {};
  await withWorkerStopped(() => {
    cabinet.cookie = seedCabinetSession(worker, partnerId);
  });

  const first = await createMany(base, key, small, { label: `orders 1–${small}` });
  const sample = first.orders.slice(0, Math.min(500, first.orders.length));
  const listProbe = await call(base, "GET", "/api/v1/partner/orders?limit=50", { token: key });
  const listAvailable = listProbe.status === 200;
  if (!listAvailable)
    console.log(
      `  GET /partner/orders?limit=50 answered ${listProbe.status}: the list endpoint is not there yet; skipped.`,
    );

  const reads = [
    { key: "uuid", id: "order-uuid", paths: sample.map((o) => `/api/v1/partner/orders/${o.id}`) },
    {
      key: "short_id",
      id: "order-short-id",
      paths: sample.map((o) => `/api/v1/partner/orders/${o.short_id}`),
    },
    ...(listAvailable ? [{ key: "list", id: "order-list", path: "/api/v1/partner/orders?limit=50" }] : []),
    // The cabinet's orders page (first page, newest 50), a search by lower-case short_id, and a
    // filter no row matches (the worst case for a scan; an index answers it at once).
    { key: "cabinet_list", id: "cabinet-orders", path: "/cabinet/orders", headers: cabinet },
    {
      key: "cabinet_search",
      id: "cabinet-search",
      paths: sample.map((o) => `/cabinet/orders?q=${o.short_id.toLowerCase()}`),
      headers: cabinet,
    },
    {
      key: "cabinet_filter",
      id: "cabinet-filter",
      path: "/cabinet/orders?status=refunded",
      headers: cabinet,
    },
  ];
  const measureAt = async (label) => {
    console.log(`\nIndex size ${label}:`);
    // Rounds interleave the endpoints and each keeps its median round, so one noisy stretch of a
    // shared 2-core machine cannot pass for growth with the index.
    const runs = Object.fromEntries(reads.map((r) => [r.key, []]));
    for (let round = 1; round <= ROUNDS; round++) {
      if (ROUNDS > 1) console.log(`  round ${round}/${ROUNDS}`);
      for (const r of reads) runs[r.key].push(await measure(base, { ...r, headers: r.headers ?? auth }));
    }
    const out = {};
    for (const r of reads) {
      const sorted = [...runs[r.key]].sort((a, b) => a.rps - b.rps);
      out[r.key] = {
        ...sorted[Math.floor((sorted.length - 1) / 2)],
        rounds_rps: runs[r.key].map((x) => x.rps),
      };
    }
    // The scheduled trigger is served by wrangler dev itself, not by the runtime port.
    out.sweep = await timeSweep(worker.baseUrl, 30);
    console.log(
      `  ${pad("scheduled()", 18)} ${out.sweep.runs} runs: p50 ${fmt(out.sweep.p50, 1)} ms, max ${fmt(out.sweep.max, 1)} ms`,
    );
    out.index_rows = indexRows(worker);
    console.log(`  index rows: ${out.index_rows}`);
    out.csv = await timeCsv(base, cabinet);
    console.log(
      `  ${pad("orders.csv", 18)} ${out.csv.rows} rows, ${fmt(out.csv.bytes / 1e6, 1)} MB: first byte ${fmt(out.csv.first_byte_ms)} ms, all ${fmt(out.csv.total_ms)} ms`,
    );
    return out;
  };

  const atSmall = await measureAt(String(small));

  // Grow the index to `large`: through the API (the normal path), within a time cap; whatever is
  // left (or everything, with --scale-direct) goes straight into D1 while the Worker is stopped.
  const need = large - small;
  let viaApi = 0;
  let apiSeconds = 0;
  if (!args["scale-direct"]) {
    const capMs = Number(args["scale-max-minutes"]) * 60_000;
    const grown = await createMany(base, key, need, {
      label: `orders ${small + 1}–${large}`,
      deadline: Date.now() + capMs,
    });
    viaApi = grown.orders.length;
    apiSeconds = grown.seconds;
  }
  const direct = need - viaApi;
  if (direct > 0) {
    console.log(`  inserting ${direct} index rows directly into D1 (wrangler d1 execute, Worker stopped)…`);
    await withWorkerStopped(() => insertDirect(worker, partnerId, direct));
  }
  const atLarge = await measureAt(String(large));

  const compare = (a, b) =>
    a && b ? { rps_change: b.rps / a.rps - 1, p50_change: b.p50 / a.p50 - 1 } : null;
  const within = (c) => c && Math.abs(c.rps_change) <= 0.2 && Math.abs(c.p50_change) <= 0.2;
  const checks = {
    uuid: compare(atSmall.uuid, atLarge.uuid),
    short_id: compare(atSmall.short_id, atLarge.short_id),
    list: compare(atSmall.list, atLarge.list),
    cabinet_list: compare(atSmall.cabinet_list, atLarge.cabinet_list),
    cabinet_search: compare(atSmall.cabinet_search, atLarge.cabinet_search),
    cabinet_filter: compare(atSmall.cabinet_filter, atLarge.cabinet_filter),
    // A cron run costs what is due, not what exists (issue 32): its p50 with the large index stays
    // within SWEEP_MAX_RATIO of its p50 with the small one.
    sweep:
      atSmall.sweep && atLarge.sweep
        ? {
            p50_change: atLarge.sweep.p50 / atSmall.sweep.p50 - 1,
            ratio: atLarge.sweep.p50 / atSmall.sweep.p50,
            pass: atLarge.sweep.p50 <= SWEEP_MAX_RATIO * atSmall.sweep.p50,
          }
        : null,
  };
  const verdict = (c) =>
    c
      ? `${within(c) ? "pass" : "FAIL"} (req/s ${fmt(c.rps_change * 100)}%, p50 ${fmt(c.p50_change * 100)}%)`
      : "skipped";
  const cells = (x, digits = 0) => [fmt(x?.rps), fmt(x?.p50, digits), fmt(x?.p99, digits)];
  const body = [
    ["GET /partner/orders/{uuid}", ...cells(atSmall.uuid), ...cells(atLarge.uuid), verdict(checks.uuid)],
    [
      "GET /partner/orders/{short_id}",
      ...cells(atSmall.short_id),
      ...cells(atLarge.short_id),
      verdict(checks.short_id),
    ],
    listAvailable
      ? ["GET /partner/orders?limit=50", ...cells(atSmall.list), ...cells(atLarge.list), verdict(checks.list)]
      : [
          "GET /partner/orders?limit=50",
          "—",
          "—",
          "—",
          "—",
          "—",
          "—",
          `not in this build (${listProbe.status})`,
        ],
    [
      "GET /cabinet/orders",
      ...cells(atSmall.cabinet_list),
      ...cells(atLarge.cabinet_list),
      verdict(checks.cabinet_list),
    ],
    [
      "GET /cabinet/orders?q={short_id}",
      ...cells(atSmall.cabinet_search),
      ...cells(atLarge.cabinet_search),
      verdict(checks.cabinet_search),
    ],
    [
      "GET /cabinet/orders?status=refunded (no match)",
      ...cells(atSmall.cabinet_filter),
      ...cells(atLarge.cabinet_filter),
      verdict(checks.cabinet_filter),
    ],
    [
      "GET /cabinet/orders.csv (every row, one request)",
      "—",
      `${fmt(atSmall.csv.first_byte_ms)} (first byte)`,
      `${fmt(atSmall.csv.total_ms)} (all ${atSmall.csv.rows})`,
      "—",
      `${fmt(atLarge.csv.first_byte_ms)} (first byte)`,
      `${fmt(atLarge.csv.total_ms)} (all ${atLarge.csv.rows})`,
      `${fmt(atLarge.csv.rows / (atLarge.csv.total_ms / 1000))} rows/s`,
    ],
    [
      "scheduled() (one cron run)",
      "—",
      fmt(atSmall.sweep.p50, 1),
      `${fmt(atSmall.sweep.max, 1)} (max)`,
      "—",
      fmt(atLarge.sweep.p50, 1),
      `${fmt(atLarge.sweep.max, 1)} (max)`,
      checks.sweep
        ? `${checks.sweep.pass ? "pass" : "FAIL"} (p50 ×${fmt(checks.sweep.ratio, 2)}, target ≤ ×${SWEEP_MAX_RATIO})`
        : "skipped",
    ],
  ];
  const head = [
    "endpoint",
    `${small}: req/s`,
    "p50 ms",
    "p99 ms",
    `${large}: req/s`,
    "p50 ms",
    "p99 ms",
    "target",
  ];
  const lines = markdownTable(head, body, new Set([1, 2, 3, 4, 5, 6]));
  const note =
    `${large} orders: ${small + viaApi} created through POST /partner/orders` +
    (viaApi ? ` (${viaApi} in ${fmt(apiSeconds)} s, ${fmt(viaApi / apiSeconds)}/s)` : "") +
    (direct ? `, ${direct} index rows inserted directly into D1 (no order object behind them)` : "") +
    `. Reads use the same ${sample.length} orders (from the first ${small}) at both sizes.`;
  console.log(`\n${lines.join("\n")}\n${note}\n`);
  const report = {
    kind: "scale",
    at: new Date().toISOString(),
    machine: machine(),
    settings: { connections: CONNECTIONS, duration_s: DURATION, warmup_s: WARMUP, rounds: ROUNDS, sizes },
    target: target.via,
    created_via_api: small + viaApi,
    api_creation_seconds: apiSeconds,
    inserted_directly: direct,
    list_available: listAvailable,
    at_small: atSmall,
    at_large: atLarge,
    checks,
    table: lines.join("\n"),
    note,
  };
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, "scale.json"), `${JSON.stringify(report, null, 2)}\n`);
  console.log("Written: bench/results/scale.json");
  const failed = ["uuid", "short_id", "list", "cabinet_list", "cabinet_search", "cabinet_filter"].filter(
    (k) => checks[k] && !within(checks[k]),
  );
  if (checks.sweep && !checks.sweep.pass) failed.push("sweep");
  return failed.length;
}

/** Wall time of one `scheduled()` run (price refresh + lost-alarm sweep), `runs` times in a row. */
async function timeSweep(base, runs) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = await fetch(`${base}/cdn-cgi/handler/scheduled`, { signal: AbortSignal.timeout(60_000) });
    await r.arrayBuffer();
    if (!r.ok) throw new Error(`scheduled trigger answered ${r.status}`);
    times.push(performance.now() - t0);
  }
  const s = [...times].sort((a, b) => a - b);
  return {
    runs,
    p50: s[Math.floor((s.length - 1) / 2)],
    p99: s[Math.min(s.length - 1, Math.ceil(s.length * 0.99) - 1)],
    max: s.at(-1),
  };
}

/**
 * A signed-in cabinet member for the partner, written straight into the local D1 (a passkey
 * ceremony needs a browser): a user and a session row, as sign-in would leave them. Returns the
 * Cookie header value.
 */
function seedCabinetSession(w, partnerId) {
  const token = crypto.randomUUID();
  const userId = crypto.randomUUID();
  const now = new Date().toISOString();
  const expires = new Date(Date.now() + 7 * 86_400_000).toISOString();
  const hash = createHash("sha256").update(token).digest("hex");
  w.d1({
    command:
      `INSERT INTO cabinet_users (id, partner_id, email, role, created_at, updated_at) VALUES ('${userId}', '${partnerId}', 'bench@example.com', 'viewer', '${now}', '${now}');` +
      `INSERT INTO cabinet_sessions (id, user_id, csrf_token, created_at, last_seen_at, expires_at) VALUES ('${hash}', '${userId}', 'bench', '${now}', '${now}', '${expires}');`,
  });
  return `__Host-cabinet_session=${token}`;
}

/** One full CSV export of every order: time to the first byte, to the last, rows and bytes. */
async function timeCsv(base, headers) {
  const t0 = performance.now();
  const res = await fetch(`${base}/cabinet/orders.csv`, { headers, signal: AbortSignal.timeout(600_000) });
  if (!res.ok) throw new Error(`orders.csv answered ${res.status}`);
  const reader = res.body.getReader();
  let firstByte = null;
  let bytes = 0;
  let newlines = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    firstByte ??= performance.now() - t0;
    bytes += value.length;
    for (const b of value) if (b === 10) newlines++;
  }
  return { first_byte_ms: firstByte, total_ms: performance.now() - t0, rows: newlines - 1, bytes };
}

/** Rows in the D1 order index (a read through wrangler d1 execute; the Worker may keep running). */
function indexRows(w) {
  return w.d1({ command: "SELECT COUNT(*) AS n FROM orders" })[0].results[0].n;
}

/** Inserts `n` order-index rows for the partner into the stopped Worker's local D1. */
function insertDirect(w, partnerId, n) {
  const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  const now = Date.now();
  const statements = [];
  const CHUNK = 200; // rows per INSERT: D1 caps a statement at 100 KB
  for (let start = 0; start < n; start += CHUNK) {
    const values = [];
    for (let i = start; i < Math.min(n, start + CHUNK); i++) {
      let shortId = "";
      let x = i;
      for (let k = 0; k < 9; k++) {
        shortId = alphabet[x % 32] + shortId;
        x = Math.floor(x / 32);
      }
      // A valid Crockford short id; a clash with a random real one (50 bits) is negligible.
      shortId = `Z${shortId}`;
      const created = new Date(now - (n - i) * 1000).toISOString();
      const expires = new Date(now + 86_400_000).toISOString();
      values.push(
        `('${crypto.randomUUID()}','${shortId}','${partnerId}','waiting_deposit','BTC','BTC','USDT','TRX','bench-direct-${i}',NULL,'${created}','${created}','${expires}','float','0.01','596',100)`,
      );
    }
    statements.push(
      `INSERT INTO orders (id, short_id, partner_id, status, coin_from, network_from, coin_to, network_to, deposit_address, deposit_address_tag, created_at, updated_at, expires_at, rate_type, amount_from, amount_to, markup_bps) VALUES\n${values.join(",\n")};`,
    );
  }
  const file = join(w.stateDir, "direct-orders.sql");
  writeFileSync(file, `${statements.join("\n")}\n`);
  w.d1({ file });
}

// ── the widget's size ───────────────────────────────────────────────────────────────────────

/** docs/widget.md: what a visitor's browser loads for the widget, gzipped, at most 60 KB. */
const WIDGET_GZIP_TARGET = 60 * 1024;

/**
 * The embeddable widget's scripts and CSS as the Worker serves them: /widget.js, and the script and
 * stylesheet its pages link (read off a page that uses the same frame), each gzipped at level 9.
 */
async function widgetSize(base) {
  const page = await fetch(`${base}/track/00000000-0000-8000-8000-000000000000`);
  const html = await page.text();
  const linked = [...html.matchAll(/(?:src|href)="(\/swap-assets\/[^"]+)"/g)].map((m) => m[1]);
  if (linked.length < 2)
    throw new Error(`the widget's assets are not linked from its pages (${page.status})`);
  const files = [];
  for (const path of ["/widget.js", ...linked]) {
    const res = await fetch(`${base}${path}`);
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
    const body = Buffer.from(await res.arrayBuffer());
    files.push({ path, bytes: body.length, gzip_bytes: gzipSync(body, { level: 9 }).length });
  }
  const total = files.reduce((n, f) => n + f.gzip_bytes, 0);
  console.log("\nWidget size (gzip):");
  for (const f of files) console.log(`  ${f.path.padEnd(40)} ${f.bytes} B → ${f.gzip_bytes} B`);
  console.log(`  total ${total} B of ${WIDGET_GZIP_TARGET} B ${total <= WIDGET_GZIP_TARGET ? "✓" : "✗"}`);
  return { files, gzip_bytes: total, target_bytes: WIDGET_GZIP_TARGET, pass: total <= WIDGET_GZIP_TARGET };
}

async function widgetSizeOnly() {
  worker = await startWorker({ stateDir: args["state-dir"], port: PORT, vars: VARS });
  const r = await widgetSize((await loadTarget(worker)).url);
  return r.pass ? 0 : 1;
}

// ── main ────────────────────────────────────────────────────────────────────────────────────

let code = 0;
try {
  const missed = args["widget-size"] ? await widgetSizeOnly() : args.scale ? await scale() : await table();
  if (missed > 0) console.log(`${missed} target(s) missed.`);
  code = args.strict && missed > 0 ? 1 : 0;
} catch (err) {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  if (worker) console.error(`wrangler log: ${worker.logPath}`);
  code = 1;
} finally {
  if (worker && args.keep) console.log(`wrangler dev left running on ${worker.baseUrl}, pid ${worker.pid}`);
  else await worker?.stop();
}
process.exit(code);
