import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../../src/index";

async function bench(
  path: string,
  init: RequestInit = {},
  vars: Record<string, string> = { BENCH_ROUTES: "true" },
) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`http://local.test/api/v1/_bench${path}`, init),
    { ...env, ...vars } as Env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

// The bench's references (docs/performance.md, "The baseline routes"): each answers as many bytes
// as asked, so a floor moves what the route measured against it moves.
describe("bench routes", () => {
  it("answer ?bytes= bytes of JSON: the baseline, a call to an existing object, a new object", async () => {
    for (const [path, init, status] of [
      ["/baseline?bytes=7645", {}, 200],
      ["/object/o1?bytes=1534", {}, 200],
      ["/object/o1?bytes=1534", {}, 200],
      ["/new-object?bytes=1480", { method: "POST" }, 201],
    ] as const) {
      const res = await bench(path, init);
      expect(res.status).toBe(status);
      expect(res.headers.get("content-type")).toBe("application/json");
      const text = await res.text();
      expect(new TextEncoder().encode(text).length).toBe(
        Number(new URL(path, "http://x").searchParams.get("bytes")),
      );
      expect(JSON.parse(text)).toHaveProperty("pad");
    }
  });

  it("answer like an unknown route when BENCH_ROUTES is not true", async () => {
    const res = await bench("/object/o1?bytes=100", {}, {});
    expect(res.status).toBe(404);
    expect(((await res.json()) as { code: string }).code).toBe("not_found");
  });
});
