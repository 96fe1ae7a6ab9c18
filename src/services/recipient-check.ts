import { type AccountStateReader, accountStateReaderFor } from "../adapters/chain/account-state";
import type { Config } from "../config";
import { DomainError } from "../domain/errors";
import { type Decimal, toDecimalString, toJsonNumber } from "../domain/money";
import {
  type AccountState,
  activationRule,
  type PayoutOperation,
  payoutPlan,
} from "../domain/payout-activation";

/**
 * An account that exists stays so in practice (deleting one is rare and costs its reserve); one that
 * does not may be funded any minute by its owner, so that answer is kept briefly. Provider errors
 * are not kept: the next order asks again.
 */
const ACTIVE_TTL_MS = 60 * 60_000;
const MISSING_TTL_MS = 60_000;
const MAX_ENTRIES = 5_000;

/** Per isolate, by network and address: the answer and until when it stands. */
const known = new Map<string, { state: AccountState; until: number }>();

/** Drops every cached answer (tests). */
export function forgetAccountStates(): void {
  known.clear();
}

async function accountState(
  reader: AccountStateReader,
  network: string,
  address: string,
  now: number,
): Promise<AccountState> {
  const key = `${network}\n${address}`;
  const hit = known.get(key);
  if (hit && hit.until > now) return hit.state;
  let state: AccountState;
  try {
    state = await reader.state(address);
  } catch (err) {
    console.error(
      JSON.stringify({ level: "warn", msg: "recipient account check failed", network, error: String(err) }),
    );
    return "unknown";
  }
  if (state === "unknown") return state;
  if (known.size >= MAX_ENTRIES) known.delete(known.keys().next().value as string);
  known.delete(key);
  known.set(key, { state, until: now + (state === "active" ? ACTIVE_TTL_MS : MISSING_TTL_MS) });
  return state;
}

export interface PayoutDestination {
  coin: string;
  network: string;
  contract: string | null;
  address: string;
  amountTo: Decimal;
}

/**
 * How a live order's payout must be sent, or 422 `recipient_not_activated` when it cannot land
 * (docs/integrate.md, "Recipient activation"). Only networks with a real reader configured are
 * asked; a simulated one, a chain without accounts to activate, or an unanswered question → null.
 */
export async function checkPayoutRecipient(
  config: Config,
  to: PayoutDestination,
  now: number,
): Promise<PayoutOperation | null> {
  const rule = activationRule(to.network, to.contract);
  if (!rule) return null;
  const reader = accountStateReaderFor(config, to.network);
  if (!reader) return null;
  const plan = payoutPlan(rule, await accountState(reader, to.network, to.address, now), to.amountTo);
  if (plan.kind === "lands") return plan.operation;
  const minimum = toDecimalString(plan.minimum);
  const detail = `The recipient ${to.network} account does not exist yet; a payout that creates it must be at least ${minimum} ${to.coin}, and this order pays ${toDecimalString(to.amountTo)} ${to.coin}.`;
  throw new DomainError("recipient_not_activated", detail, undefined, [
    {
      code: "recipient_not_activated",
      detail,
      side: "to",
      min_amount_to: toJsonNumber(plan.minimum),
    },
  ]);
}
