// withTimeout (src/adapters/http-client.ts): the payout gateway, venue and provider adapters' timeout.
import { delay, HttpResponse, http } from "msw";
import { afterEach, describe, expect, it, vi } from "vitest";
import { withTimeout } from "../../../src/adapters/http-client";
import { createMockNetwork } from "../../support/msw";

const URL_A = "https://api.example.test/a";

describe("withTimeout", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("aborts an exchange that outlasts it with a TimeoutError, as AbortSignal.timeout does", async () => {
    const net = createMockNetwork(
      http.get(URL_A, async () => {
        await delay(300);
        return HttpResponse.text("late");
      }),
    );
    const err = await withTimeout(20, (signal) => net.fetch(URL_A, { signal })).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: "TimeoutError" });
  });

  it("leaves no timer behind once the exchange settles, answered or failed (a pending one keeps a Durable Object from eviction)", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const net = createMockNetwork(http.get(URL_A, () => HttpResponse.text("ok")));
    const text = await withTimeout(15_000, async (signal) => (await net.fetch(URL_A, { signal })).text());
    expect(text).toBe("ok");
    expect(vi.getTimerCount()).toBe(0);
    await expect(withTimeout(15_000, () => Promise.reject(new Error("refused")))).rejects.toThrow("refused");
    expect(vi.getTimerCount()).toBe(0);
  });
});
