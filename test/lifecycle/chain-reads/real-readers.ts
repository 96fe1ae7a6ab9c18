/**
 * The order lifecycle over each real chain reader (CHAIN_MODE blockbook, solana, rippled, horizon,
 * toncenter), the provider answered by MSW from a small fake chain built on the recorded fixtures:
 * creation → completed, and a deposit that must not move the order.
 */
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { associatedTokenAddress } from "../../../src/domain/addresses/solana";
import blockbookPage from "../../fixtures/chain/blockbook-doge-address-p2.json";
import blockbookStatus from "../../fixtures/chain/blockbook-status.json";
import horizonLedger from "../../fixtures/chain/horizon-ledger-52000000.json";
import horizonPage from "../../fixtures/chain/horizon-payments-p2.json";
import horizonRoot from "../../fixtures/chain/horizon-root.json";
import rippledPage from "../../fixtures/chain/rippled-account-tx-p2.json";
import rippledLedger from "../../fixtures/chain/rippled-ledger-90000000.json";
import solanaTx from "../../fixtures/chain/solana-tx-usdc.json";
import tonBlock from "../../fixtures/chain/toncenter-block-40000000.json";
import tonInfo from "../../fixtures/chain/toncenter-masterchain-info.json";
import tonPage from "../../fixtures/chain/toncenter-transactions-p2.json";
import { admin } from "../../helpers";
import { createMockNetwork } from "../../support/msw";
import { createOrder, outgoing, read, statusPath, step, TRON_ADDR } from "../../support/orders";
import { realReaderSuite } from "../../support/real-chain";

const suite = realReaderSuite("real-readers");

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
  expect(await read(suite.partner, orderId)).toMatchObject({
    status: "completed",
    amount_to_actual: amountTo,
  });
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
    const o = await createOrder(suite.partner, toUsdt("DOGE", 1000));
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
    await suite.useReader(o.id, { network: "DOGE", mode: "blockbook", baseUrl: BASE }, net);
    const pay = (to: string, sats: string, n: number): Tx => ({
      ...template,
      txid: n.toString(16).padStart(64, "a"),
      vout: [{ value: sats, n: 0, hex: "76a9", addresses: [to], isAddress: true }],
      blockHash: undefined,
      blockHeight: -1,
    });

    chain.txs.push(pay("DUMh1rPrXTrCN2Z9EHsLPg7b78rACHB2h7", "100000000000", 1));
    await step(o.id);
    expect((await read(suite.partner, o.id)).status).toBe("waiting_deposit");

    const deposit = pay(o.deposit_address, "100000000000", 2);
    chain.txs.push(deposit);
    await step(o.id);
    expect(await read(suite.partner, o.id)).toMatchObject({ status: "confirming", deposit_confirmations: 0 });

    deposit.blockHeight = chain.tip + 1;
    deposit.blockHash = deposit.blockHeight.toString(16).padStart(64, "0");
    chain.tip += 14;
    await step(o.id);
    expect(await read(suite.partner, o.id)).toMatchObject({
      status: "confirming",
      deposit_confirmations: 14,
    });
    chain.tip += 1;
    await step(o.id);
    // DOGE 0.1 → USDT 1: 1000 × 0.1 × 0.995 − 1 = 98.5
    await expectCompleted(o.id, 98.5);
    expect(net.unhandled).toEqual([]);
  });

  it("a deposit whose block leaves the best chain sends the order back to waiting_deposit", async () => {
    const o = await createOrder(suite.partner, toUsdt("DOGE", 1000));
    const chain = { tip: 6_000_000, orphaned: new Set<number>(), txs: [] as object[] };
    const hashAt = (h: number) => `${chain.orphaned.has(h) ? "f" : "0"}${h.toString(16).padStart(63, "0")}`;
    const net = createMockNetwork(
      http.get(`${BASE}/api`, () =>
        HttpResponse.json({
          ...blockbookStatus,
          blockbook: { ...blockbookStatus.blockbook, bestHeight: chain.tip },
        }),
      ),
      http.get(`${BASE}/api/v2/address/:address`, ({ params }) =>
        HttpResponse.json({ address: params.address, page: 1, totalPages: 1, transactions: chain.txs }),
      ),
      http.get(`${BASE}/api/v2/block-index/:height`, ({ params }) =>
        HttpResponse.json({ blockHash: hashAt(Number(params.height)) }),
      ),
    );
    await suite.useReader(o.id, { network: "DOGE", mode: "blockbook", baseUrl: BASE }, net);
    const height = chain.tip - 1;
    chain.txs.push({
      ...template,
      vout: [{ value: "100000000000", n: 0, hex: "76a9", addresses: [o.deposit_address], isAddress: true }],
      blockHeight: height,
      blockHash: hashAt(height),
    });
    await step(o.id);
    expect(await read(suite.partner, o.id)).toMatchObject({ status: "confirming", deposit_confirmations: 2 });

    // A reorg: the block at that height is another one, and the transaction is gone from the listing.
    chain.orphaned.add(height);
    chain.txs = [];
    await step(o.id);
    expect(await read(suite.partner, o.id)).toMatchObject({ status: "waiting_deposit", deposit_txid: null });
    expect(net.unhandled).toEqual([]);
  });
});

