-- Partner payouts (issue 30, docs/earnings.md "Statements"): each partner's payout settings, the
-- monthly statements issued at month close (one per partner, mode and month: the UNIQUE key is
-- what makes a re-run of the month close create nothing new), and operator adjustments waiting
-- for the next statement. Amounts are decimal strings; USD keeps 6 decimals like the order index.
CREATE TABLE payout_settings (
  partner_id TEXT PRIMARY KEY REFERENCES partners (id),
  coin TEXT NOT NULL,
  network TEXT NOT NULL,
  address TEXT,                              -- NULL until the first address has cooled
  tag TEXT,
  minimum_usd TEXT NOT NULL,
  -- An address change (with its asset: another network needs another address) waits here for its
  -- cooling period (effective_at); any team admin can cancel it until then.
  pending_coin TEXT,
  pending_network TEXT,
  pending_address TEXT,
  pending_tag TEXT,
  pending_effective_at TEXT,
  pending_requested_by TEXT,
  pending_requested_at TEXT,
  updated_at TEXT NOT NULL
);

CREATE TABLE statements (
  id TEXT PRIMARY KEY,                       -- stmt_<mode>_<yyyymm>_<partner id>
  partner_id TEXT NOT NULL REFERENCES partners (id),
  livemode INTEGER NOT NULL CHECK (livemode IN (0, 1)),
  month TEXT NOT NULL,                       -- YYYY-MM, UTC
  issued_at TEXT NOT NULL,
  -- Immutable once issued: the month's lines and totals (a correction is next month's adjustment).
  lines TEXT NOT NULL,                       -- JSON: per coin {coin, orders, markup, markup_usd, unpriced}
  adjustments TEXT NOT NULL,                 -- JSON: [{id, amount_usd, reason}]
  orders INTEGER NOT NULL,
  earnings_usd TEXT NOT NULL,
  adjustments_usd TEXT NOT NULL,
  carry_in_usd TEXT NOT NULL,
  total_usd TEXT NOT NULL,
  minimum_usd TEXT NOT NULL,
  -- The payout: asset and destination fixed at issue (or when the first address cools), price
  -- recorded when it is converted, then the ledger's outcome.
  status TEXT NOT NULL CHECK (status IN ('pending', 'paid', 'held', 'carried_over')),
  hold_reason TEXT,
  coin TEXT,
  network TEXT,
  address TEXT,
  tag TEXT,
  price_usd TEXT,
  amount TEXT,
  due_at TEXT NOT NULL,
  round INTEGER NOT NULL DEFAULT 1,          -- a release after a refused payout starts a new ledger key
  dispatched_at TEXT,                        -- set once the payout's intent may exist: no hold after it
  txid TEXT,
  paid_at TEXT,
  UNIQUE (partner_id, livemode, month)
);
CREATE INDEX statements_due ON statements (status, due_at);

CREATE TABLE statement_adjustments (
  id TEXT PRIMARY KEY,
  partner_id TEXT NOT NULL REFERENCES partners (id),
  livemode INTEGER NOT NULL CHECK (livemode IN (0, 1)),
  amount_usd TEXT NOT NULL,                  -- signed
  reason TEXT NOT NULL,
  created_by TEXT NOT NULL,
  created_at TEXT NOT NULL,
  statement_id TEXT                          -- NULL until the next statement takes it
);
CREATE INDEX statement_adjustments_open ON statement_adjustments (partner_id, livemode, statement_id);
