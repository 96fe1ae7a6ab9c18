/**
 * The order lifecycle over each real chain reader (CHAIN_MODE blockbook, solana, rippled, horizon,
 * toncenter), the provider answered by MSW from a small fake chain built on the recorded fixtures:
 * creation → completed, and a deposit that must not move the order.
 */
import { HttpResponse, http } from "msw";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import blockbookPage from "../fixtures/chain/blockbook-doge-address-p2.json";
import blockbookStatus from "../fixtures/chain/blockbook-status.json";
import { createPartner, setPrices, type TestPartner } from "../helpers";
import { createMockNetwork } from "../support/msw";
import { createOrder, outgoing, read, startClock, statusPath, step, TRON_ADDR } from "../support/orders";
import { useRealReader } from "../support/real-chain";

let partner: TestPartner;
let restore: (() => void) | undefined;

beforeAll(async () => {
  partner = await createPartner({ name: "real-readers", rate_limit_per_minute: 100_000 });
});

beforeEach(async () => {
  vi.useRealTimers();
  await setPrices();
  startClock();
});

afterEach(() => {
  restore?.();
  restore = undefined;
  vi.useRealTimers();
});

const toUsdt = (coin: string, amount: number) => ({
  coin_from: coin,
  network_from: coin,
  coin_to: "USDT",
  network_to: "TRX",
  amount_from: amount,
  rate_type: "float",
  recipient_address: TRON_ADDR,
});

async function expectCompleted(orderId: string, amountTo: number): Promise<void> {
  expect(await read(partner, orderId)).toMatchObject({ status: "completed", amount_to_actual: amountTo });
  expect(await statusPath(orderId)).toEqual([
    "waiting_deposit",
    "confirming",
    "exchanging",
    "sending",
    "completed",
  ]);
  expect((await outgoing("TRX")).filter((t) => t.order_id === orderId)).toEqual([
    expect.objectContaining({ kind: "payout", amount: String(amountTo), to: TRON_ADDR }),
  ]);
}

describe("DOGE over Blockbook", () => {
  const BASE = "https://doge.blockbook.test";
  const template = blockbookPage.transactions[0]!;

  it("a deposit is seen, confirmed (15 blocks) and paid out; a payment to another address is not", async () => {
    const o = await createOrder(partner, toUsdt("DOGE", 1000));
    type Tx = Omit<typeof template, "blockHash"> & { blockHash: string | undefined };
    const chain = { tip: 5_000_000, txs: [] as Tx[] };
    const net = createMockNetwork(
      http.get(`${BASE}/api`, () =>
        HttpResponse.json({
          ...blockbookStatus,
          blockbook: { ...blockbookStatus.blockbook, bestHeight: chain.tip },
        }),
      ),
      http.get(`${BASE}/api/v2/address/:address`, ({ params }) =>
        HttpResponse.json({
          address: params.address,
          page: 1,
          totalPages: 1,
          txs: chain.txs.length,
          transactions: chain.txs.filter((tx) => tx.vout.some((v) => v.addresses[0] === params.address)),
        }),
      ),
      http.get(`${BASE}/api/v2/block-index/:height`, ({ params }) =>
        HttpResponse.json({ blockHash: Number(params.height).toString(16).padStart(64, "0") }),
      ),
    );
    restore = await useRealReader(o.id, { network: "DOGE", mode: "blockbook", baseUrl: BASE }, net);
    const pay = (to: string, sats: string, n: number): Tx => ({
      ...template,
      txid: n.toString(16).padStart(64, "a"),
      vout: [{ value: sats, n: 0, hex: "76a9", addresses: [to], isAddress: true }],
      blockHash: undefined,
      blockHeight: -1,
    });

    chain.txs.push(pay("DUMh1rPrXTrCN2Z9EHsLPg7b78rACHB2h7", "100000000000", 1));
    await step(o.id);
    expect((await read(partner, o.id)).status).toBe("waiting_deposit");

    const deposit = pay(o.deposit_address, "100000000000", 2);
    chain.txs.push(deposit);
    await step(o.id);
    expect(await read(partner, o.id)).toMatchObject({ status: "confirming", deposit_confirmations: 0 });

    deposit.blockHeight = chain.tip + 1;
    deposit.blockHash = deposit.blockHeight.toString(16).padStart(64, "0");
    chain.tip += 14;
    await step(o.id);
    expect(await read(partner, o.id)).toMatchObject({ status: "confirming", deposit_confirmations: 14 });
    chain.tip += 1;
    await step(o.id);
    // DOGE 0.1 → USDT 1: 1000 × 0.1 × 0.995 − 1 = 98.5
    await expectCompleted(o.id, 98.5);
    expect(net.unhandled).toEqual([]);
  });
});
