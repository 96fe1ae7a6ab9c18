// Starts and stops a private `wrangler dev` for the bench and soak drivers (scripts/bench.mjs,
// scripts/soak.mjs): its own port, its own state directory under the system temp dir, a frozen
// copy of the sources, and a clean shutdown of exactly the processes it started.
//
// Layout of a state directory (e.g. /tmp/bench-state):
//   app/          snapshot of src/, public/, migrations/, wrangler.toml, tsconfig.json, package.json taken at
//                 start (node_modules is a symlink). wrangler dev watches its sources and reloads on
//                 every change; running from a snapshot means edits made to the working tree while
//                 a run is in progress cannot restart the Worker halfway through a measurement.
//   persist/      --persist-to: local D1, Durable Objects (orders, rate limiters, SimChain), queues.
//   wrangler.log  wrangler's and the Worker's output (log level warn by default).
import { spawn, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { freshDatabaseArgs } from "./migrations.mjs";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const BIN = join(ROOT, "node_modules/.bin");
const SNAPSHOT = ["src", "public", "migrations", "wrangler.toml", "tsconfig.json", "package.json"];

/** Environment for wrangler: node 24 from node_modules first, offline, no telemetry. */
function wranglerEnv(extra = {}) {
  return {
    ...process.env,
    PATH: `${BIN}:${process.env.PATH ?? ""}`,
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    WRANGLER_SEND_METRICS: "false",
    ...extra,
  };
}

function assertTempDir(dir) {
  const abs = resolve(dir);
  const tmp = resolve(tmpdir());
  if (!abs.startsWith(`${tmp}/`) || abs.split("/").length < 3) {
    throw new Error(`state directory must be under ${tmp}/ (it is deleted and recreated): ${abs}`);
  }
  return abs;
}

/** Runs a wrangler command in the snapshot directory and returns its stdout; throws on failure. */
function wranglerSync(appDir, args, { input, timeoutMs = 300_000 } = {}) {
  const r = spawnSync(join(BIN, "wrangler"), args, {
    cwd: appDir,
    env: wranglerEnv({ CI: "true" }),
    input: input ?? "",
    encoding: "utf8",
    maxBuffer: 512 * 1024 * 1024,
    timeout: timeoutMs,
  });
  if (r.error) throw r.error;
  if (r.status !== 0) {
    throw new Error(`wrangler ${args.slice(0, 3).join(" ")} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  }
  return r.stdout;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function tail(path, lines = 40) {
  try {
    return readFileSync(path, "utf8").split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

/**
 * A private wrangler dev. `fresh` (default) wipes the state directory first; `fresh: false`
 * restarts on the existing state and snapshot (e.g. after writing to D1 while it was stopped).
 *
 * @param {{
 *   stateDir: string, port: number, inspectorPort?: number, vars?: Record<string, string>,
 *   testScheduled?: boolean,
 *   logLevel?: string, fresh?: boolean, localObservability?: boolean, readyTimeoutMs?: number,
 * }} opts
 */
export async function startWorker(opts) {
  const stateDir = assertTempDir(opts.stateDir);
  const appDir = join(stateDir, "app");
  const persistDir = join(stateDir, "persist");
  const logPath = join(stateDir, "wrangler.log");
  const fresh = opts.fresh ?? true;

  if (fresh) {
    rmSync(stateDir, { recursive: true, force: true });
    mkdirSync(appDir, { recursive: true });
    for (const entry of SNAPSHOT) cpSync(join(ROOT, entry), join(appDir, entry), { recursive: true });
    symlinkSync(join(ROOT, "node_modules"), join(appDir, "node_modules"));
    wranglerSync(
      appDir,
      freshDatabaseArgs(join(appDir, "migrations"), persistDir, join(stateDir, "migrations.sql")),
    );
  } else if (!existsSync(appDir)) {
    throw new Error(`no snapshot in ${stateDir}; start with fresh: true first`);
  }

  const vars = opts.vars ?? {};
  const args = [
    "dev",
    "--ip",
    "127.0.0.1",
    "--port",
    String(opts.port),
    // Next to the port, not wrangler's fixed 9229: checkouts side by side each get their own
    // (0: any free port the system picks, for a driver that needs port + 1 for itself).
    "--inspector-port",
    String(opts.inspectorPort ?? opts.port + 1),
    "--persist-to",
    persistDir,
    "--show-interactive-dev-session=false",
    "--log-level",
    opts.logLevel ?? "warn",
    ...(opts.testScheduled ? ["--test-scheduled"] : []),
    ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
  ];
  const log = openSync(logPath, "a");
  // detached: the child leads a new process group (wrangler, its node child and both workerd
  // processes), so stop() can signal exactly that group and nothing else.
  const child = spawn(join(BIN, "wrangler"), args, {
    cwd: appDir,
    env: wranglerEnv(
      // Miniflare's local trace store (the dev "explorer") records every request and every
      // subrequest into SQLite; it is a dev-tool cost production does not have, so it is off
      // unless asked for.
      opts.localObservability ? {} : { X_LOCAL_OBSERVABILITY: "false" },
    ),
    detached: true,
    stdio: ["ignore", log, log],
  });
  let exited = null;
  const exitedPromise = new Promise((res) => {
    child.on("exit", (code, signal) => {
      exited = { code, signal };
      res(exited);
    });
  });

  const killGroup = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {}
  };
  // Never leave the dev server behind, whatever way this process ends.
  const onExit = () => {
    if (!exited) killGroup("SIGKILL");
  };
  process.on("exit", onExit);

  const baseUrl = `http://127.0.0.1:${opts.port}`;
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 120_000);
  for (;;) {
    if (exited) throw new Error(`wrangler dev exited (${JSON.stringify(exited)}):\n${tail(logPath)}`);
    if (Date.now() > deadline) {
      killGroup("SIGKILL");
      throw new Error(`wrangler dev did not answer on ${baseUrl} in time:\n${tail(logPath)}`);
    }
    try {
      const res = await fetch(`${baseUrl}/api/v1/openapi.json`, { signal: AbortSignal.timeout(5_000) });
      await res.arrayBuffer();
      if (res.ok) break;
    } catch {}
    await sleep(300);
  }

  async function stop() {
    if (exited) return;
    killGroup("SIGTERM");
    const done = await Promise.race([exitedPromise, sleep(10_000).then(() => null)]);
    // Give workerd a moment after wrangler itself, then make sure nothing of the group is left.
    if (!done) killGroup("SIGKILL");
    await sleep(500);
    killGroup("SIGKILL");
    process.off("exit", onExit);
  }

  return {
    baseUrl,
    pid: child.pid,
    stateDir,
    appDir,
    persistDir,
    logPath,
    stop,
    /** `wrangler d1 execute DB --local` on this state; stop the Worker first when writing. */
    d1: (spec) => d1Offline(stateDir, spec),
  };
}

/**
 * The URL of the runtime that runs the Worker itself, behind wrangler dev's proxy.
 *
 * `wrangler dev` runs two workerd processes: the one on --port holds wrangler's proxy worker (it
 * exists for hot reloads and is not part of a deployment), which forwards every request to a second
 * workerd that runs the Worker, its Durable Objects and the local D1 on a random loopback port.
 * On two cores the proxy costs about as much CPU as the Worker, so it flattens every ratio. This
 * finds that inner port (Linux /proc: the listening sockets of the workerd in the dev server's
 * process group that was started with `entry=127.0.0.1:0`) and returns null when it cannot.
 */
/**
 * The pid of the workerd that runs the Worker (its Durable Objects and local D1 too), or null:
 * the one in wrangler's process group that listens on a random loopback port.
 */
export function findRuntimePid(pgid) {
  if (process.platform !== "linux") return null;
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) !== pgid) continue;
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (cmd.includes("workerd") && cmd.includes("entry=127.0.0.1:0")) return Number(pid);
    } catch {}
  }
  return null;
}

