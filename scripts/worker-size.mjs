// The Worker's script size, measured on what a deploy would upload (docs/performance.md, "Worker
// size"): `wrangler deploy --dry-run --outdir` for the production environment, gzip of its main
// module. Part of `npm run lint`, so CI fails when the script grows past the limit.
//
//   node scripts/worker-size.mjs             size check; exit 1 above --max-kib (700)
//   node scripts/worker-size.mjs --startup   also profile the script's startup in a local
//                                            workerd (`wrangler check startup`) and print its CPU
//   node scripts/worker-size.mjs --json      one JSON line instead of text
//
// Static files are Workers Static Assets (public/, scripts/lib/static-assets.mjs) and count
// toward neither figure; a file that should be one but is imported into the script shows here.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";

const { values: args } = parseArgs({
  options: {
    "max-kib": { type: "string", default: "700" },
    startup: { type: "boolean", default: false },
    json: { type: "boolean", default: false },
  },
});
const ROOT = fileURLToPath(new URL("..", import.meta.url));
// The Node running this script (npm puts the project's own, `node` in devDependencies, first).
const WRANGLER = join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");
const env = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };

function wrangler(argv) {
  const run = spawnSync(process.execPath, [WRANGLER, ...argv], {
    cwd: ROOT,
    env,
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });
  if (run.status !== 0) {
    process.stderr.write(run.stdout + run.stderr);
    throw new Error(`wrangler ${argv[0]} ${argv[1] ?? ""} failed (exit ${run.status})`);
  }
  return run.stdout;
}

const outdir = mkdtempSync(join(tmpdir(), "worker-size-"));
try {
  wrangler(["deploy", "--dry-run", "--env", "production", "--outdir", outdir]);
  const script = readFileSync(join(outdir, "index.js"));
  const kib = (n) => n / 1024;
  const result = {
    raw_kib: Number(kib(script.length).toFixed(1)),
    // Level 6 (zlib's default) reproduces the "gzip:" figure wrangler prints for an upload.
    gzip_kib: Number(kib(gzipSync(script, { level: 6 }).length).toFixed(1)),
    max_gzip_kib: Number(args["max-kib"]),
  };
  if (args.startup) {
    // wrangler's own summary of the profile: "Active: 357.0 ms (including 76.9 ms garbage collection)".
    const out = wrangler([
      "check",
      "startup",
      "--env",
      "production",
      "--outfile",
      join(outdir, "startup.cpuprofile"),
    ]);
    const active = out.match(/Active: ([\d.]+) ms \(including ([\d.]+) ms garbage/);
    if (!active) throw new Error(`no "Active:" line in wrangler check startup's output:\n${out}`);
    Object.assign(result, { startup_cpu_ms: Number(active[1]), startup_gc_ms: Number(active[2]) });
  }
  if (args.json) console.log(JSON.stringify(result));
  else {
    console.log(
      `Worker script: ${result.raw_kib} KiB raw, ${result.gzip_kib} KiB gzip (limit ${result.max_gzip_kib} KiB gzip)`,
    );
    if (args.startup)
      console.log(
        `Startup (local workerd, indicative): ${result.startup_cpu_ms} ms CPU of which ${result.startup_gc_ms} ms GC`,
      );
  }
  if (result.gzip_kib > result.max_gzip_kib) {
    console.error(
      `Worker script is ${result.gzip_kib} KiB gzip, above the ${result.max_gzip_kib} KiB limit: serve large static files as assets (scripts/lib/static-assets.mjs) instead of importing them.`,
    );
    process.exitCode = 1;
  }
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
