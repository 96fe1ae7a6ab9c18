// Starts what every browser test file shares, once for the whole `browser` project: the Worker in
// `wrangler dev` and Chromium. The files run one after another and each makes its own partner, so
// one server serves them all; starting one per file cost a wrangler build, a migration run and a
// browser launch each (docs/performance.md, "Test-suite time").
//
// Vitest runs every project's global setup before the first test file of any project, and the
// browser files run last, so both start in the background: the workers files do not wait for them,
// and the browser files wait until they answer (harness.ts, `serverReady`).
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import type { TestProject } from "vitest/node";
import { ARTIFACTS, CHROMIUM_WS, launchBrowserServer, STARTUP_ERROR, startWorker } from "./processes";

declare module "vitest" {
  export interface ProvidedContext {
    chromiumWsEndpoint: string;
  }
}

export default function setup(project: TestProject): () => Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  rmSync(STARTUP_ERROR, { force: true });
  project.provide("chromiumWsEndpoint", CHROMIUM_WS);
  const failed = (err: unknown) => {
    writeFileSync(STARTUP_ERROR, String(err instanceof Error ? (err.stack ?? err) : err));
    return null;
  };
  const browser = launchBrowserServer().catch(failed);
  // The orders test follows an order to `completed` in the page: the chain is polled every second.
  // The tracking page's stream test needs streams that drop soon (track-stream.test.ts).
  const worker = startWorker({
    CHAIN_POLL_SECONDS: "1",
    RETRY_BASE_SECONDS: "1",
    STREAM_MAX_CONNECTION_SECONDS: "3",
  }).catch(failed);
  return async () => {
    await (await browser)?.close();
    await (await worker)?.stop();
  };
}
