-- The currency catalog: one row per coin on one network. Amounts are decimal strings (never floats).
CREATE TABLE currencies (
  id TEXT PRIMARY KEY,                      -- UUID, the contract's Currency.id
  coin TEXT NOT NULL,                       -- ticker, upper case
  network TEXT NOT NULL,                    -- short upper-case network code (docs/networks.md)
  name TEXT NOT NULL,
  is_active INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
  is_deposit_enabled INTEGER NOT NULL DEFAULT 1 CHECK (is_deposit_enabled IN (0, 1)),
  is_withdraw_enabled INTEGER NOT NULL DEFAULT 1 CHECK (is_withdraw_enabled IN (0, 1)),
  min_amount TEXT NOT NULL,
  max_amount TEXT NOT NULL,
  min_confirmations INTEGER NOT NULL CHECK (min_confirmations >= 0),
  decimals INTEGER NOT NULL CHECK (decimals BETWEEN 0 AND 18),
  is_memo INTEGER NOT NULL DEFAULT 0 CHECK (is_memo IN (0, 1)),
  withdraw_fee TEXT NOT NULL,               -- payout network fee charged when this row is the destination
  contract_address TEXT,                    -- token contract / mint; NULL for the network's native coin
  explorer_tx_url TEXT,                     -- template with {txid}
  explorer_address_url TEXT,                -- template with {address}
  sort_order INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (coin, network)
);
CREATE INDEX currencies_active_order ON currencies (is_active, sort_order, coin, network);
