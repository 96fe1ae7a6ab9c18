import { balanceSourceFor } from "../adapters/registry";
import { getConfig } from "../config";
import { Dec, type Decimal } from "../domain/money";
import { getBalance } from "../storage/liquidity";

/** How long the ledger trusts the balance it read (docs/liquidity.md). */
export const BALANCE_CACHE_MS = 30_000;

/** Who said how much a coin can pay out. */
export type BalanceSourceName = "operator" | "gateway";

export interface Balance {
  amount: Decimal;
  /** When the figure was taken: payouts are counted against it from then on. */
  basis: string;
  source: BalanceSourceName;
}

/** The gateway's last signed figure for a coin, kept by its ledger for when an answer is bad. */
interface KeptFigure {
  available: string;
  basis: string;
}

/**
 * A coin's balance: the operator's (PUT /admin/v1/liquidity) when set, else the payout gateway's
 * signed `GET /balances` (PAYOUT_MODE=http), else none (not limited). A gateway answer that is
 * not signed, not readable or not there is never used: the last good figure stands, with a warning.
 */
export async function readBalance(
  env: Env,
  kv: DurableObjectStorage["kv"],
  coin: string,
  network: string,
): Promise<Balance | null> {
  const row = await getBalance(env.DB, coin, network);
  if (row?.balance != null)
    return { amount: new Dec(row.balance), basis: row.updated_at, source: "operator" };
  const config = getConfig(env);
  const source = balanceSourceFor(config);
  if (!source) return null;
  const kept = kv.get<KeptFigure>("gateway_balance");
  try {
    // Each coin's ledger asks for itself (its own 30 s cache): a few calls a minute per coin.
    const entry = (await source.balances()).find((b) => b.coin === coin && b.network === network);
    if (!entry) {
      kv.delete("gateway_balance");
      return null;
    }
    // The gateway's figure already has every payout it sent taken off: count anew from this read.
    const figure = { available: entry.available, basis: `gateway@${new Date().toISOString()}` };
    kv.put("gateway_balance", figure);
    return { amount: new Dec(figure.available), basis: figure.basis, source: "gateway" };
  } catch (err) {
    console.error(
      JSON.stringify({
        level: "warn",
        msg: "payout gateway balances not usable: keeping the last good figure",
        coin,
        network,
        kept: kept?.available ?? null,
        error: String(err),
      }),
    );
    return kept ? { amount: new Dec(kept.available), basis: kept.basis, source: "gateway" } : null;
  }
}
