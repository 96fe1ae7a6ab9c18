/**
 * Native profiles of the local Worker runtime with Linux `perf`: every thread of the workerd that
 * runs the Worker, its Durable Objects and local D1, whatever it runs — SQLite (statement parsing,
 * steps, commits), the runtime's HTTP and RPC plumbing, a new object's set-up, garbage collection,
 * page faults — not only the JavaScript the V8 profiler (`--profile`) sees. Each sample's stack is
 * put in one category (the first rule below that a frame matches), so that a row and its
 * reference are compared part by part, in ms of CPU per request. Used by
 * `npm run bench -- --perf <dir>` (docs/performance.md, "Method").
 */
import { execFileSync, spawn } from "node:child_process";
import { createInterface } from "node:readline";

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

/** Samples a second per running thread: one sample stands for 1 / FREQUENCY s of CPU. */
export const FREQUENCY = 999;

/**
 * Starts recording `pid` with call stacks into `file`, samples stamped on the monotonic clock
 * (the paired runner's spans are on it too); the returned function stops it.
 */
export function startNativeProfile(pid, file) {
  const args = ["record", "-q", "-k", "CLOCK_MONOTONIC", "-F", String(FREQUENCY), "-g", "-p", String(pid)];
  const perf = spawn("perf", [...args, "-o", file], { stdio: "ignore" });
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
 * The samples in `file` that fall in the paired runner's counted spans (`{ kind, from, to }`, in
 * monotonic seconds), by kind and category: `[{ samples, counts, parsing }, …]` per kind, where
 * `counts` and `parsing` map a category to its samples (`parsing`: those spent in SQLite's
 * statement parser).
 */
export async function samplesBySpan(file, spans, kinds = 2) {
  const sorted = [...spans].sort((x, y) => x.from - y.from);
  const out = Array.from({ length: kinds }, () => ({ samples: 0, counts: {}, parsing: {} }));
  const add = (at, frames) => {
    const span = spanAt(sorted, at);
    if (!span) return;
    const k = out[span.kind];
    const category = categoryOf(frames);
    k.samples++;
    k.counts[category] = (k.counts[category] ?? 0) + 1;
    if (frames.some((f) => f.includes(PREPARE))) k.parsing[category] = (k.parsing[category] ?? 0) + 1;
  };
  // Streamed: a long run's script is larger than one string can be.
  const perf = spawn("perf", ["script", "-i", file, "-F", "time,ip,sym"], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  let at = Number.NaN;
  let frames = [];
  for await (const raw of createInterface({ input: perf.stdout })) {
    const line = raw.trim();
    if (line === "") {
      if (Number.isFinite(at)) add(at, frames);
      at = Number.NaN;
      frames = [];
    } else if (Number.isNaN(at) && frames.length === 0) at = Number.parseFloat(line);
    else frames.push(line.replace(/^[0-9a-f]+ /, ""));
  }
  if (Number.isFinite(at)) add(at, frames);
  return out;
}

/** The span that holds `at`, by binary search over spans sorted by start; null between spans. */
function spanAt(sorted, at) {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = sorted[mid];
    if (at < s.from) hi = mid - 1;
    else if (at > s.to) lo = mid + 1;
    else return s;
  }
  return null;
}

/**
 * A row's and its reference's CPU per request by category from the same paired windows: each
 * kind's samples in a category over the answers it counted, largest difference first.
 */
export function compareBySpan(row, ref, rowAnswers, refAnswers) {
  const ms = (n, answers) => (answers > 0 ? ((n ?? 0) * 1000) / FREQUENCY / answers : 0);
  const names = new Set([...Object.keys(row.counts), ...Object.keys(ref.counts)]);
  return [...names]
    .map((name) => {
      const rowMs = ms(row.counts[name], rowAnswers);
      const refMs = ms(ref.counts[name], refAnswers);
      return { name, rowMs, refMs, diffMs: rowMs - refMs, rowParseMs: ms(row.parsing[name], rowAnswers) };
    })
    .sort((x, y) => y.diffMs - x.diffMs);
}
