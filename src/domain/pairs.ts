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
  purpose: PairPurpose,
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
    if (row.is_active !== 1 && !(purpose === "existing_order" && side === "from"))
      throw unavailable(`${coin} on ${network} is not active`);
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
 * What a pair is resolved for. The operator's switches on the SOURCE coin (active, deposits) stop
 * new orders only: an order already made goes on being priced and exchanged after they are turned
 * off, so a deposit the service invited is never stranded. Switches on the destination (active,
 * withdrawals) still apply to it: a coin the service cannot pay out fails the exchange and the
 * order is refunded (docs/operators.md, "Catalog").
 */
export type PairPurpose = "new_order" | "existing_order";

/**
 * The pair a request names, checked against the catalog: known coins, networks when a coin is on
 * several, two sides, an active destination with withdrawals enabled; for a new order also an
 * active source with deposits enabled. Tickers and network codes are matched case-insensitively.
 */
export function resolvePair(
  catalog: readonly CurrencyRow[],
  req: PairRequest,
  purpose: PairPurpose = "new_order",
): ResolvedPair {
  const from = resolveSide(
    catalog,
    req.coinFrom.toUpperCase(),
    req.networkFrom?.toUpperCase(),
    "from",
    purpose,
  );
  const to = resolveSide(catalog, req.coinTo.toUpperCase(), req.networkTo?.toUpperCase(), "to", purpose);
  if (from.coin === to.coin && from.network === to.network) {
    throw unavailable(`${from.coin} on ${from.network} on both sides`);
  }
  if (from.is_deposit_enabled !== 1 && purpose === "new_order")
    throw unavailable(`deposits of ${from.coin} on ${from.network} are disabled`);
  if (to.is_withdraw_enabled !== 1)
    throw unavailable(`withdrawals of ${to.coin} on ${to.network} are disabled`);
  return { from, to };
}