describe("XRP over rippled", () => {
  const URL_ = "https://rippled.test/";
  const template = rippledPage.result.transactions[1]!;

  it("a wrong-tag payment and a partial payment do not move the order; the right tag completes it", async () => {
    const o = await createOrder(suite.partner, toUsdt("XRP", 100));
    expect(o.deposit_address_tag).toMatch(/^\d+$/);
    const chain = { tip: 90_000_000, txs: [] as object[] };
    const ledgerHash = (n: number) => n.toString(16).toUpperCase().padStart(64, "0");
    const net = createMockNetwork(
      http.post(URL_, async ({ request }) => {
        const { method, params } = (await request.json()) as {
          method: string;
          params: [{ ledger_index?: unknown }];
        };
        if (method === "account_tx") {
          const transactions = [...chain.txs].reverse();
          return HttpResponse.json({ result: { ...rippledPage.result, transactions } });
        }
        const index = params[0].ledger_index === "validated" ? chain.tip : Number(params[0].ledger_index);
        return HttpResponse.json({
          result: { ...rippledLedger.result, ledger_index: index, ledger_hash: ledgerHash(index) },
        });
      }),
    );
    await suite.useReader(o.id, { network: "XRP", mode: "rippled", baseUrl: URL_ }, net);
    const pay = (tag: number | undefined, drops: string, delivered: string) => {
      chain.tip += 1;
      const { DestinationTag: _, ...tx } = template.tx_json;
      chain.txs.push({
        ...template,
        hash: String(chain.txs.length + 1).padStart(64, "E"),
        ledger_index: chain.tip,
        ledger_hash: ledgerHash(chain.tip),
        tx_json: {
          ...tx,
          Destination: o.deposit_address,
          DeliverMax: drops,
          ...(tag === undefined ? {} : { DestinationTag: tag }),
        },
        meta: { ...template.meta, delivered_amount: delivered },
      });
    };

    pay(Number(o.deposit_address_tag) + 1, "100000000", "100000000");
    pay(undefined, "100000000", "100000000");
    await step(o.id);
    await step(o.id);
    expect(await read(suite.partner, o.id)).toMatchObject({ status: "waiting_deposit", deposit_txid: null });

    pay(Number(o.deposit_address_tag), "100000000", "100000000");
    await step(o.id);
    // XRP 0.5 → USDT 1: 100 × 0.5 × 0.995 − 1 = 48.75
    await expectCompleted(o.id, 48.75);
    expect(net.unhandled).toEqual([]);
  });

  it("a partial payment is credited at delivered_amount, not at its Amount", async () => {
    const o = await createOrder(suite.partner, toUsdt("XRP", 100));
    const net = createMockNetwork(
      http.post(URL_, async ({ request }) => {
        const { method } = (await request.json()) as { method: string };
        if (method === "ledger") return HttpResponse.json(rippledLedger);
        const tx = {
          ...template,
          ledger_index: 90000000,
          ledger_hash: rippledLedger.result.ledger_hash,
          tx_json: {
            ...template.tx_json,
            Destination: o.deposit_address,
            DestinationTag: Number(o.deposit_address_tag),
            DeliverMax: "100000000",
            Flags: 131072,
          },
          meta: { ...template.meta, delivered_amount: "1000" },
        };
        return HttpResponse.json({ result: { ...rippledPage.result, transactions: [tx] } });
      }),
    );
    await suite.useReader(o.id, { network: "XRP", mode: "rippled", baseUrl: URL_ }, net);
    await step(o.id);
    const after = await read(suite.partner, o.id);
    expect(after.amount_from_received).toBe(0.001);
    expect(after).toMatchObject({ status: "failed", status_reason: "amount_below_min" });
    expect((await outgoing("TRX")).filter((t) => t.order_id === o.id)).toEqual([]);
  });
});

