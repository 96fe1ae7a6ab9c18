/**
 * Bitcoin Cash (docs/networks.md, "Bitcoin Cash"): it quotes, creates orders with a CashAddr
 * deposit address, takes CashAddr and legacy recipients (paid as CashAddr), refuses
 * Bitcoin's addresses and is refused as one, and runs to `completed` in test mode.
 */
import { beforeAll, describe, expect, it, vi } from "vitest";
import { validateBchAddress } from "../../src/domain/addresses/cashaddr";
import { admin, call, createPartner, expectError, json, setPrices, type TestPartner } from "../helpers";
import {
  type Order as BaseOrder,
  BTC_REFUND,
  createOrder,
  outgoing,
  postOrder,
  read,
  simMine,
  simSend,
  startClock,
  step,
} from "../support/orders";

type Order = BaseOrder & { livemode: boolean; recipient_address: string; refund_address: string | null };

// bitcoincashorg/bitcoincash.org spec/cashaddr.md: the same P2PKH hash, legacy and CashAddr.
const LEGACY = "1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu";
const CASHADDR = "bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a";

interface Row {
  coin: string;
  network: string;
  caip2: string | null;
  caip19: string | null;
  icon_url: string | null;
  is_deposit_enabled: boolean;
  is_withdraw_enabled: boolean;
}

describe("Bitcoin Cash", () => {
  let partner: TestPartner;
  let testKey: string;

  beforeAll(async () => {
    await setPrices();
    partner = await createPartner({ name: "bch", rate_limit_per_minute: 100_000 });
    const res = await admin(`/partners/${partner.id}/keys`, { method: "POST", json: { mode: "test" } });
    testKey = (await json<{ key: string }>(res)).key;
  });

  it("is listed live, with its CAIP ids and its own icon", async () => {
    const rows = (await json<Row[]>(await call("/api/v1/currencies"))).filter((r) => r.network === "BCH");
    expect(rows).toEqual([
      expect.objectContaining({
        coin: "BCH",
        is_deposit_enabled: true,
        is_withdraw_enabled: true,
        caip2: "bip122:000000000000000000651ef99cb9fcbe",
        caip19: "bip122:000000000000000000651ef99cb9fcbe/slip44:145",
        icon_url: expect.stringMatching(/^\/api\/v1\/icons\/bch\.svg\?v=/),
      }),
    ]);
  });

  it("quotes both ways", async () => {
    const from = await call("/api/v1/partner/rates?coin_from=BCH&coin_to=BTC&amount=1");
    expect(from.status, await from.clone().text()).toBe(200);
    const to = await call("/api/v1/partner/rates?coin_from=BTC&coin_to=BCH&amount=0.01");
    expect(to.status, await to.clone().text()).toBe(200);
  });

  it("creates an order with a CashAddr deposit address", async () => {
    const order = await createOrder(partner, {
      coin_from: "BCH",
      network_from: "BCH",
      coin_to: "BTC",
      network_to: "BTC",
      amount_from: "1",
      rate_type: "float",
      recipient_address: BTC_REFUND,
      refund_address: LEGACY,
    });
    const address = order.deposit_address as string;
    expect(address).toMatch(/^bitcoincash:q/);
    expect(validateBchAddress(address)).toEqual({ ok: true, address, tag: null });
    // A legacy refund address is kept as the CashAddr of the same hash.
    expect((order as Order).refund_address).toBe(CASHADDR);
  });

  it("takes a legacy recipient and pays its CashAddr; takes a prefix-less one; refuses a Bitcoin one", async () => {
    const to = {
      coin_from: "BTC",
      network_from: "BTC",
      coin_to: "BCH",
      network_to: "BCH",
      amount_from: "0.01",
      rate_type: "float",
    };
    const legacy = await createOrder(partner, { ...to, recipient_address: LEGACY });
    // The contract shows recipient_address as given; the payout goes to the CashAddr of its hash.
    expect((legacy as Order).recipient_address).toBe(LEGACY);
    startClock();
    try {
      await simSend("BTC", legacy.deposit_address as string, "0.01");
      await simMine("BTC", 2);
      for (let i = 0; i < 4 && (await read(partner, legacy.id)).status !== "completed"; i++)
        await step(legacy.id);
      expect((await read(partner, legacy.id)).status).toBe("completed");
    } finally {
      vi.useRealTimers();
    }
    expect((await outgoing("BCH")).filter((t) => t.order_id === legacy.id)).toEqual([
      expect.objectContaining({ kind: "payout", to: CASHADDR, coin: "BCH" }),
    ]);
    const bare = await createOrder(partner, {
      ...to,
      recipient_address: CASHADDR.slice("bitcoincash:".length),
    });
    expect(bare.id).toBeTruthy();
    const btc = await expectError(
      await postOrder(partner, { ...to, recipient_address: BTC_REFUND }),
      422,
      "invalid_address",
    );
    expect(btc.detail).toMatch(/Bitcoin segwit address, not a Bitcoin Cash one/);
  });

  it("a CashAddr is refused for BTC", async () => {
    const e = await expectError(
      await postOrder(partner, {
        coin_from: "BCH",
        network_from: "BCH",
        coin_to: "BTC",
        network_to: "BTC",
        amount_from: "1",
        rate_type: "float",
        recipient_address: CASHADDR,
      }),
      422,
      "invalid_address",
    );
    expect(e.detail).toMatch(/a Bitcoin Cash address, not a Bitcoin one/);
  });

  it("runs to completed in test mode, its deposit address on the testnet (bchtest:)", async () => {
    const order = (await createOrder(
      { ...partner, key: testKey },
      {
        coin_from: "BCH",
        network_from: "BCH",
        coin_to: "BTC",
        network_to: "BTC",
        amount_from: "1",
        rate_type: "float",
        recipient_address: BTC_REFUND,
      },
    )) as Order;
    expect(order.livemode).toBe(false);
    expect(order.deposit_address).toMatch(/^bchtest:q/);
    const step = async (name: string) => {
      const res = await call(`/api/v1/partner/test/orders/${order.id}/${name}`, {
        method: "POST",
        headers: { Authorization: `Bearer ${testKey}` },
      });
      expect(res.status, await res.clone().text()).toBe(200);
      return json<Order>(res);
    };
    expect((await step("deposit")).status).toBe("confirming");
    expect((await step("confirm")).status).toBe("completed");
  });
});
