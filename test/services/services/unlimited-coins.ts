import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { getConfig } from "../../../src/config";
import type { OrderDraft } from "../../../src/domain/order";
import { reserveLiquidity } from "../../../src/services/liquidity";
import { forgetUnlimited, knownUnlimited, rememberUnlimited } from "../../../src/services/unlimited-coins";

describe("coins known to be unlimited, per isolate", () => {
  // Inside the describe: this module shares its test file with others (../services.test.ts).
  afterEach(() => {
    vi.useRealTimers();
  });

  it("remembers for at most 5 s and never past the shard's own answer; forgets a coin in every region", () => {
    rememberUnlimited("AAA:NET:eu", 1_000 + 60_000, 1_000);
    rememberUnlimited("AAA:NET:na", 1_000 + 2_000, 1_000);
    rememberUnlimited("AAAB:NET:eu", 1_000 + 60_000, 1_000);
    expect(knownUnlimited("AAA:NET:eu", 5_999)).toBe(true);
    expect(knownUnlimited("AAA:NET:eu", 6_000)).toBe(false);
    expect(knownUnlimited("AAA:NET:na", 2_999)).toBe(true);
    expect(knownUnlimited("AAA:NET:na", 3_000)).toBe(false);
    forgetUnlimited("AAA", "NET");
    expect(knownUnlimited("AAA:NET:eu", 1_001)).toBe(false);
    expect(knownUnlimited("AAAB:NET:eu", 1_001)).toBe(true);
  });

  it("a creation for an unlimited coin asks its shard once per 5 s, not once per order", async () => {
    let asked = 0;
    const shards = env.LIQUIDITY_SHARDS;
    const counting = new Proxy(shards, {
      get(target, prop) {
        if (prop === "get") asked++;
        const v = Reflect.get(target, prop);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
    const e = { ...env, LIQUIDITY_SHARDS: counting } as Env;
    const draft = (id: string) =>
      ({
        id,
        coinTo: "LTC",
        networkTo: "LTC",
        amountToExpected: "1",
        rateQuoted: "1",
        rateType: "float",
      }) as OrderDraft;
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-11-23T12:00:00Z"));
    for (let i = 0; i < 3; i++) {
      expect(
        (await reserveLiquidity(e, getConfig(env), draft(`o${i}`), "unlimited-test")).liquidityRegion,
      ).toBe("unlimited-test");
    }
    expect(asked).toBe(1);
    vi.setSystemTime(new Date("2026-11-23T12:00:05Z"));
    await reserveLiquidity(e, getConfig(env), draft("o3"), "unlimited-test");
    expect(asked).toBe(2);
  });
});
