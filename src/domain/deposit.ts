import { addressFamily } from "./addresses";
import { chainModeFor, modeReadsNetwork } from "./chain-mode";
import type { Refusal } from "./errors";
import { parseDecimal } from "./money";

export type DerivableFamily = "btc" | "bch" | "ltc" | "doge" | "evm" | "tron";
const DERIVABLE: readonly string[] = ["btc", "bch", "ltc", "doge", "evm", "tron"];

/**
 * A pair refused because its source network cannot give a deposit address now: `pair_unavailable`
 * on the `from` side (docs/errors.md), which Ledger's facade tells apart (NO_DEPOSIT_WALLET_ERROR).
 */
export const noDepositRefusal = (reason: string): Refusal => ({
  code: "pair_unavailable",
  side: "from",
  detail: `Pair unavailable: ${reason}.`,
});

/** How an order on a network gets its deposit address (DESIGN.md §4). */
export type DepositScheme =
  | { kind: "derive"; family: DerivableFamily; xpub: string; testnet?: boolean }
  | { kind: "memo"; address: string }
  | { kind: "pool"; network: string }
  | { kind: "none"; reason: string };

export interface DepositConfig {
  /** DEPOSIT_XPUB_<FAMILY> values by upper-case family (BTC, BCH, LTC, DOGE, EVM, TRON). */
  xpubs: Readonly<Record<string, string>>;
  /** DEPOSIT_ADDRESS_<NETWORK> values by network (memo networks). */
  addresses: Readonly<Record<string, string>>;
}

/**
 * Memo networks share one configured address and tell orders apart by tag; secp256k1 chains derive
 * a fresh address per order from the account xpub at a path taken from the order's id (so ETH and
 * BSC, which share the EVM xpub, never hand out the same one twice: src/domain/deposit-allocation.ts);
 * ed25519 chains without public derivation draw from an operator-loaded pool.
 */
export function depositScheme(network: string, isMemo: boolean, config: DepositConfig): DepositScheme {
  if (isMemo) {
    const address = config.addresses[network];
    if (!address) return { kind: "none", reason: `no deposit address is configured for ${network}` };
    return { kind: "memo", address };
  }
  const family = addressFamily(network);
  if (family === "sol") return { kind: "pool", network };
  if (family && DERIVABLE.includes(family)) {
    const xpub = config.xpubs[family.toUpperCase()];
    if (!xpub) return { kind: "none", reason: `no deposit xpub is configured for ${network}` };
    return { kind: "derive", family: family as DerivableFamily, xpub };
  }
  return { kind: "none", reason: `deposits on ${network} are not supported` };
}

/**
 * The dev deposit keys of wrangler.toml: account xpubs and memo addresses of the public BIP39 test
 * mnemonic "abandon ×11 about". Anyone can spend what is sent to them.
 */
const PUBLIC_TEST_DEPOSIT_KEYS: ReadonlySet<string> = new Set([
  "xpub6CatWdiZiodmUeTDp8LT5or8nmbKNcuyvz7WyksVFkKB4RHwCD3XyuvPEbvqAQY3rAPshWcMLoP2fMFMKHPJ4ZeZXYVUhLv1VMrjPC7PW6V",
  "xpub6ByHsPNSQXTWZ7PLESMY2FufyYWtLXagSUpMQq7Un96SiThZH2iJB1X7pwviH1WtKVeDP6K8d6xxFzzoaFzF3s8BKCZx8oEDdDkNnp4owAZ",
  "xpub6CjGURuDpczf6uNrCCwfhVizn5J3hsWcvZ2m6GAdmAjZnoWJPrx6TFPjGSftc2o5fvox6ubQjSXmjjaHZjwYMH7SGFpHHb9Jg24zBf66mbE",
  "xpub6Bxse8AT19u9HExKtP1EAudLi9CpLxPpxDvanL2fFtM7UFE2Q7TTWRg4bnMnmT4KcyN6GQkSgZmPWDtyUywSii3MDpMNfXSTuzH7gvZywLU",
  "xpub6DCoCpSuQZB2jawqnGMEPS63ePKWkwWPH4TU45Q7LPXWuNd8TMtVxRrgjtEshuqpK3mdhaWHPFsBngh5GFZaM6si3yZdUsT8ddYM3PwnATt",
  "xpub6D1AabNHCupeiLM65ZR9UStMhJ1vCpyV4XbZdyhMZBiJXALQtmn9p42VTQckoHVn8WNqS7dqnJokZHAHcHGoaQgmv8D45oNUKx6DZMNZBCd",
  "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh",
  "GB3JDWCQJCWMJ3IILWIGDTQJJC5567PGVEVXSCVPEQOTDN64VJBDQBYX",
  "UQAzWZa6nM5mJev91wGc7VCSfBoIsYRqKJpV78N8Add9-RKY",
]);

