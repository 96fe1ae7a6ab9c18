-- Region restrictions (docs/operators.md, "Region restrictions"): one row, the operator's whole
-- configuration as JSON ({"countries": [...], "coins": {"XMR": ["GB"]}}); read through an
-- isolate cache, never per request.
CREATE TABLE region_restrictions (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  config_json TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
