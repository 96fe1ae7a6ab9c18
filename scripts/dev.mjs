// `npm run dev`: local API on http://localhost:8787 with seeded data and no network.
// 1. .dev.vars (dev secrets) from .dev.vars.example when missing;
// 2. local D1 migrations (schema + seed catalog);
// 3. wrangler dev, with any extra arguments passed through (`npm run dev -- --port 8788`).
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync } from "node:fs";
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

const run = (args, extraEnv = {}) => {
  const r = spawnSync("wrangler", args, { stdio: "inherit", env: { ...env, ...extraEnv }, shell: false });
  if (r.error) throw r.error;
  return r.status ?? 1;
};

const extra = process.argv.slice(2);
const persist = extra.find((a) => a.startsWith("--persist-to"));
const migrateArgs = ["d1", "migrations", "apply", "DB", "--local"];
if (persist)
  migrateArgs.push(...(persist.includes("=") ? [persist] : [persist, extra[extra.indexOf(persist) + 1]]));
// A first start builds the database from every migration in one run (scripts/lib/migrations.mjs:
// seconds, where `migrations apply` takes about half a minute); later starts apply what is new.
const migrate =
  firstStart && !persist
    ? freshDatabaseArgs("migrations", ".wrangler/state", join(tmpdir(), `dev-migrations-${process.pid}.sql`))
    : migrateArgs;
// CI=1: wrangler otherwise stops at "About to apply N migration(s)… continue?" on a terminal.
if (run(migrate, { CI: "1" }) !== 0) process.exit(1);

if (firstStart) {
  const portArg = extra.find((a) => a.startsWith("--port"));
  const port = portArg?.includes("=")
    ? portArg.split("=")[1]
    : portArg
      ? extra[extra.indexOf(portArg) + 1]
      : "8787";
  console.log(`
First start: the API will be on http://localhost:${port} with the seeded catalog.
Create a partner and an API key with the operator CLI (it reads ADMIN_TOKEN from .dev.vars):
  npm run cli -- partner create --name demo
  npm run cli -- key create <partner_id>        # prints the key once
Then: curl -H "Authorization: Bearer <key>" http://localhost:${port}/api/v1/partner/orders/<id>
`);
}

process.exit(run(["dev", ...extra]));
