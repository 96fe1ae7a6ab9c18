// `npm run dev`: local API on http://localhost:8787 with seeded data and no network.
// 1. .dev.vars (dev secrets) from .dev.vars.example when missing;
// 2. local D1 migrations (schema + seed catalog);
// 3. wrangler dev, with any extra arguments passed through (`npm run dev -- --port 8788`);
// 4. the cron: wrangler dev never fires the Worker's scheduled handler, so this triggers it once a
//    minute (as `crons = ["* * * * *"]` does in production), the first as soon as the server answers.
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freshDatabaseArgs } from "./lib/migrations.mjs";

const env = {
  ...process.env,
  // Miniflare otherwise downloads cf.json for request.cf; wrangler otherwise sends telemetry.
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_SEND_METRICS: "false",
};

const firstStart = !existsSync(".wrangler/state");
if (!existsSync(".dev.vars")) {
  copyFileSync(".dev.vars.example", ".dev.vars");
  console.log("Created .dev.vars from .dev.vars.example (dev ADMIN_TOKEN).");
}

/**
 * Runs wrangler with its output captured: shown only when it fails (a first start's database
 * build prints a JSON result per statement, about 1,150 lines before the hint below).
 */
const runQuietly = (args, extraEnv = {}) => {
  const r = spawnSync("wrangler", args, {
    stdio: ["inherit", "pipe", "pipe"],
    env: { ...env, ...extraEnv },
    shell: false,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error) throw r.error;
  if (r.status !== 0) process.stderr.write(`${r.stdout}${r.stderr}`);
  return r.status ?? 1;
};

const extra = process.argv.slice(2);
const persist = extra.find((a) => a.startsWith("--persist-to"));
const migrateArgs = ["d1", "migrations", "apply", "DB", "--local"];
if (persist)
  migrateArgs.push(...(persist.includes("=") ? [persist] : [persist, extra[extra.indexOf(persist) + 1]]));
// A first start builds the database from every migration in one run (scripts/lib/migrations.mjs:
// seconds, where `migrations apply` takes about half a minute); later starts apply what is new.
const fresh = firstStart && !persist;
const migrate = fresh
  ? freshDatabaseArgs("migrations", ".wrangler/state", join(tmpdir(), `dev-migrations-${process.pid}.sql`))
  : migrateArgs;
// CI=1: wrangler otherwise stops at "About to apply N migration(s)… continue?" on a terminal.
if (runQuietly(migrate, { CI: "1" }) !== 0) process.exit(1);
console.log(
  fresh
    ? `Local database created with all ${readdirSync("migrations").filter((n) => n.endsWith(".sql")).length} migrations.`
    : "Local database: migrations applied (`npx wrangler d1 migrations list DB --local` lists them).",
);

const portArg = extra.find((a) => a.startsWith("--port"));
const port = portArg?.includes("=")
  ? portArg.split("=")[1]
  : portArg
    ? extra[extra.indexOf(portArg) + 1]
    : "8787";

if (firstStart) {
  console.log(`
First start: the API will be on http://localhost:${port} with the seeded catalog.
Create a partner and an API key with the operator CLI (it reads ADMIN_TOKEN from .dev.vars):
  npm run cli -- partner create --name demo
  npm run cli -- key create <partner_id>        # prints the key once
Then: curl -H "Authorization: Bearer <key>" http://localhost:${port}/api/v1/partner/orders/<id>
`);
}

// --test-scheduled: wrangler's "scheduled Workers are not triggered" warning would be wrong here.
const dev = spawn("wrangler", ["dev", "--test-scheduled", ...extra], { stdio: "inherit", env, shell: false });
const cron = everyMinute(`http://localhost:${port}/cdn-cgi/local/scheduled`);
// Ctrl-C reaches wrangler too (one process group); this process ends when wrangler has.
process.on("SIGINT", () => {});
process.on("SIGTERM", () => dev.kill("SIGTERM"));
dev.on("exit", (code) => {
  cron.stop();
  process.exit(code ?? 1);
});

/** Fires the scheduled handler at `url` every minute; until the server first answers, every 2 s. */
function everyMinute(url) {
  let timer;
  let started = false;
  const tick = async () => {
    try {
      const res = await fetch(url);
      if (res.ok && !started) {
        started = true;
        console.log(`Cron: the scheduled handler runs once a minute (${url}).`);
      }
    } catch {
      // Not listening yet, or restarting after an edit.
    }
    timer = setTimeout(tick, started ? 60_000 : 2_000);
  };
  timer = setTimeout(tick, 2_000);
  return { stop: () => clearTimeout(timer) };
}
