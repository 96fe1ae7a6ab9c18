/**
 * Payouts that cannot land (docs/integrate.md, "Recipient activation"). On some account chains a
 * payout to an address that holds no account yet is not an ordinary transfer:
 *
 * - XRP Ledger: a Payment that creates an account must deliver at least the base reserve, else it
 *   fails with `tecNO_DST_INSUF_XRP` (xrpl.org, "Reserves": base reserve 1 XRP on Mainnet).
 * - Stellar: a new account needs a `create_account` operation (a plain payment fails) with at least
 *   the minimum balance, 2 × the 0.5 XLM base reserve = 1 XLM.
 * - TON: a bounceable transfer to an uninitialised wallet bounces back; it must be sent
 *   non-bounceable. Any amount lands.
 *
 * Reserves change by validator vote; these are the Mainnet values at the time of writing.
 */
import { type AddressFamily, addressFamily } from "./addresses";
import type { Decimal } from "./money";
import { parseDecimal } from "./money";

/** What a chain provider said about the recipient's account. */
export type AccountState =
  /** the account exists (XRP, XLM) / the wallet is deployed (TON) */
  | "active"
  /** no such account / wallet not initialised */
  | "missing"
  /** the provider did not say (error, timeout, a state we do not act on) */
  | "unknown";

/** How the payout has to be sent, recorded on the order and told to the payout gateway. */
export type PayoutOperation =
  /** XRP / XLM: the payout creates the account (XLM `create_account`; XRP a Payment ≥ the reserve) */
  | "activate"
  /** TON: the transfer is sent non-bounceable */
  | "non_bounceable";

export type ActivationRule = { kind: "reserve"; minimum: Decimal } | { kind: "non_bounceable" };

const RULES: Partial<Record<AddressFamily, ActivationRule>> = {
  xrp: { kind: "reserve", minimum: parseDecimal("1") },
  xlm: { kind: "reserve", minimum: parseDecimal("1") },
  ton: { kind: "non_bounceable" },
};

/**
 * The rule for a payout of `network`'s native coin (`contract` null); null where an address needs
 * no activation (UTXO and EVM chains...) and for tokens (their trust lines are the wallet's matter).
 */
export function activationRule(network: string, contract: string | null): ActivationRule | null {
  if (contract !== null) return null;
  const family = addressFamily(network);
  return (family && RULES[family]) ?? null;
}

export type PayoutPlan =
  | { kind: "lands"; operation: PayoutOperation | null }
  /** The payout cannot land: below the activation minimum of an account that does not exist. */
  | { kind: "refused"; minimum: Decimal };

/**
 * Whether a payout of `amountTo` to an account in `state` lands, and how it must be sent. An
 * `unknown` state is not refused: the order goes on without an operation and the gateway, which
 * must check the account itself when told nothing, decides (a provider outage never blocks orders).
 */
export function payoutPlan(rule: ActivationRule, state: AccountState, amountTo: Decimal): PayoutPlan {
  if (state !== "missing") return { kind: "lands", operation: null };
  if (rule.kind === "non_bounceable") return { kind: "lands", operation: "non_bounceable" };
  if (amountTo.lt(rule.minimum)) return { kind: "refused", minimum: rule.minimum };
  return { kind: "lands", operation: "activate" };
}

/** The payout request's fields for an operation (docs/adapters.md, "The payout gateway contract"). */
export function operationFields(operation: PayoutOperation | undefined): { activate?: true; bounce?: false } {
  if (operation === "activate") return { activate: true };
  if (operation === "non_bounceable") return { bounce: false };
  return {};
}
