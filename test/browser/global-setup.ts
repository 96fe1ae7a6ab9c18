// Starts what every browser test file shares, once for the whole `browser` project: the Worker in
// `wrangler dev` and Chromium. The files run one after another and each makes its own partner, so
// one server serves them all; starting one per file cost a wrangler build, a migration run and a
// browser launch each (docs/performance.md, "Test-suite time").
import { mkdirSync } from "node:fs";
import type { TestProject } from "vitest/node";
import { ARTIFACTS, launchBrowserServer, startWorker } from "./processes";

declare module "vitest" {
  export interface ProvidedContext {
    chromiumWsEndpoint: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const browser = await launchBrowserServer();
  try {
    // The orders test follows an order to `completed` in the page: the chain is polled every second.
    const worker = await startWorker({ CHAIN_POLL_SECONDS: "1", RETRY_BASE_SECONDS: "1" });
    project.provide("chromiumWsEndpoint", browser.wsEndpoint());
    return async () => {
      await browser.close();
      await worker.stop();
    };
  } catch (err) {
    await browser.close();
    throw err;
  }
}
