import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// Two projects: the Worker's tests inside workerd, and the cabinet's browser tests (Chromium via
// playwright-core against one `wrangler dev`, test/browser/).
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
                // Deterministic prices: tests set them with PUT /admin/v1/prices (see test/helpers.ts).
                PRICE_SOURCE: "static",
                TEST_MIGRATIONS: await readD1Migrations("./migrations"),
                // The fuzz suite's depth (test/fuzz/api-fuzz.test.ts); unset: its quick default.
                FUZZ_RUNS: process.env.FUZZ_RUNS ?? "",
              },
            },
          }),
        ],
        test: {
          name: "workers",
          include: ["test/**/*.test.ts"],
          exclude: ["test/browser/**"],
          // Each file gets its own workerd and storage (the plugin's default isolation). Sharing one
          // workerd with a hand-made wipe per file was tried on 2026-11-23 and ran slower end to
          // end here: the wipe and module reload cost more than the startup they saved
          // (docs/performance.md, "Test-suite time").
          setupFiles: ["./test/setup/apply-migrations.ts"],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: "browser",
          include: ["test/browser/**/*.test.ts"],
          environment: "node",
          // One `wrangler dev` and one Chromium for all files (test/browser/global-setup.ts); the
          // files run one after another against them.
          globalSetup: ["./test/browser/global-setup.ts"],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
}));
