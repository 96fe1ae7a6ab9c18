import { accessSync, constants, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

/**
 * Miniflare keeps each workers file's Durable Object SQLite (and the browser project's `wrangler
 * dev` its local state) under `os.tmpdir()`, and SQLite syncs every write; on a disk that is a
 * large share of the suite's time (docs/performance.md, "Test-suite time"). On Linux the run's
 * temporary files go to a directory of its own on tmpfs unless TMPDIR is already set. Miniflare
 * removes each file's directory when the file ends; this removes the run's directory when Vitest
 * exits, and those of earlier runs whose process is gone (killed before its exit handler ran).
 */
function temporaryFilesOnTmpfs(): void {
  const shm = "/dev/shm";
  if (process.platform !== "linux" || process.env.TMPDIR) return;
  try {
    if (!statSync(shm).isDirectory()) return;
    accessSync(shm, constants.W_OK);
  } catch {
    return;
  }
  for (const name of readdirSync(shm)) {
    const pid = Number(/^vitest-tmp-(\d+)-/.exec(name)?.[1]);
    if (pid && !running(pid)) removeQuietly(join(shm, name));
  }
  const dir = mkdtempSync(join(shm, `vitest-tmp-${process.pid}-`));
  process.env.TMPDIR = dir;
  process.on("exit", () => removeQuietly(dir));
}

/** Another user's leftover is theirs to remove (tmpfs has the sticky bit). */
function removeQuietly(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    // not ours
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

temporaryFilesOnTmpfs();

/** The packages (and subpaths) src/ and test/ import inside workerd; see `deps` below. */
const PREBUNDLED = [
  "zod",
  "@hono/zod-openapi",
  "hono",
  ...["body-limit", "bearer-auth", "cookie", "cors", "factory", "html", "http-exception", "request-id"].map(
    (p) => `hono/${p}`,
  ),
  "hono/utils/http-status",
  "@scure/base",
  "@scure/bip32",
  "@scure/bip39",
  ...["hmac", "legacy", "sha2", "sha3", "utils"].map((p) => `@noble/hashes/${p}.js`),
  ...["ed25519", "nist", "secp256k1", "utils"].map((p) => `@noble/curves/${p}.js`),
  "@simplewebauthn/server",
  "@simplewebauthn/server/helpers",
  "jose",
  "uqr",
  "decimal.js",
  // test-only
  "msw",
  "fast-check",
];

/**
 * Domain logic's test files run without workerd (project `unit`), except two that need it (the
 * Worker's bindings or modules); they stay in `workers`.
 */
const UNIT = ["test/domain/**/*.test.ts", "test/lib/**/*.test.ts", "test/docs/**/*.test.ts"];
const DOMAIN_IN_WORKERD = ["test/domain/addresses-derive.test.ts", "test/domain/in-workerd.test.ts"];

// Three projects: the Worker's tests inside workerd, plain functions' in Node (above), and the
// cabinet's browser tests (Chromium via playwright-core against one `wrangler dev`, test/browser/).
export default defineConfig(async () => ({
  test: {
    projects: [
      {
        plugins: [
          cloudflareTest({
            remoteBindings: false,
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings: {
                ADMIN_TOKEN: "test-admin-token",
                // Signs Ledger swap payloads in tests (docs/ledger.md); a key for tests only.
                LEDGER_SIGNING_KEY: "7d1c3a9e5b2f48c0a6e1d4b7f39c2e8a0b5d6f1e2c3a4b5c6d7e8f9a0b1c2d3e",
                // Deterministic prices: tests set them with PUT /admin/v1/prices (see test/helpers.ts).
                PRICE_SOURCE: "static",
                TEST_MIGRATIONS: await readD1Migrations("./migrations"),
                // The fuzz suite's depth (test/fuzz/api-fuzz.test.ts); unset: its quick default.
                FUZZ_RUNS: process.env.FUZZ_RUNS ?? "",
                // The chaos and venue fault runs' order count (test/support/orders.ts, chaosOrders).
                CHAOS_ORDERS: process.env.CHAOS_ORDERS ?? "",
                // Stream connection limits (docs/events.md) small enough to reach in a test.
                STREAM_CONNECTIONS_PER_KEY: "5",
                STREAM_CONNECTIONS_PER_IP: "5",
              },
              // No network at test time, whatever the code under test does: a request that leaves
              // the Worker unmocked (the global fetch when no test stubs it, e.g. a webhook retry
              // whose alarm fires after its file's last test) is answered here, never sent. It is
              // logged, so that a test missing a mock shows up.
              outboundService: (request: Request) => {
                console.warn(`outbound request in a test, not sent: ${request.method} ${request.url}`);
                return new Response("no network in tests", { status: 503 });
              },
            },
          }),
        ],
        test: {
          name: "workers",
          include: ["test/*.test.ts", "test/!(browser|docs|domain|lib)/**/*.test.ts", ...DOMAIN_IN_WORKERD],
          // Each file gets its own workerd and storage (the plugin's default isolation). Sharing one
          // workerd with a hand-made wipe per file was tried on 2026-11-23 and ran slower end to
          // end here: the wipe and module reload cost more than the startup they saved
          // (docs/performance.md, "Test-suite time").
          setupFiles: ["./test/setup/apply-migrations.ts"],
          // Two files at a time on 2 cores: Vitest's default (one worker fewer than cores) ran them one
          // after another with one core mostly idle.
          maxWorkers: "100%",
          // Every file imports the whole Worker (~700 modules, 500 of them from node_modules, each
          // fetched from Vite one by one). Prebundling the packages the Worker imports cuts that to
          // ~240 per file. List every subpath the code imports: a subpath left out loads unbundled
          // beside the bundle, a second copy of the package's modules. (Vite leaves hono's JSX
          // runtime out of the bundles; it shares only hono/utils/html, which holds no state.)
          deps: { optimizer: { ssr: { enabled: true, include: PREBUNDLED } } },
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        // Plain functions (src/domain, src/lib) tested without workerd: a file here starts in well
        // under a second, where a workers file starts a workerd and loads the whole Worker.
        test: {
          name: "unit",
          include: UNIT,
          exclude: DOMAIN_IN_WORKERD,
          environment: "node",
          // Two at a time, as `workers` (projects of one group must agree), so these files run in
          // the first group of their process instead of a one-at-a-time group after every other.
          maxWorkers: "100%",
        },
      },
      {
        test: {
          name: "browser",
          include: ["test/browser/**/*.test.ts", "integrations/*/test/**/*.test.ts"],
          environment: "node",
          // One `wrangler dev` and one Chromium for all files, started in the background by
          // test/browser/global-setup.ts; the files run one after another against them.
          globalSetup: ["./test/browser/global-setup.ts"],
          fileParallelism: false,
          // After the unit files when they share a process (`npm test`, scripts/test.mjs): those
          // run while `wrangler dev` and Chromium start.
          sequence: { groupOrder: 1 },
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // A page answers within a second on a quiet machine; on a loaded CI runner a debounced
          // check or a saved notice can take several. 1 s (Vitest's default) made them flaky.
          expect: { poll: { timeout: 10_000 } },
        },
      },
    ],
  },
}));
