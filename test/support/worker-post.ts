import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { vi } from "vitest";
import worker from "../../src/index";
import { freshIp } from "../helpers";
import type { MockNetwork } from "./msw";

/**
 * A keyed JSON POST straight to the Worker with `vars` over the test env (settings the pool's
 * bindings cannot change per test, e.g. live real readers), outbound HTTP answered by `net`.
 */
export async function postToWorker(
  net: MockNetwork,
  path: string,
  body: unknown,
  key: string,
  vars: Record<string, string> = {},
): Promise<Response> {
  vi.stubGlobal("fetch", net.fetch);
  try {
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(`http://local.test${path}`, {
        method: "POST",
        body: JSON.stringify(body),
        headers: {
          Authorization: `Bearer ${key}`,
          "content-type": "application/json",
          "CF-Connecting-IP": freshIp(),
        },
      }),
      { ...env, ...vars } as unknown as Env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    return res;
  } finally {
    vi.unstubAllGlobals();
  }
}
