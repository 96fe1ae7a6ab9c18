/**
 * Every EVM chain of issue 43, one row each (docs/networks.md, "Add an EVM chain"): it quotes,
 * creates orders with an EIP-55 deposit address (its gas coin and each token row), validates
 * recipients with the EVM rules, and runs to `completed` in test mode with the test helpers.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { validateEvmAddress } from "../../src/domain/addresses/evm";
import { networkFacts } from "../../src/domain/networks";
import { admin, call, createPartner, expectError, json, setPrices, type TestPartner } from "../helpers";
import { type Order as BaseOrder, BTC_REFUND, createOrder, postOrder } from "../support/orders";

type Order = BaseOrder & { livemode: boolean; recipient_address: string };

/** network, its gas coin and an amount of it within the catalog's limits. */
const CHAINS: readonly [network: string, coin: string, amount: string][] = [
  ["ARBITRUM", "ETH", "0.1"],
  ["OPTIMISM", "ETH", "0.1"],
  ["BASE", "ETH", "0.1"],
  ["POLYGON", "POL", "100"],
  ["AVAXC", "AVAX", "2"],
  ["ETC", "ETC", "5"],
];

const EVM_RECIPIENT = "0x9cBaE97Fb54f32820DE834093691FF27A83D5531";

interface Row {
  coin: string;
  network: string;
  contract_address: string | null;
  caip19: string | null;
  icon_url: string | null;
}

describe.each(CHAINS)("EVM chain %s", (network, coin, amount) => {
  let partner: TestPartner;
  let testKey: string;
  let rows: Row[];

  beforeAll(async () => {
    await setPrices();
    partner = await createPartner({ name: `evm-${network}`, rate_limit_per_minute: 100_000 });
    const res = await admin(`/partners/${partner.id}/keys`, { method: "POST", json: { mode: "test" } });
    testKey = (await json<{ key: string }>(res)).key;
    rows = (await json<Row[]>(await call("/api/v1/currencies"))).filter((r) => r.network === network);
  });

  it("is listed: its gas coin and token rows, with the network's CAIP ids and their own icons", () => {
    const facts = networkFacts(network);
    expect(facts?.native.coin).toBe(coin);
    expect(rows.map((r) => r.coin)).toContain(coin);
    for (const r of rows) {
      expect(r.caip19, r.coin).toBe(
        r.contract_address === null
          ? `eip155:${facts?.chainId}/slip44:${facts?.native.slip44}`
          : `eip155:${facts?.chainId}/erc20:${r.contract_address}`,
      );
      if (r.contract_address !== null)
        expect(validateEvmAddress(r.contract_address)).toMatchObject({
          ok: true,
          address: r.contract_address,
        });
      expect(r.icon_url, r.coin).not.toMatch(/generic/);
    }
  });

  it("quotes its gas coin both ways, also by chain id", async () => {
    const from = await call(
      `/api/v1/partner/rates?coin_from=${coin}&network_from=${network}&coin_to=BTC&amount=${amount}`,
    );
    expect(from.status, await from.clone().text()).toBe(200);
    const to = await call(
      `/api/v1/partner/rates?coin_from=BTC&network_from=BTC&coin_to=${coin}&network_to=${network}&amount=0.01`,
    );
    expect(to.status, await to.clone().text()).toBe(200);
    const chainId = networkFacts(network)?.chainId;
    const byId = await call(`/api/v1/partner/rates?chain_id_from=${chainId}&coin_to=BTC&amount=${amount}`);
    expect(await json(byId)).toMatchObject({ coin_from: coin, network_from: network });
  });

  it("creates orders with an EIP-55 deposit address, for its gas coin and each token", async () => {
    for (const r of rows) {
      const order = await createOrder(partner, {
        coin_from: r.coin,
        network_from: network,
        coin_to: "BTC",
        network_to: "BTC",
        amount_from: r.contract_address === null ? amount : "100",
        rate_type: "float",
        recipient_address: BTC_REFUND,
      });
      const address = order.deposit_address as string;
      expect(validateEvmAddress(address), r.coin).toEqual({ ok: true, address, tag: null });
      expect(address).not.toBe(address.toLowerCase());
    }
  });

  it("takes an EVM recipient, in any letter case, and refuses a Bitcoin one", async () => {
    const to = {
      coin_from: "BTC",
      network_from: "BTC",
      coin_to: coin,
      network_to: network,
      amount_from: "0.01",
      rate_type: "float",
    };
    const ok = (await createOrder(partner, {
      ...to,
      recipient_address: EVM_RECIPIENT.toLowerCase(),
    })) as Order;
    expect(ok.recipient_address.toLowerCase()).toBe(EVM_RECIPIENT.toLowerCase());
    await expectError(
      await postOrder(partner, { ...to, recipient_address: BTC_REFUND }),
      422,
      "invalid_address",
    );
    await expectError(
      await postOrder(partner, { ...to, recipient_address: EVM_RECIPIENT.replace("c", "C") }),
      422,
      "invalid_address",
    );
  });

  it("runs to completed in test mode: deposit, confirm", async () => {
    const order = (await createOrder(
      { ...partner, key: testKey },
      {
        coin_from: coin,
        network_from: network,
        coin_to: "USDC",
        network_to: "ETH",
        amount_from: amount,
        rate_type: "float",
        recipient_address: EVM_RECIPIENT,
      },
    )) as Order;
    expect(order.livemode).toBe(false);
    const step = async (name: string) => {
      const res = await call(`/api/v1/partner/test/orders/${order.id}/${name}`, {
        method: "POST",
        headers: { Authorization: `Bearer ${testKey}` },
      });
      expect(res.status, await res.clone().text()).toBe(200);
      return json<Order>(res);
    };
    expect((await step("deposit")).status).toBe("confirming");
    const done = await step("confirm");
    expect(done.status).toBe("completed");
  });
});

describe("a gas coin on several networks", () => {
  beforeAll(() => setPrices());

  it("named without its network is the one on its own network; a token still needs the network", async () => {
    const eth = await call("/api/v1/partner/rates?coin_from=BTC&coin_to=ETH&amount=0.01");
    expect(await json(eth)).toMatchObject({ coin_to: "ETH", network_to: "ETH" });
    const usdc = await expectError(
      await call("/api/v1/partner/rates?coin_from=BTC&coin_to=USDC&amount=0.01"),
      400,
      "network_required",
    );
    expect(usdc.detail).toContain("ARBITRUM");
  });
});
