// Test mode (docs/test-mode.md): what makes a test order different from a live one, as data.
import { addressFamily } from "./addresses";
import { type DepositConfig, type DepositScheme, depositScheme } from "./deposit";
import type { OrderStatus } from "./order-state";

/** Open test orders a partner may have at once, so test mode cannot be used to fill storage. */
export const MAX_OPEN_TEST_ORDERS = 10_000;

/**
 * The statuses that count as open for that bound: everything that can still move by itself, and
 * `failed`, which waits for a decision that may never come, so failed test orders cannot pile up.
 */
export const OPEN_TEST_STATUSES: readonly OrderStatus[] = Object.freeze([
  "waiting_deposit",
  "confirming",
  "exchanging",
  "sending",
  "refunding",
  "failed",
]);

/**
 * The SimChain a test order runs on: its own, so a helper that mines blocks or drops a deposit on
 * one test order moves nothing else — no other partner's test order and no dev-mode live order.
 */
export function testChainName(orderId: string): string {
  return `TEST:${orderId.toUpperCase()}`;
}

/**
 * How a test order gets its deposit address: the live rules over the TEST_DEPOSIT_* keys, with the
 * testnet encodings of the UTXO chains. A test xpub or memo address that equals a live one is
 * refused, so a test order can never be handed an address where real money arrives.
 * Operator-loaded pools (SOL) have no test counterpart: those pairs are unavailable in test mode.
 */
export function testDepositScheme(
  network: string,
  isMemo: boolean,
  test: DepositConfig,
  live: DepositConfig,
): DepositScheme {
  if (!isMemo && addressFamily(network) === "sol")
    return { kind: "none", reason: `test mode has no deposit addresses for ${network}` };
  const scheme = depositScheme(network, isMemo, test);
  switch (scheme.kind) {
    case "derive":
      if (Object.values(live.xpubs).includes(scheme.xpub))
        return { kind: "none", reason: `test mode: the test deposit xpub for ${network} is a live one` };
      return { ...scheme, testnet: true };
    case "memo":
      // A live address would let a real deposit carrying a test order's tag land in a test order.
      if (Object.values(live.addresses).includes(scheme.address))
        return { kind: "none", reason: `test mode: the test deposit address for ${network} is a live one` };
      return scheme;
    case "none":
      return { kind: "none", reason: `test mode: ${scheme.reason}` };
    default:
      return scheme;
  }
}
