import type { CurrencyRow } from "./currency";
import { DomainError } from "./errors";

export interface PairRequest {
  coinFrom: string;
  networkFrom?: string | undefined;
  coinTo: string;
  networkTo?: string | undefined;
}

export interface ResolvedPair {
  from: CurrencyRow;
  to: CurrencyRow;
}

const unavailable = (reason: string) => new DomainError("pair_unavailable", `Pair unavailable: ${reason}.`);

/** One side of a pair: the catalog row for a coin on a network (the network may be implied). */
function resolveSide(
  catalog: readonly CurrencyRow[],
  coin: string,
  network: string | undefined,
  side: "from" | "to",
) {
  const rows = catalog.filter((r) => r.coin === coin);
  if (rows.length === 0) throw unavailable(`unknown coin ${coin}`);
  const active = rows.filter((r) => r.is_active === 1);
  if (network !== undefined) {
    const row = rows.find((r) => r.network === network);
    if (!row) {
      const on = active.map((r) => r.network).join(", ");
      throw unavailable(`${coin} is not available on network ${network}${on ? `; it is on ${on}` : ""}`);
    }
    if (row.is_active !== 1) throw unavailable(`${coin} on ${network} is not active`);
    return row;
  }
  if (active.length === 0) throw unavailable(`${coin} is not active`);
  if (active.length > 1) {
    const networks = active.map((r) => r.network).join(", ");
    throw new DomainError(
      "network_required",
      `${coin} is available on several networks (${networks}); pass network_${side} to choose one.`,
    );
  }
  return active[0] as CurrencyRow;
}

/**
 * The pair a request names, checked against the catalog: known and active coins, networks when a
 * coin is on several, deposits enabled on the source, withdrawals on the destination, two sides.
 * Tickers and network codes are matched case-insensitively.
 */
export function resolvePair(catalog: readonly CurrencyRow[], req: PairRequest): ResolvedPair {
  const from = resolveSide(catalog, req.coinFrom.toUpperCase(), req.networkFrom?.toUpperCase(), "from");
  const to = resolveSide(catalog, req.coinTo.toUpperCase(), req.networkTo?.toUpperCase(), "to");
  if (from.coin === to.coin && from.network === to.network) {
    throw unavailable(`${from.coin} on ${from.network} on both sides`);
  }
  if (from.is_deposit_enabled !== 1)
    throw unavailable(`deposits of ${from.coin} on ${from.network} are disabled`);
  if (to.is_withdraw_enabled !== 1)
    throw unavailable(`withdrawals of ${to.coin} on ${to.network} are disabled`);
  return { from, to };
}