describe("XLM over Horizon", () => {
  const BASE = "https://horizon.test";
  const template = horizonPage._embedded.records[1]!;

  it("a wrong-memo payment does not move the order; the right memo completes it", async () => {
    const o = await createOrder(suite.partner, toUsdt("XLM", 1000));
    const chain = { tip: 52_000_000, records: [] as object[] };
    const net = createMockNetwork(
      http.get(`${BASE}/`, () => HttpResponse.json({ ...horizonRoot, history_latest_ledger: chain.tip })),
      http.get(`${BASE}/accounts/:id/payments`, () =>
        HttpResponse.json({ _embedded: { records: [...chain.records].reverse() } }),
      ),
      http.get(`${BASE}/ledgers/:seq`, ({ params }) =>
        HttpResponse.json({
          ...horizonLedger,
          sequence: Number(params.seq),
          hash: Number(params.seq).toString(16).padStart(64, "0"),
        }),
      ),
    );
    await suite.useReader(o.id, { network: "XLM", mode: "horizon", baseUrl: BASE }, net);
    const pay = (memo: string) => {
      chain.tip += 1;
      const txhash = String(chain.records.length + 1).padStart(64, "c");
      const id = String((BigInt(chain.tip) << 32n) | (1n << 12n) | 1n);
      chain.records.push({
        ...template,
        id,
        paging_token: id,
        transaction_successful: true,
        transaction_hash: txhash,
        to: o.deposit_address,
        amount: "1000.0000000",
        transaction: {
          ...template.transaction,
          hash: txhash,
          successful: true,
          ledger: chain.tip,
          memo_type: "text",
          memo,
        },
      });
    };

    pay(`${o.deposit_address_tag}0`);
    await step(o.id);
    expect(await read(suite.partner, o.id)).toMatchObject({ status: "waiting_deposit", deposit_txid: null });

    pay(o.deposit_address_tag!);
    await step(o.id);
    // XLM 0.1 → USDT 1: 1000 × 0.1 × 0.995 − 1 = 98.5
    await expectCompleted(o.id, 98.5);
    expect(net.unhandled).toEqual([]);
  });
});

describe("TON over toncenter", () => {
  const BASE = "https://toncenter.test/api/v3";
  const template = tonPage.transactions[0]!;
  // The deposit wallet as toncenter names it (raw form); the order shows the UQ… spelling.
  const RAW = template.account;

  it("a wrong-comment transfer does not move the order; the right comment completes it", async () => {
    const o = await createOrder(suite.partner, toUsdt("TON", 20));
    expect(o.deposit_address).toMatch(/^UQ/);
    const chain = { tip: 40_000_000, txs: [] as object[] };
    const rootHash = (n: number) => btoa(String(n).padStart(32, "0"));
    const net = createMockNetwork(
      http.get(`${BASE}/masterchainInfo`, () =>
        HttpResponse.json({ ...tonInfo, last: { ...tonInfo.last, seqno: chain.tip } }),
      ),
      http.get(`${BASE}/transactions`, () => HttpResponse.json({ transactions: [...chain.txs].reverse() })),
      http.get(`${BASE}/blocks`, ({ request }) => {
        const seqno = Number(new URL(request.url).searchParams.get("seqno"));
        return HttpResponse.json({ blocks: [{ ...tonBlock.blocks[0], seqno, root_hash: rootHash(seqno) }] });
      }),
    );
    await suite.useReader(o.id, { network: "TON", mode: "toncenter", baseUrl: BASE }, net);
    const pay = (comment: string) => {
      chain.tip += 1;
      chain.txs.push({
        ...template,
        account: RAW,
        hash: btoa(String(chain.txs.length + 1).padStart(32, "h")),
        mc_block_seqno: chain.tip,
        in_msg: {
          ...template.in_msg,
          destination: RAW,
          value: "20000000000",
          message_content: { ...template.in_msg.message_content, decoded: { type: "text_comment", comment } },
        },
      });
    };

    pay(` ${o.deposit_address_tag}`);
    await step(o.id);
    expect(await read(suite.partner, o.id)).toMatchObject({ status: "waiting_deposit", deposit_txid: null });

    pay(o.deposit_address_tag!);
    await step(o.id);
    // TON 5 → USDT 1: 20 × 5 × 0.995 − 1 = 98.5
    await expectCompleted(o.id, 98.5);
    expect(net.unhandled).toEqual([]);
  });
});

