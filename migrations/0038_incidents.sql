-- Incidents (docs/operators.md, "Service status and incidents"): one per component (a network, or
-- webhooks) while it is not operational, opened and closed by the cron from the same signals as the
-- status; operators annotate them. /status shows the last 30 days.
CREATE TABLE incidents (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  component TEXT NOT NULL,
  level TEXT NOT NULL CHECK (level IN ('degraded', 'down')),
  summary TEXT NOT NULL,
  opened_at TEXT NOT NULL,
  closed_at TEXT
);
-- At most one open incident per component, whatever two overlapping cron runs do.
CREATE UNIQUE INDEX incidents_open_component ON incidents (component) WHERE closed_at IS NULL;
CREATE INDEX incidents_opened ON incidents (opened_at);

CREATE TABLE incident_notes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  incident_id INTEGER NOT NULL REFERENCES incidents (id),
  at TEXT NOT NULL,
  operator TEXT NOT NULL,
  body TEXT NOT NULL
);
CREATE INDEX incident_notes_incident ON incident_notes (incident_id, at);
