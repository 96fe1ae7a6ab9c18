// The test helpers (docs/test-mode.md): each changes a test order's own world — its SimChain, its
// clock, its venue — then lets the order run at once, and answers the order as it then is.
import { simChain } from "../adapters/chain/simulated";
import { DomainError } from "../domain/errors";
import { parseDecimal, toDecimalString } from "../domain/money";
import { isUtxo } from "../domain/networks";
import type { OrderRecord, OrderView } from "../domain/order";
import type { Partner } from "../domain/partner";
import { testChainName } from "../domain/test-mode";
import type { FailStep } from "../objects/sim-chain";
import { resolveOrderId } from "./orders";

export type TestHelper =
  | {
      kind: "deposit";
      amount?: string | undefined;
      confirmations?: number | undefined;
      from?: string | undefined;
    }
  | { kind: "confirm"; blocks?: number | undefined }
  | { kind: "drop_deposit" }
  | { kind: "expire" }
  | { kind: "pass_hold_deadline" }
  | { kind: "fail"; step: FailStep };

const notFound = () => new DomainError("order_not_found", "Order not found.");

/**
 * Runs one helper on the partner's test order `orderRef`. A live key is refused (`test_mode_only`);
 * a live order, another partner's order and no order at all are the same 404.
 */
export async function runTestHelper(
  env: Env,
  partner: Pick<Partner, "id" | "livemode">,
  orderRef: string,
  helper: TestHelper,
): Promise<OrderView> {
  if (partner.livemode)
    throw new DomainError("test_mode_only", "Test helpers take a test key (pk_test_…); this key is live.");
  const id = await resolveOrderId(env, orderRef, partner.id);
  const stub = id ? env.ORDERS.getByName(id) : null;
  const order = stub ? await stub.testRecord(partner.id) : null;
  if (!stub || !order) throw notFound();
  if (helper.kind === "pass_hold_deadline" && !order.hold)
    throw new DomainError("action_not_available", "This test order is not held.");
  await changeWorld(env, order, helper);
  const pass = helper.kind === "expire" ? "expiry" : helper.kind === "pass_hold_deadline" ? "hold" : null;
  const after = await stub.testAdvance(partner.id, { pass });
  if (!after) throw notFound();
  return after;
}

async function changeWorld(env: Env, r: OrderRecord, helper: TestHelper): Promise<void> {
  const chain = simChain(env, testChainName(r.id));
  switch (helper.kind) {
    case "deposit": {
      await chain.send({
        to: r.depositAddress,
        tag: r.depositAddressTag,
        amount: toDecimalString(parseDecimal(helper.amount ?? r.amountFromExpected)),
        coin: r.coinFrom,
        contract: r.contractFrom,
        // On a UTXO chain there is no sender: the address is the deposit's one input.
        ...(helper.from && (isUtxo(r.networkFrom) ? { sources: [helper.from] } : { from: helper.from })),
      });
      if (helper.confirmations) await chain.mine(helper.confirmations);
      return;
    }
    case "confirm": {
      const missing = r.depositConfirmationsRequired - (r.depositConfirmations ?? 0);
      await chain.mine(helper.blocks ?? Math.max(1, missing));
      return;
    }
    case "drop_deposit":
      return dropDeposit(chain, r);
    case "expire":
    case "pass_hold_deadline":
      return;
    case "fail":
      await chain.failNext(helper.step);
      return;
  }
}

/**
 * The order's deposit disappears: dropped from the mempool, or reorged out with the blocks from its
 * own up (as SimChain's reorg does; anything else in those blocks goes with it). Without a recorded
 * deposit, the latest transfer to the address (a late deposit being watched) is the one.
 */
async function dropDeposit(chain: ReturnType<typeof simChain>, r: OrderRecord): Promise<void> {
  const transfers = await chain.incomingTransfers({
    address: r.depositAddress,
    tag: r.depositAddressTag,
    coin: r.coinFrom,
    contract: r.contractFrom,
  });
  const deposit = transfers.find((t) => t.txid === r.depositTxid) ?? transfers.at(-1);
  if (!deposit) throw new DomainError("action_not_available", "This test order has no deposit to drop.");
  if (deposit.blockHeight === null) {
    await chain.drop(deposit.txid);
    return;
  }
  await chain.reorg((await chain.tipHeight()) - deposit.blockHeight + 1);
}
