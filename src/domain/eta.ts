/**
 * How long a swap takes, from the deposit first seen to the payout sent (docs/orders.md, "How long
 * it takes"): from the service's own completed live orders of the same network pair where it has
 * enough of them, else an estimate from the source chain's confirmations and block time.
 */
import { finalitySeconds, networkFacts } from "./networks";

/** Seconds, as a median and a 90th percentile. */
export interface EtaRange {
  p50: number;
  p90: number;
}

export type EtaSource = "history" | "estimate";

export interface Eta {
  range: EtaRange;
  source: EtaSource;
}

/** A pair's completed orders as the cron last summed them (table `pair_eta`). */
export interface PairHistory {
  orders: number;
  p50: number;
  p90: number;
}

/** Below this many completed orders in the window a pair's own figures are too few to trust. */
export const ETA_MIN_ORDERS = 20;
/** The rolling window the cron sums: the last days, and at most the newest orders of each pair. */
export const ETA_WINDOW_DAYS = 30;
export const ETA_WINDOW_ORDERS = 500;

/**
 * The estimate's fixed parts, seconds: the venue leg (placed at once after confirmation, filled in
 * seconds) and the payout (the gateway's send; its broadcast is the end of the measured time).
 */
export const EXCHANGE_SECONDS = 30;
export const PAYOUT_SECONDS = 60;

/** The estimate's clock where the network table gives no block time (docs/networks.md, "Block times"). */
const UNKNOWN_BLOCK_SECONDS = 60;

/** A network's mean time between blocks (ledgers, slots), seconds: the estimate's clock. */
export const blockSeconds = (network: string): number =>
  networkFacts(network)?.blockSeconds ?? UNKNOWN_BLOCK_SECONDS;

/** How long a network's block waits to be final before its confirmations count (rollups). */
export const settleSeconds = (network: string): number => {
  const facts = networkFacts(network);
  return facts ? finalitySeconds(facts) : 0;
};

/** The nearest-rank percentile (q in 0–100) of values sorted ascending. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new Error("percentile of nothing");
  const rank = Math.max(1, Math.ceil((q / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] as number;
}

/** p50 and p90 of durations in seconds, rounded up to whole seconds. */
export function rangeOf(durations: readonly number[]): EtaRange {
  const sorted = [...durations].sort((a, b) => a - b);
  return { p50: Math.ceil(percentile(sorted, 50)), p90: Math.ceil(percentile(sorted, 90)) };
}

/**
 * The time `blocks` blocks take when they arrive at random at one per `blockSeconds` on average:
 * a gamma distribution, whose quantiles the Wilson–Hilferty approximation gives within a few per
 * cent (z: the standard normal quantile, 0 for the median, 1.2816 for the 90th percentile).
 */
function blocksQuantile(blocks: number, blockSeconds: number, z: number): number {
  if (blocks <= 0) return 0;
  const c = 1 - 1 / (9 * blocks) + z / (3 * Math.sqrt(blocks));
  return blocks * blockSeconds * c ** 3;
}

/**
 * The estimate while a pair has too little history: the deposit's confirmations at the source
 * chain's block time (a block to be mined in, then the rest), the wait for a rollup's block to be
 * final, one poll's delay, the venue leg and the payout.
 */
export function estimateEta(input: {
  confirmations: number;
  blockSeconds: number;
  settleSeconds?: number;
  pollSeconds: number;
}): EtaRange {
  const blocks = Math.max(1, input.confirmations);
  const fixed = (input.settleSeconds ?? 0) + input.pollSeconds + EXCHANGE_SECONDS + PAYOUT_SECONDS;
  return {
    p50: Math.ceil(blocksQuantile(blocks, input.blockSeconds, 0) + fixed),
    p90: Math.ceil(blocksQuantile(blocks, input.blockSeconds, 1.2816) + fixed),
  };
}

/** The pair's own figures once it has enough completed orders, else the estimate. */
export function pairEta(history: PairHistory | undefined, estimate: EtaRange): Eta {
  return history && history.orders >= ETA_MIN_ORDERS
    ? { range: { p50: history.p50, p90: history.p90 }, source: "history" }
    : { range: estimate, source: "estimate" };
}
