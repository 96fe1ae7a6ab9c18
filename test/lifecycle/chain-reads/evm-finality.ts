/**
 * A rollup order's deposit confirms by finality (docs/networks.md, "Finality"): a live USDC order
 * on ARBITRUM read by the EVM reader over a fake JSON-RPC node (test/support/fake-evm.ts) stays
 * `confirming` with no confirmation however deep its block, until the node's finalized block
 * covers it; reorged out before, it sends the order back to waiting_deposit. A deposit whose sender
 * (the reader's `from`) the operator listed puts the order on hold (docs/lifecycle.md, "Holds"),
 * and the operator's review queue (and its CLI listing) shows the hold with its deadline.
 */
import { describe, expect, it } from "vitest";
import type { OrderHold } from "../../../src/domain/holds";
import { admin, json } from "../../helpers";
import { cli } from "../../support/cli";
import { fakeEvmNode } from "../../support/fake-evm";
import { createOrder, read, statusPath, step, TRON_ADDR } from "../../support/orders";
import { realReaderSuite } from "../../support/real-chain";

const URL = "https://arbitrum.rpc.test/";
const USDC = "0xaf88d065e77c8cC2239327C5EDb3A432268e5831";

describe("a rollup's deposit confirms when finalized (ARBITRUM over the EVM reader)", () => {
  const suite = realReaderSuite("evm-finality");
  const order = () =>
    createOrder(suite.partner, {
      coin_from: "USDC",
      network_from: "ARBITRUM",
      coin_to: "USDT",
      network_to: "TRX",
      amount_from: 100,
      rate_type: "float",
      recipient_address: TRON_ADDR,
    });

  it("deep but not finalized: no confirmation; finalized: exchanged and paid out", async () => {
    const o = await order();
    const node = fakeEvmNode(URL, 300_000_000);
    node.finalized = node.head();
    await suite.useReader(o.id, { network: "ARBITRUM", mode: "evm", baseUrl: URL }, node.net);

    const block = node.mineWith({ token: [[USDC, o.deposit_address, 100_000_000n]] });
    node.mine(500);
    await step(o.id);
    expect(await read(suite.partner, o.id)).toMatchObject({
      status: "confirming",
      deposit_confirmations: 0,
      deposit_confirmations_required: 1,
    });

    node.finalized = block.height;
    await step(o.id);
    expect((await read(suite.partner, o.id)).status).toBe("completed");
    expect(await statusPath(o.id)).toEqual([
      "waiting_deposit",
      "confirming",
      "exchanging",
      "sending",
      "completed",
    ]);
    expect(node.net.unhandled).toEqual([]);
  });

  it("reorged out before it was finalized: back to waiting_deposit, nothing exchanged", async () => {
    const o = await order();
    const node = fakeEvmNode(URL, 300_000_000);
    node.finalized = node.head();
    await suite.useReader(o.id, { network: "ARBITRUM", mode: "evm", baseUrl: URL }, node.net);

    const block = node.mineWith({ token: [[USDC, o.deposit_address, 100_000_000n]] });
    node.mine(500);
    await step(o.id);
    expect((await read(suite.partner, o.id)).status).toBe("confirming");

    node.reorg(block.height);
    node.finalized = node.head();
    await step(o.id);
    expect((await read(suite.partner, o.id)).status).toBe("waiting_deposit");
    expect(await statusPath(o.id)).toEqual(["waiting_deposit", "confirming", "waiting_deposit"]);
  });

  it("from a sender the operator listed: held, never exchanged", async () => {
    const listed = "0x5c12ee00000000000000000000000000000000e1";
    const res = await admin("/screening/entries", {
      method: "POST",
      json: { network: "ARBITRUM", address: listed, category: "operator", note: "evm sender test" },
    });
    expect(res.status).toBe(201);
    const entry = await json<{ id: string }>(res);
    try {
      const o = await order();
      const node = fakeEvmNode(URL, 300_000_000);
      await suite.useReader(o.id, { network: "ARBITRUM", mode: "evm", baseUrl: URL }, node.net);

      const block = node.mineWith({ token: [[USDC, o.deposit_address, 100_000_000n]], from: listed });
      node.finalized = block.height;
      await step(o.id);
      await step(o.id);
      expect(await read(suite.partner, o.id)).toMatchObject({
        status: "confirming",
        hold: { category: "operator", reason: expect.stringContaining("listed") },
      });
      expect(await statusPath(o.id)).toEqual(["waiting_deposit", "confirming"]);

      // The operator's review queue lists it with its hold, so the deadline and what happens then
      // show without opening the order; the CLI's listing prints them.
      const hold = (await read(suite.partner, o.id)).hold as OrderHold;
      const queue = await json<{ data: { id: string; hold: OrderHold | null }[] }>(
        await admin("/orders?needs_action=true&limit=100"),
      );
      expect(queue.data.find((r) => r.id === o.id)?.hold).toEqual(hold);
      const review = await cli("orders", "review");
      expect(review.stdout).toContain(`operator until ${hold.deadline_at}, then refund`);
    } finally {
      await admin(`/screening/entries/${entry.id}`, { method: "DELETE" });
    }
  });
});
