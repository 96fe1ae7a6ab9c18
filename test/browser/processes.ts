// The processes behind the browser tests, started once for the whole `browser` project by
// ./global-setup.ts: one `wrangler dev` (fresh local state, migrated) and one Chromium.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import sparticuz from "@sparticuz/chromium";
import { type BrowserServer, chromium } from "playwright-core";
import { freshDatabaseArgs } from "../../scripts/lib/migrations.mjs";

// Overridable so several checkouts on one machine can run the browser tests at once.
export const PORT = Number(process.env.BROWSER_TEST_PORT ?? 8741);
const INSPECTOR_PORT = Number(process.env.BROWSER_TEST_INSPECTOR_PORT ?? 9240);
/** The local webhook receiver of the webhooks test (a plain Node server on 127.0.0.1). */
export const RECEIVER_PORT = Number(process.env.BROWSER_TEST_RECEIVER_PORT ?? 8743);
export const ORIGIN = `http://localhost:${PORT}`;
/** Chromium's server listens on a known port and path, so its endpoint is known before it starts. */
const CHROMIUM_PORT = Number(process.env.BROWSER_TEST_CHROMIUM_PORT ?? PORT + 3);
export const CHROMIUM_WS = `ws://127.0.0.1:${CHROMIUM_PORT}/chromium`;
export const ADMIN_TOKEN = "browser-test-admin-token";
export const ARTIFACTS = join(process.cwd(), "test-artifacts", "cabinet");
/** Where the global setup writes why `wrangler dev` or Chromium could not start. */
export const STARTUP_ERROR = join(ARTIFACTS, "startup-error.txt");

const ENV = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", CI: "1" };

export interface Server {
  stop(): Promise<void>;
}

/** `vars` are extra `--var NAME:value` settings. */
export async function startWorker(vars: Record<string, string> = {}): Promise<Server> {
  // Asynchronous, both: the global setup starts this in the background, and a synchronous spawn
  // held the whole Vitest process, the unit files before the browser files too, for as long as it
  // ran (about a minute of migrations beside the workers files, before scripts/lib/migrations.mjs).
  // The page script is bundled at install time; rebuild it so a changed src/client is what runs.
  await run("cabinet assets build", process.execPath, ["scripts/build-cabinet-assets.mjs"]);
  const state = mkdtempSync(join(tmpdir(), "cabinet-browser-"));
  await run("migrations", "npx", [
    "wrangler",
    ...freshDatabaseArgs("migrations", state, join(state, "migrations.sql")),
  ]);
  const child: ChildProcess = spawn(
    "npx",
    [
      "wrangler",
      "dev",
      "--port",
      String(PORT),
      "--ip",
      "127.0.0.1",
      "--inspector-port",
      String(INSPECTOR_PORT),
      "--persist-to",
      state,
      // GET /__scheduled runs the cron now (the status page's test judges the service with it).
      "--test-scheduled",
      "--var",
      `ADMIN_TOKEN:${ADMIN_TOKEN}`,
      "--var",
      `CABINET_ORIGIN:${ORIGIN}`,
      ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
    ],
    { env: ENV, stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  let log = "";
  child.stdout?.on("data", (d) => (log += d));
  child.stderr?.on("data", (d) => (log += d));
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited: ${log.slice(-2000)}`);
    try {
      const res = await fetch(`${ORIGIN}/cabinet/sign-in`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`wrangler dev did not start: ${log.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 300));
  }
  return {
    async stop() {
      // The whole process group: npx → wrangler → workerd. It may be gone already (the test
      // runner's own shutdown can take it first): that is the state we want, not an error.
      try {
        if (child.pid) process.kill(-child.pid, "SIGTERM");
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ESRCH") throw err;
      }
      await new Promise((r) => setTimeout(r, 300));
      rmSync(state, { recursive: true, force: true });
    },
  };
}

const execFileAsync = promisify(execFile);

async function run(what: string, command: string, args: string[]): Promise<void> {
  try {
    await execFileAsync(command, args, { env: ENV, maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    throw new Error(`${what} failed: ${(err as { stderr?: string }).stderr || String(err)}`);
  }
}

// @sparticuz/chromium's defaults are for Lambda: one process and no web security. One process
// mixes up cookies between browser contexts, and no web security would hide exactly the
// cross-origin rules the cabinet relies on, so both go.
const UNWANTED = /^--(single-process|disable-web-security|allow-running-insecure-content|headless)/;
const launchArgs = () => sparticuz.args.filter((a) => !UNWANTED.test(a));

/** Chromium as a server: each test file connects to it (harness.ts, `browserSession`). */
export async function launchBrowserServer(): Promise<BrowserServer> {
  try {
    const executablePath = process.env.CHROMIUM_PATH ?? (await sparticuz.executablePath());
    return await chromium.launchServer({
      executablePath,
      args: launchArgs(),
      headless: true,
      host: "127.0.0.1",
      port: CHROMIUM_PORT,
      wsPath: "/chromium",
    });
  } catch (err) {
    throw new Error(
      `No Chromium could start (${String(err).split("\n")[0]}): set CHROMIUM_PATH to a Chrome/Chromium binary.`,
    );
  }
}
