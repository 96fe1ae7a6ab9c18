// Two request kinds measured in alternating windows over the same open connections: a row and its
// reference, so that both meet the machine as it is at the same moments.
//
// On a 2-core VM whose speed itself moves by tens of percent over seconds, a row measured in one
// run and its reference in another (even seconds apart) differ by more than the targets being
// checked. Here the load never stops: `connections` clients send requests back to back, and every
// `windowMs` all of them switch from one kind to the other, in the order A B B A A B B A … (a
// drift that is linear over a pair of windows falls on both kinds alike). The first `guardMs` of
// each window are not counted: work the other kind left behind after its answers (a creation's
// projection, a request-log flush) runs down there instead of in this kind's figures, as each
// kind's own such work falls inside its own windows in the steady state. What remains is counted
// per kind: answers, the runtime's CPU time, latencies.
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { Pool } from "undici";

/**
 * @typedef {{ path?: string, paths?: string[], method?: string, headers?: Record<string, string>,
 *   body?: string, expect?: number }} Kind
 *   `expect`: the status that counts (default any 2xx); any other answer is counted in `other`.
 *
 * @param {{ baseUrl: string, a: Kind, b: Kind, connections: number, windows: number,
 *   windowMs: number, guardMs: number, cpuMs?: () => number | null }} opts
 *   `windows`: windows per kind. `cpuMs`: the runtime's CPU time so far, read at each window's
 *   counted span's start and end.
 */
export async function runPaired(opts) {
  const pool = new Pool(opts.baseUrl, { connections: opts.connections, pipelining: 1 });
  const kinds = [prepare(opts.a), prepare(opts.b)];
  /** The window being sent: its kind, and the span whose answers count (`to` set when it ends). */
  let current = { kind: 0, from: Number.POSITIVE_INFINITY, to: Number.POSITIVE_INFINITY };
  let stopped = false;
  const tally = kinds.map(() => ({ ok: 0, other: 0, errors: 0, latencies: [], statusCodes: {} }));

  const client = async () => {
    while (!stopped) {
      const window = current;
      const kind = kinds[window.kind];
      const t0 = performance.now();
      let status = -1;
      try {
        const res = await pool.request(kind.next());
        status = res.statusCode;
        await res.body.dump();
      } catch {}
      const t1 = performance.now();
      // An answer counts for the window that sent its request, when it arrives inside that
      // window's counted span: in a steady state as many requests are in flight at the span's
      // start as at its end, so this is the span's throughput.
      if (t1 < window.from || t1 > window.to) continue;
      const t = tally[window.kind];
      if (status === -1) t.errors++;
      else {
        t.statusCodes[status] = (t.statusCodes[status] ?? 0) + 1;
        if (kind.counts(status)) {
          t.ok++;
          t.latencies.push(t1 - t0);
        } else t.other++;
      }
    }
  };

  const clients = Array.from({ length: opts.connections }, client);
  const spans = kinds.map(() => ({ ms: 0, cpuMs: 0, cpuKnown: true, perWindow: [] }));
  /** Every counted span on the system's monotonic clock, in seconds (a native profile's samples are placed by it). */
  const counted = [];
  const monotonic = () => Number(process.hrtime.bigint()) / 1e9;
  for (const kind of abba(opts.windows)) {
    const window = { kind, from: performance.now() + opts.guardMs, to: Number.POSITIVE_INFINITY };
    current = window;
    await sleep(opts.guardMs);
    const before = { at: performance.now(), ok: tally[kind].ok, cpu: opts.cpuMs?.() ?? null };
    window.from = before.at;
    const from = monotonic();
    await sleep(opts.windowMs - opts.guardMs);
    const after = { at: performance.now(), ok: tally[kind].ok, cpu: opts.cpuMs?.() ?? null };
    window.to = after.at;
    counted.push({ kind, from, to: monotonic() });
    const span = spans[kind];
    span.ms += after.at - before.at;
    if (before.cpu === null || after.cpu === null) span.cpuKnown = false;
    else span.cpuMs += after.cpu - before.cpu;
    span.perWindow.push((after.ok - before.ok) / ((after.at - before.at) / 1000));
  }
  stopped = true;
  await Promise.all(clients);
  await pool.close();

  const [a, b] = kinds.map((_, i) => summary(tally[i], spans[i]));
  const windowRatios = pairRatios(a.perWindow, b.perWindow);
  const ratio = a.rps / b.rps;
  return {
    a,
    b,
    ratio,
    interval: interval95(ratio, windowRatios),
    cpuRatio: a.cpuMs && b.cpuMs ? a.cpuMs / b.cpuMs : null,
    windowRatios,
    counted,
  };
}

/**
 * A 95 % interval around the pooled ratio, from how much the window pairs' ratios spread (the
 * standard error of their mean logarithm, ×1.96): how far this run's ratio can be from what the
 * same code would give with endless windows on this machine. Null with fewer than two pairs or a
 * window without answers.
 */
function interval95(ratio, windowRatios) {
  const logs = windowRatios.map(Math.log);
  if (logs.length < 2 || !logs.every(Number.isFinite)) return null;
  const mean = logs.reduce((s, x) => s + x, 0) / logs.length;
  const sd = Math.sqrt(logs.reduce((s, x) => s + (x - mean) ** 2, 0) / (logs.length - 1));
  const half = (1.96 * sd) / Math.sqrt(logs.length);
  return [ratio * Math.exp(-half), ratio * Math.exp(half)];
}

/** A B B A A B B A …: `n` windows of each kind. */
function abba(n) {
  return Array.from({ length: 2 * n }, (_, i) => ((i + 1) >> 1) % 2);
}

/** The i-th window of A over the i-th of B: the spread the pooled ratio averages away. */
function pairRatios(a, b) {
  return a.map((x, i) => x / b[i]);
}

function prepare(kind) {
  const paths = kind.paths ?? [kind.path];
  let i = 0;
  const base = { method: kind.method ?? "GET", headers: kind.headers ?? {}, body: kind.body };
  return {
    next: () => ({ ...base, path: paths[i++ % paths.length] }),
    counts: kind.expect === undefined ? (s) => s >= 200 && s < 300 : (s) => s === kind.expect,
  };
}

function summary(t, span) {
  const sorted = t.latencies.sort((x, y) => x - y);
  const at = (q) =>
    sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : null;
  return {
    requests: t.ok + t.other,
    ok: t.ok,
    rps: t.ok / (span.ms / 1000),
    p50: at(0.5),
    p99: at(0.99),
    max: sorted.length ? sorted[sorted.length - 1] : null,
    cpuMs: span.cpuKnown && t.ok + t.other > 0 ? span.cpuMs / (t.ok + t.other) : null,
    non2xx: t.other,
    errors: t.errors,
    statusCodes: t.statusCodes,
    seconds: span.ms / 1000,
    perWindow: span.perWindow,
  };
}