/** CPU time (user + system) a process has used, in ms; null when it cannot be read. */
export function cpuTimeMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // fields 14 and 15 of stat (utime, stime), in clock ticks of 10 ms on Linux
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

export async function findRuntimeUrl(pgid) {
  if (process.platform !== "linux") return null;
  const { readlinkSync } = await import("node:fs");
  const inodes = new Set();
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) !== pgid) continue; // field 5 of stat: the process group
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (!cmd.includes("workerd") || !cmd.includes("entry=127.0.0.1:0")) continue;
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) inodes.add(m[1]);
      }
    } catch {}
  }
  const ports = [];
  for (const line of readFileSync("/proc/net/tcp", "utf8").split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    // local_address 0100007F:PORT, state 0A = LISTEN, inode in column 10
    if (f.length > 9 && f[3] === "0A" && f[1].startsWith("0100007F:") && inodes.has(f[9]))
      ports.push(Number.parseInt(f[1].split(":")[1], 16));
  }
  for (const port of ports) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/openapi.json`, {
        signal: AbortSignal.timeout(3_000),
      });
      const text = await res.text();
      if (res.ok && text.startsWith("{")) return `http://127.0.0.1:${port}`;
    } catch {}
  }
  return null;
}

/** `wrangler d1 execute DB --local --json` on a state directory; returns the parsed result array. */
export function d1Offline(stateDir, spec) {
  const dir = assertTempDir(stateDir);
  const appDir = join(dir, "app");
  const args = ["d1", "execute", "DB", "--local", "--persist-to", join(dir, "persist"), "--json"];
  if (spec.file) args.push("--file", spec.file);
  else args.push("--command", spec.command);
  const out = wranglerSync(appDir, args);
  return JSON.parse(out.slice(out.indexOf("[")));
}

/** Stops the Worker on SIGINT/SIGTERM too (exit handlers do not run on a signal by default). */
export function stopOnSignals(getWorker) {
  for (const sig of ["SIGINT", "SIGTERM"]) {
    process.once(sig, async () => {
      console.error(`\n${sig}: stopping wrangler dev…`);
      try {
        await getWorker()?.stop();
      } finally {
        process.exit(130);
      }
    });
  }
}
