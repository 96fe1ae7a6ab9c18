/**
 * Native profiles of the local Worker runtime with Linux `perf`: every thread of the workerd that
 * runs the Worker, its Durable Objects and local D1, whatever it runs — SQLite (statement parsing,
 * steps, commits), the runtime's HTTP and RPC plumbing, a new object's set-up, garbage collection,
 * page faults — not only the JavaScript the V8 profiler (`--profile`) sees. Each sample's stack is
 * put in one category (the first rule below that a frame matches), so that a row and its
 * reference are compared part by part, in ms of CPU per request. Used by
 * `npm run bench -- --perf <dir>` (docs/performance.md, "Native profiles").
 */
import { execFileSync, spawn } from "node:child_process";

/**
 * Categories, most specific first: a sample belongs to the first whose marker appears anywhere in
 * its stack. JIT frames have no symbol, so JavaScript is recognised by V8's entry builtins.
 */
export const CATEGORIES = [
  ["new object", ["Worker::Actor::Actor"]],
  ["object constructor", ["blockConcurrencyWhileImpl"]],
  ["setAlarm", ["DurableObjectStorage::setAlarm", "ActorSqlite::setAlarm"]],
  ["key-value storage", ["SqliteKv"]],
  ["SQL statements", ["SqlStorage::exec", "SqlStorage::Cursor"]],
  ["SQLite commit", ["sqlite3PagerCommitPhaseOne", "sqlite3BtreeCommitPhase", "sqlite3VdbeHalt"]],
  [
    "garbage collection",
    [
      "Heap::CollectGarbage",
      "Scavenger",
      "MinorMarkSweep",
      "MarkCompact",
      "Heap::PerformGarbageCollection",
      "cppgc",
    ],
  ],
  ["structured clone", ["ValueSerializer", "ValueDeserializer"]],
  ["page faults", ["asm_exc_page_fault"]],
  ["JavaScript", ["Builtins_JSEntry", "Builtins_RunMicrotasks", "Builtins_AsyncFunctionAwait"]],
  ["RPC", ["JsRpc", "capnp::"]],
  ["HTTP", ["HttpServer", "HttpInputStream", "HttpOutputStream", "HttpHeaders", "HttpClient"]],
  ["system calls", ["entry_SYSCALL"]],
];
const OTHER = "other";
/** Marks a sample's SQL statement parsing, whatever its category. */
const PREPARE = "sqlite3Prepare";

/** Whether `perf` can be run here (it must be installed, and allowed to attach to a process). */
export function perfAvailable() {
  try {
    execFileSync("perf", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Starts recording `pid` with call stacks into `file`; the returned function stops it. */
export function startNativeProfile(pid, file, frequency = 999) {
  const perf = spawn("perf", ["record", "-q", "-F", String(frequency), "-g", "-p", String(pid), "-o", file], {
    stdio: "ignore",
  });
  const exited = new Promise((resolve) => perf.on("exit", resolve));
  return async () => {
    perf.kill("SIGINT");
    await exited;
  };
}

/** The category of one sample's stack (its frames' symbols, leaf first). */
export function categoryOf(frames) {
  for (const [name, markers] of CATEGORIES)
    if (frames.some((f) => markers.some((m) => f.includes(m)))) return name;
  return OTHER;
}

/**
 * Shares of the samples in `file` by category, and the share of each category spent parsing SQL.
 * `{ samples, shares: { [category]: share }, parsing: { [category]: share } }`.
 */
export function nativeShares(file) {
  const text = execFileSync("perf", ["script", "-i", file, "-F", "ip,sym"], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
    stdio: ["ignore", "pipe", "ignore"],
  });
  const counts = new Map();
  const parsing = new Map();
  let samples = 0;
  for (const block of text.split(/\n\s*\n/)) {
    const frames = block
      .split("\n")
      .map((line) => line.trim().replace(/^[0-9a-f]+ /, ""))
      .filter(Boolean);
    if (frames.length === 0) continue;
    samples++;
    const category = categoryOf(frames);
    counts.set(category, (counts.get(category) ?? 0) + 1);
    if (frames.some((f) => f.includes(PREPARE))) parsing.set(category, (parsing.get(category) ?? 0) + 1);
  }
  const share = (m) => Object.fromEntries([...m].map(([k, n]) => [k, n / Math.max(1, samples)]));
  return { samples, shares: share(counts), parsing: share(parsing) };
}

/**
 * A row's and its reference's CPU per request by category, side by side (each category's share of
 * its run times that run's CPU per request), largest difference first.
 */
export function compareNative(row, ref) {
  const names = new Set([...Object.keys(row.shares), ...Object.keys(ref.shares)]);
  return [...names]
    .map((name) => {
      const a = (row.shares[name] ?? 0) * row.cpuMs;
      const b = (ref.shares[name] ?? 0) * ref.cpuMs;
      const parse = (row.parsing[name] ?? 0) * row.cpuMs;
      return { name, rowMs: a, refMs: b, diffMs: a - b, rowParseMs: parse };
    })
    .sort((x, y) => y.diffMs - x.diffMs);
}
