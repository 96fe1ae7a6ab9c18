import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { validateAddress } from "../../../src/domain/addresses";
import worker from "../../../src/index";
import { call, createPartner, expectError, json } from "../../helpers";

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

/** Bound in wrangler.toml, optional in the Env type (production does not bind it). */
function benchObjects(): NonNullable<Env["BENCH_OBJECTS"]> {
  const ns = env.BENCH_OBJECTS;
  if (!ns) throw new Error("BENCH_OBJECTS is not bound");
  return ns;
}

// The bench's references (docs/performance.md, "References"): each answers as many bytes
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

  it("a new object that also derives a BTC deposit address keeps one, a different one per object", async () => {
    const xpub = (env as unknown as Record<string, string>).DEPOSIT_XPUB_BTC as string;
    const addresses = new Set<string>();
    for (const name of ["with-address-1", "with-address-2"]) {
      const stub = benchObjects().getByName(name);
      await stub.create(Date.now(), xpub);
      const row = await runInDurableObject(stub, (_o, state) =>
        state.storage.kv.get<{ address?: string }>("row"),
      );
      expect(row?.address).toMatch(/^bc1q/);
      expect(validateAddress("BTC", row?.address ?? "").ok).toBe(true);
      addresses.add(row?.address ?? "");
    }
    expect(addresses.size).toBe(2);
    const plain = benchObjects().getByName("without-address");
    await plain.create(Date.now());
    expect(await runInDurableObject(plain, (_o, state) => state.storage.kv.get("row"))).not.toHaveProperty(
      "address",
    );
    // Through the route, and a kind it cannot derive refused.
    expect((await bench("/new-object?bytes=100&address=btc", { method: "POST" })).status).toBe(201);
    await expectError(
      await bench("/new-object?bytes=100&address=eth", { method: "POST" }),
      400,
      "invalid_request",
    );
  });

  it("the keyed call runs behind the key, the partner's limiter and its request log", async () => {
    await expectError(await bench("/keyed-object/k1?bytes=300"), 401, "invalid_api_key");
    const p = await createPartner({ name: "bench-keyed" });
    const res = await bench("/keyed-object/k1?bytes=300", { headers: { authorization: `Bearer ${p.key}` } });
    expect(res.status).toBe(200);
    expect(new TextEncoder().encode(await res.text()).length).toBe(300);
    expect(res.headers.get("ratelimit-policy")).toMatch(/^"partner";q=\d+;w=60$/);
    // bench() waited for the request's background work, the log's write included.
    const logs = await call("/api/v1/partner/logs", { headers: { authorization: `Bearer ${p.key}` } });
    const page = await json<{ data: { path: string; status: number }[] }>(logs);
    expect(page.data).toContainEqual(
      expect.objectContaining({ path: "/api/v1/_bench/keyed-object/k1", status: 200 }),
    );
  });

  it("answer like an unknown route when BENCH_ROUTES is not true", async () => {
    const res = await bench("/object/o1?bytes=100", {}, {});
    expect(res.status).toBe(404);
    expect(((await res.json()) as { code: string }).code).toBe("not_found");
  });
});
