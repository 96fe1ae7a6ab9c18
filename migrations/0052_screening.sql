-- Address screening (docs/operators.md, "Screening").

-- The OFAC sanctions list as last downloaded, one row: per asset file its match keys and when it
-- was last fetched good. A bad download never replaces an asset's keys (src/services/screening.ts).
CREATE TABLE sanctions_list (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  -- Hash of the keys held: unchanged while the list is.
  version TEXT NOT NULL,
  -- {"<ASSET>": {"fetched_at": iso, "keys": ["evm:0x…", …]}, …}
  assets_json TEXT NOT NULL,
  -- The last download attempt and what went wrong with it (null: every file was good).
  attempted_at TEXT NOT NULL,
  error TEXT
);

-- The operator's own listed addresses, for both modes.
CREATE TABLE screening_entries (
  id TEXT PRIMARY KEY,
  network TEXT NOT NULL,
  address TEXT NOT NULL,
  -- src/domain/screening.ts matchKey: family and canonical address.
  match_key TEXT NOT NULL,
  category TEXT NOT NULL,
  note TEXT NOT NULL,
  created_at TEXT NOT NULL,
  created_by TEXT NOT NULL
);
