-- Liquidity balances set by the operator (PUT /admin/v1/liquidity, docs/liquidity.md): how much of
-- a coin on a network the service can pay out. A coin without a row is not liquidity-limited.
-- The LiquidityLedger object of the coin reads its row (cached 30 s) and counts payouts made since
-- `updated_at` against it; a new PUT restarts that count.
CREATE TABLE liquidity_balances (
  coin TEXT NOT NULL,
  network TEXT NOT NULL,
  balance TEXT,                              -- NULL: not limited (the row only keeps the history)
  updated_at TEXT NOT NULL,
  PRIMARY KEY (coin, network)
);
