-- Deposits to a shared memo address (XRP, XLM, TON) whose tag / memo / comment matches no order:
-- they never drive an order. Recorded once, when the address-wide watch first sees them, for the
-- operator to refund to `sender` (docs/lifecycle.md, "Chain readers").
CREATE TABLE unclaimed_deposits (
  network TEXT NOT NULL,
  txid TEXT NOT NULL,
  idx INTEGER NOT NULL,                      -- IncomingTransfer.index (operation index on XLM)
  coin TEXT NOT NULL,
  address TEXT NOT NULL,                     -- the shared deposit address
  tag TEXT,                                  -- as sent; NULL when the transfer carried none
  amount TEXT NOT NULL,                      -- coin units, decimal string
  sender TEXT,                               -- whom to refund, when the chain names one
  first_seen_at TEXT NOT NULL,
  PRIMARY KEY (network, txid, idx)
);
