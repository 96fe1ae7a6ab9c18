import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { admin, createPartner, expectError, json, type TestPartner } from "../helpers";
import { useFakeGateway } from "../support/fake-gateway";
import { advance, postOrder, TRON_ADDR } from "../support/orders";

// The payout gateway's signed GET /balances as a balance source (docs/liquidity.md). Only the
// coin's ledger talks to the gateway, so only the ledger is pointed at it: the Worker keeps its
// simulated payouts and offers the pairs as usual.
const ETH_ADDR = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94";
// BTC 60000: 0.01 BTC is 600 USD = 5000 TRX (0.12) = 600 USDT = 1 BNB (600).
const order = (coin_to: string, network_to: string, amount_from: number) => ({
  coin_from: "BTC",
  network_from: "BTC",
  coin_to,
  network_to,
  amount_from,
  rate_type: "float",
  recipient_address: network_to === "BSC" ? ETH_ADDR : TRON_ADDR,
});
/** Past the ledger's 30 s balance cache and the shard's "not limited" memory. */
const PAST_CACHES_MS = 31_000;

let partner: TestPartner;
const post = (body: unknown) => postOrder(partner, body);
const maxPromised = (detail: string) => Number(/at most ([0-9.]+) /.exec(detail)?.[1]);

beforeAll(async () => {
  partner = await createPartner({ name: "liquidity-gateway", rate_limit_per_minute: 100_000 });
});

describe("payout gateway GET /balances as the balance source", () => {
  const fake = useFakeGateway();
  let detach: (() => void) | undefined;
  const attachLedger = async (coin: string, network: string) => {
    detach = await fake.gw.attachObject(env.LIQUIDITY_LEDGERS.getByName(`${coin}:${network}`));
  };
  afterEach(() => {
    detach?.();
    detach = undefined;
  });

  it("a signed answer limits a coin the operator has not set", async () => {
    fake.gw.balances = [{ coin: "TRX", network: "TRX", available: "1000" }];
    await attachLedger("TRX", "TRX");
    const refused = await expectError(await post(order("TRX", "TRX", 0.01)), 422, "insufficient_liquidity");
    expect(maxPromised(refused.detail)).toBeLessThanOrEqual(1000);
    expect(maxPromised(refused.detail)).toBeGreaterThan(990);
    // 0.0015 BTC is about 750 TRX: one fits in 1000, two do not.
    expect((await post(order("TRX", "TRX", 0.0015))).status).toBe(201);
    await expectError(await post(order("TRX", "TRX", 0.0015)), 422, "insufficient_liquidity");
  });

  it("an unsigned or wrongly signed answer is never trusted: ignored with a warning, the last good figure kept", async () => {
    const warn = vi.spyOn(console, "error");
    fake.gw.balances = [{ coin: "USDT", network: "TRX", available: "10" }];
    fake.gw.balancesFault = "unsigned";
    await attachLedger("USDT", "TRX");
    // No good figure yet: the unsigned 10 USDT does not limit the coin.
    expect((await post(order("USDT", "TRX", 0.01))).status).toBe(201);
    expect(
      warn.mock.calls.some(([line]) => String(line).includes("payout gateway balances not usable")),
    ).toBe(true);

    fake.gw.balancesFault = "ok";
    fake.gw.balances = [{ coin: "USDT", network: "TRX", available: "100" }];
    advance(PAST_CACHES_MS);
    await expectError(await post(order("USDT", "TRX", 0.01)), 422, "insufficient_liquidity");

    // A forged answer raising the figure changes nothing: the signed 100 stands.
    fake.gw.balancesFault = "wrong_signature";
    fake.gw.balances = [{ coin: "USDT", network: "TRX", available: "1000000" }];
    advance(PAST_CACHES_MS);
    const refused = await expectError(await post(order("USDT", "TRX", 0.01)), 422, "insufficient_liquidity");
    expect(maxPromised(refused.detail)).toBeLessThanOrEqual(100);
  });

  it("the operator's balance wins over the gateway's; null hands the coin back to the gateway", async () => {
    fake.gw.balances = [{ coin: "BNB", network: "BSC", available: "0.1" }];
    await attachLedger("BNB", "BSC");
    await expectError(await post(order("BNB", "BSC", 0.01)), 422, "insufficient_liquidity");

    const set = await admin("/liquidity", {
      method: "PUT",
      json: { coin: "BNB", network: "BSC", balance: "100" },
    });
    expect(await json(set)).toMatchObject({ balance: "100", source: "operator" });
    expect((await post(order("BNB", "BSC", 0.01))).status).toBe(201);

    const lifted = await admin("/liquidity", {
      method: "PUT",
      json: { coin: "BNB", network: "BSC", balance: null },
    });
    // The ledger counts the gateway's figure again: it has nothing left to hand out, and the
    // shard gives back what it held idle above its new high water mark.
    expect(await json(lifted)).toMatchObject({ balance: "0.1", source: "gateway", available: "0" });
    await runDurableObjectAlarm(env.LIQUIDITY_SHARDS.get(env.LIQUIDITY_SHARDS.idFromName("BNB:BSC:default")));
    await expectError(await post(order("BNB", "BSC", 0.01)), 422, "insufficient_liquidity");
  });
});
