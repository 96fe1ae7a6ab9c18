-- Widgets and referral links (docs/widget.md): a partner's publishable widget ids, their daily
-- view counts, and which widget an order came from.
CREATE TABLE widgets (
  id TEXT PRIMARY KEY,                       -- "wid_…", publishable (not a secret)
  partner_id TEXT NOT NULL REFERENCES partners (id),
  mode TEXT NOT NULL CHECK (mode IN ('live', 'test')),
  name TEXT NOT NULL,
  allowed_origins TEXT NOT NULL,             -- JSON array of origins: the frame-ancestors
  theme TEXT NOT NULL,                       -- JSON {accent, scheme}
  default_pair TEXT,                         -- JSON {coin_from, network_from, coin_to, network_to}
  default_amount TEXT,                       -- decimal string, in coin_from
  coins TEXT,                                -- JSON array of tickers the widget offers; NULL: all
  locked_recipient TEXT,                     -- JSON {address, network, tag}; NULL: the user chooses
  created_by TEXT NOT NULL,                  -- "operator" or the cabinet member's e-mail
  created_at TEXT NOT NULL,
  revoked_at TEXT
);
CREATE INDEX widgets_partner ON widgets (partner_id, created_at);

-- Views of a widget's pages per UTC day (the cabinet's views → orders → completed).
CREATE TABLE widget_views (
  widget_id TEXT NOT NULL,
  day TEXT NOT NULL,                         -- YYYY-MM-DD
  views INTEGER NOT NULL,
  PRIMARY KEY (widget_id, day)
);

-- The widget an order was created through (NULL: through the API).
ALTER TABLE orders ADD COLUMN widget_id TEXT;
CREATE INDEX orders_widget_created ON orders (widget_id, created_at) WHERE widget_id IS NOT NULL;
