// Checks test/support/msw.ts itself, so other adapter tests can rely on it, and the test runtime's
// refusal of any request that leaves a test unmocked.
import { delay, HttpResponse, http } from "msw";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createMockNetwork } from "../../support/msw";

const URL_A = "https://api.example.test/a";

describe("createMockNetwork (MSW in workerd via an injected fetch)", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("answers from MSW handlers and records each request", async () => {
    const net = createMockNetwork(
      http.get(URL_A, ({ request }) => HttpResponse.json({ q: new URL(request.url).searchParams.get("q") })),
      http.post(URL_A, async ({ request }) => HttpResponse.json(await request.json(), { status: 201 })),
    );
    const got = await net.fetch(`${URL_A}?q=1`);
    expect(await got.json()).toEqual({ q: "1" });
    const posted = await net.fetch(URL_A, { method: "POST", body: JSON.stringify({ x: 1 }) });
    expect(posted.status).toBe(201);
    expect(await posted.json()).toEqual({ x: 1 });
    expect(net.requests.map((r) => [r.method, r.url, r.body])).toEqual([
      ["GET", `${URL_A}?q=1`, ""],
      ["POST", URL_A, '{"x":1}'],
    ]);
  });

  it("use() overrides, reset() restores and clears the logs", async () => {
    const net = createMockNetwork(http.get(URL_A, () => HttpResponse.text("base")));
    net.use(http.get(URL_A, () => HttpResponse.text("override")));
    expect(await (await net.fetch(URL_A)).text()).toBe("override");
    net.reset();
    expect(net.requests).toEqual([]);
    expect(await (await net.fetch(URL_A)).text()).toBe("base");
  });

  it("rejects unhandled requests like a network failure and lists them", async () => {
    const net = createMockNetwork();
    await expect(net.fetch("https://nowhere.test/x")).rejects.toThrow(TypeError);
    expect(net.unhandled).toEqual(["GET https://nowhere.test/x"]);
  });

  it("HttpResponse.error() is a network error", async () => {
    const net = createMockNetwork(http.get(URL_A, () => HttpResponse.error()));
    await expect(net.fetch(URL_A)).rejects.toThrow();
  });

  it("honours AbortSignal.timeout with a TimeoutError", async () => {
    const net = createMockNetwork(
      http.get(URL_A, async () => {
        await delay(300);
        return HttpResponse.text("late");
      }),
    );
    const err = await net.fetch(URL_A, { signal: AbortSignal.timeout(20) }).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: "TimeoutError" });
    const aborted = new AbortController();
    aborted.abort();
    await expect(net.fetch(URL_A, { signal: aborted.signal })).rejects.toMatchObject({ name: "AbortError" });
  });

  it("can stand in for the global fetch with vi.stubGlobal", async () => {
    const net = createMockNetwork(http.get(URL_A, () => HttpResponse.text("stubbed")));
    vi.stubGlobal("fetch", net.fetch);
    expect(await (await fetch(URL_A)).text()).toBe("stubbed");
  });
});

describe("the test runtime's network", () => {
  it("answers a request no mock took 503 itself, never sending it (vitest.config.ts, outboundService)", async () => {
    // The global fetch, unstubbed: what an alarm firing after its file's stub was removed would use.
    const res = await fetch("https://hooks.wallet.example/escaped", { method: "POST", body: "{}" });
    expect(res.status).toBe(503);
    expect(await res.text()).toBe("no network in tests");
  });
});
