/** Operator-set liquidity balances (migrations/0019_liquidity.sql). */
export interface BalanceRow {
  coin: string;
  network: string;
  /** null: the coin is not liquidity-limited. */
  balance: string | null;
  updated_at: string;
}

export async function getBalance(db: D1Database, coin: string, network: string): Promise<BalanceRow | null> {
  return db
    .prepare(
      "SELECT coin, network, balance, updated_at FROM liquidity_balances WHERE coin = ? AND network = ?",
    )
    .bind(coin, network)
    .first<BalanceRow>();
}

export async function listBalances(db: D1Database): Promise<BalanceRow[]> {
  const { results } = await db
    .prepare("SELECT coin, network, balance, updated_at FROM liquidity_balances ORDER BY coin, network")
    .all<BalanceRow>();
  return results;
}

/** The upsert, to run in the same D1 batch as its audit entry. */
export function putBalanceStatement(db: D1Database, row: BalanceRow): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO liquidity_balances (coin, network, balance, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (coin, network) DO UPDATE SET balance = excluded.balance, updated_at = excluded.updated_at`,
    )
    .bind(row.coin, row.network, row.balance, row.updated_at);
}
