#!/usr/bin/env node
// `npm test`: the workerd files (project workers) in one Vitest process, and beside it the Node
// files (unit) then the browser files in another. Vitest runs a project whose files go one at a
// time (the browser files share one `wrangler dev` and one Chromium) in a group of its own after
// every other file, so in one process the ≈ 2 minutes of browser files waited for the workers
// files. Those keep about one core of two busy (they wait on module fetches and RPC round trips
// more than they compute), so the browser files run in the other core's idle time instead. The unit
// files go first in the browser's process, while its `wrangler dev` and Chromium start, instead of
// after the last workers file. Arguments are passed to both runs, and the exit status is the worse
// of the two. docs/performance.md, "Test-suite time".
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const vitest = join(dirname(createRequire(import.meta.url).resolve("vitest/package.json")), "vitest.mjs");
const extra = process.argv.slice(2);
// `npm test -- test/http/orders.test.ts`: a filter names files of one process only, and the other
// must not fail for finding none of its own.
const filters = extra.length > 0 ? ["--passWithNoTests"] : [];

function run(projects) {
  const args = [vitest, "run", ...projects.flatMap((p) => ["--project", p]), ...filters, ...extra];
  const child = spawn(process.execPath, args, { stdio: "inherit" });
  return new Promise((resolve) => {
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const codes = await Promise.all([run(["workers"]), run(["unit", "browser"])]);
process.exit(Math.max(...codes));