/**
 * Whether a network may take deposits, given how they are read and where they go; null when it
 * may, else why not (the pair is then unavailable).
 * - Real payouts (PAYOUT_MODE=http) need real deposits: a source network read from SimChain could be
 *   "paid" by anyone holding the admin token and pay out real coin, and a dev key would hand the
 *   user's deposit to whoever knows the test mnemonic.
 * - Real deposit keys need a real reader, whatever the payout mode: coins sent to a real address
 *   that only SimChain watches are never seen, and the order expires with the user's money.
 * Pools are loaded by the operator and cannot be told apart, so only the payout rule covers them.
 */
export function realPayoutRefusal(
  network: string,
  scheme: DepositScheme,
  payoutMode: "simulated" | "http",
  /** CHAIN_MODE as configured; parsed only when the answer depends on it (this runs on every quote). */
  chainModeSetting: string,
): string | null {
  const key = scheme.kind === "derive" ? scheme.xpub : scheme.kind === "memo" ? scheme.address : null;
  const devKey = key !== null && PUBLIC_TEST_DEPOSIT_KEYS.has(key);
  const realKey = key !== null && !devKey;
  if (payoutMode !== "http" && !realKey) return null;
  const chainMode = chainModeFor(chainModeSetting, network);
  const simulated = chainMode === undefined || chainMode === "simulated";
  if (simulated && payoutMode === "http")
    return `${network} deposits are read from the simulated chain while payouts are real`;
  if (simulated)
    return `the ${network} deposit key is real but deposits are read from the simulated chain (set CHAIN_MODE)`;
  if (!modeReadsNetwork(chainMode, network))
    return `CHAIN_MODE names ${chainMode} for ${network}, which does not read that chain`;
  if (devKey) return `the ${network} deposit key is the public dev key from wrangler.toml`;
  return null;
}

/**
 * Which deposit drives an order when its first one has its confirmations (docs/lifecycle.md,
 * "Which deposit drives the order"): the earliest confirmed deposit whose amount is acceptable;
 * when none is, the first one with its verdict. So a dust or split first transfer cannot push the
 * real payment aside: it becomes an extra deposit, the payment drives the order.
 * `candidates` are the confirmed deposits, earliest first, the current driving one first of all.
 */
export function chooseDeposit<T, V extends { acceptable: boolean }>(
  candidates: readonly T[],
  verdictOf: (t: T) => V,
): { deposit: T; verdict: V } | null {
  let first: { deposit: T; verdict: V } | null = null;
  for (const deposit of candidates) {
    const verdict = verdictOf(deposit);
    if (verdict.acceptable) return { deposit, verdict };
    first ??= { deposit, verdict };
  }
  return first;
}

interface TransferId {
  txid: string;
  index: number;
  amount: string;
}

/**
 * An order's deposit in a listing: the same txid and index, or else the same txid and amount under
 * another index that is not a deposit already logged as extra (`extras`, "txid:index"). A token
 * transfer's index is its log index, which is block-wide, so a transaction re-mined in another
 * block after a reorg comes back under a new one; matching on the index alone would call it dropped.
 */
export function findDeposit<T extends TransferId>(
  transfers: readonly T[],
  deposit: TransferId,
  extras: ReadonlySet<string>,
): T | undefined {
  const exact = transfers.find((t) => t.txid === deposit.txid && t.index === deposit.index);
  if (exact) return exact;
  const amount = parseDecimal(deposit.amount);
  return transfers.find(
    (t) =>
      t.txid === deposit.txid && !extras.has(`${t.txid}:${t.index}`) && parseDecimal(t.amount).eq(amount),
  );
}
