/**
 * Wrong-network deposits (issue 43 §5): an EVM order's deposit address is the same on every EVM
 * chain, so a catalog asset sent to it on a sibling chain is recorded on the order — never credited
 * as its deposit — and refunded on the chain it arrived on, once, through the sends ledger.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { admin, call, createPartner, expectError, json, setPrices, type TestPartner } from "../helpers";
import { useFakeGateway } from "../support/fake-gateway";
import { BTC_REFUND, createOrder, events, type Order, read, simMine, simSend, step } from "../support/orders";

interface WrongAction {
  deposit: string;
  txid: string;
  index: number;
  reason: string;
  coin: string;
  network: string;
  amount_received: number;
  refund: {
    available: boolean;
    amount: number | null;
    coin: string;
    network: string;
    address: string | null;
    requires_address: boolean;
  };
}
type WithActions = Order & {
  amount_from_received: number | null;
  actions: { reason: string | null; extra_deposits: unknown[]; wrong_network_deposits: WrongAction[] } | null;
};

const REFUND_TO = "0x9cBaE97Fb54f32820DE834093691FF27A83D5531";

let partner: TestPartner;
const fake = useFakeGateway();

beforeAll(async () => {
  await setPrices();
  partner = await createPartner({ name: "wrong-network", rate_limit_per_minute: 100_000 });
});

function refund(id: string, body: unknown) {
  return call(`/api/v1/partner/orders/${id}/refund`, {
    method: "POST",
    body: JSON.stringify(body),
    headers: { Authorization: `Bearer ${partner.key}`, "content-type": "application/json" },
  });
}

async function inQueue(id: string): Promise<boolean> {
  const page = await json<{ data: { id: string }[] }>(await admin("/orders?needs_action=true&limit=100"));
  return page.data.some((r) => r.id === id);
}

/** A Base order of `coin`, paid instead on `arrival` (mined and confirmed there), stepped once. */
async function paidOnSibling(coin: string, amount: string, arrival: string) {
  const o = await createOrder(partner, {
    coin_from: coin,
    network_from: "BASE",
    coin_to: "BTC",
    network_to: "BTC",
    amount_from: amount,
    rate_type: "float",
    recipient_address: BTC_REFUND,
  });
  await fake.attach(o.id);
  const txid = await simSend(arrival, o.deposit_address, amount, null, coin);
  await simMine(arrival, 3);
  await step(o.id);
  await step(o.id); // the projection into the index
  return { o, txid, held: (await read(partner, o.id)) as WithActions };
}

describe.each([
  ["EVM token: USDC sent on Arbitrum to a Base order", "USDC", "50", "ARBITRUM", 49.5],
  ["EVM native: ETH sent on OP Mainnet to a Base order", "ETH", "0.1", "OPTIMISM", 0.0999],
])("%s", (_name, coin, amount, arrival, refundAmount) => {
  it("is recorded on the order, not credited, offered for refund on its chain, and refunded once", async () => {
    const { o, txid, held } = await paidOnSibling(coin, amount, arrival);
    expect(held.status).toBe("waiting_deposit");
    expect(held.amount_from_received).toBeNull();
    expect(held.actions?.reason).toBeNull();
    expect(held.actions?.extra_deposits).toEqual([]);
    const [offer] = held.actions?.wrong_network_deposits ?? [];
    expect(offer).toMatchObject({
      txid,
      deposit: `${arrival}:${txid}:${offer?.index}`,
      reason: "wrong_network_deposit",
      coin,
      network: arrival,
      amount_received: Number(amount),
      // Less the arrival network's fee; the address is always asked for.
      refund: {
        available: true,
        amount: refundAmount,
        coin,
        network: arrival,
        address: null,
        requires_address: true,
      },
    });
    expect(await inQueue(o.id)).toBe(true);
    // The keyless status and the tracking page say it in plain words.
    const links = o as Order & { status_url: string; tracking_url: string };
    const status = await json<{ wrong_network_deposits: unknown[] }>(
      await call(new URL(links.status_url).pathname),
    );
    expect(status.wrong_network_deposits).toEqual([{ coin, network: arrival, amount: Number(amount) }]);
    const page = await (await call(new URL(links.tracking_url).pathname)).text();
    expect(page).toContain('data-testid="wrong-network"');
    expect(page).toContain(
      `We received ${amount} ${coin} on ${arrival}, but this swap expects ${coin} on BASE`,
    );
    const log = await events(o.id);
    expect(log.filter((e) => e.reason.startsWith("deposit to this address on another network"))).toHaveLength(
      1,
    );

    // Seen again on later steps, it is still one deposit.
    await step(o.id, 400_000);
    const again = (await read(partner, o.id)) as WithActions;
    expect(again.actions?.wrong_network_deposits).toHaveLength(1);

    const deposit = offer?.deposit ?? "";
    await expectError(await refund(o.id, { deposit }), 422, "invalid_address");
    const res = await refund(o.id, { deposit, refund_address: REFUND_TO });
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await json<WithActions>(res)).actions).toBeNull();
    await expectError(
      await refund(o.id, { deposit, refund_address: REFUND_TO }),
      409,
      "action_not_available",
    );
    await step(o.id);
    await step(o.id, 3_600_000);
    const key = `${o.id}:extra:${deposit}`;
    expect(fake.gw.paidFor(o.id)).toEqual([{ key, to: REFUND_TO, amount: String(refundAmount) }]);
    const body = JSON.parse(fake.gw.payments.get(key)?.[0]?.body ?? "{}") as {
      network: string;
      coin: string;
    };
    expect(body).toMatchObject({ network: arrival, coin });
    expect(fake.gw.paidTwice()).toEqual([]);
    expect(await inQueue(o.id)).toBe(false);
    // The order itself took nothing: it expired unpaid, and its refund paid nothing more.
    const after = (await read(partner, o.id)) as WithActions;
    expect([after.status, after.amount_from_received]).toEqual(["expired", null]);
    expect(fake.gw.paidFor(o.id)).toHaveLength(1);
  });
});