describe("USDC on SOL over Solana JSON-RPC", () => {
  const RPC = "https://solana.test/";
  const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
  const LOOKALIKE = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU";

  it("a look-alike mint does not move the order; genuine USDC to the ATA completes it once finalized", async () => {
    const load = await admin("/address-pool/SOL", {
      method: "POST",
      json: { addresses: ["3h1zGmCwsRJnVk5BuRNMLsPaQu1y2aqXqXDWYCgrp5UG"] },
    });
    expect(load.status).toBeLessThan(300);
    const o = await createOrder(suite.partner, { ...toUsdt("USDC", 100), network_from: "SOL" });
    const ata = associatedTokenAddress(o.deposit_address, USDC);
    const chain = {
      finalized: 280_000_000,
      sigs: [] as Array<{ signature: string; slot: number; tx: object }>,
    };
    type Call = { id: number; method: string; params: [unknown, { before?: string }?] };
    const reply = (c: Call) => {
      const found = chain.sigs.find((s) => s.signature === c.params[0]);
      const result =
        c.method === "getSlot"
          ? chain.finalized
          : c.method === "getSignaturesForAddress"
            ? c.params[0] === ata
              ? [...chain.sigs].reverse().map((s) => ({
                  signature: s.signature,
                  slot: s.slot,
                  err: null,
                  confirmationStatus: s.slot <= chain.finalized ? "finalized" : "confirmed",
                }))
              : []
            : c.method === "getTransaction"
              ? (found?.tx ?? null)
              : {
                  blockhash: "5D4UAVmY3LN1SGr4ut5JZ2Gxqd3yLYrMikJgqKvNSVgY",
                  parentSlot: Number(c.params[0]) - 1,
                };
      return { jsonrpc: "2.0", id: c.id, result };
    };
    const net = createMockNetwork(
      http.post(RPC, async ({ request }) => {
        const body = (await request.json()) as Call | Call[];
        return HttpResponse.json(Array.isArray(body) ? body.map(reply) : reply(body));
      }),
    );
    await suite.useReader(o.id, { network: "SOL", mode: "solana", baseUrl: RPC }, net);
    const send = (mint: string, units: string) => {
      const signature = `${chain.sigs.length + 2}`.repeat(88).slice(0, 88);
      const tx = structuredClone(solanaTx.result);
      tx.transaction.message.accountKeys[2]!.pubkey = ata;
      for (const b of [...tx.meta.preTokenBalances, ...tx.meta.postTokenBalances]) b.mint = mint;
      tx.meta.preTokenBalances[1]!.owner = o.deposit_address;
      tx.meta.postTokenBalances[1]!.owner = o.deposit_address;
      tx.meta.preTokenBalances[1]!.uiTokenAmount.amount = "0";
      tx.meta.postTokenBalances[1]!.uiTokenAmount.amount = units;
      tx.transaction.signatures = [signature];
      chain.sigs.push({ signature, slot: chain.finalized + 5, tx: { ...tx, slot: chain.finalized + 5 } });
    };

    send(LOOKALIKE, "100000000");
    chain.finalized += 10;
    await step(o.id);
    expect(await read(suite.partner, o.id)).toMatchObject({ status: "waiting_deposit", deposit_txid: null });

    send(USDC, "100000000");
    await step(o.id);
    expect(await read(suite.partner, o.id)).toMatchObject({ status: "confirming", deposit_confirmations: 0 });
    chain.finalized += 10;
    await step(o.id);
    // USDC 1 → USDT 1: 100 × 0.995 − 1 = 98.5
    await expectCompleted(o.id, 98.5);
    expect(net.unhandled).toEqual([]);
  });
});
