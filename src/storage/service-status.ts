/**
 * The service status row, its incidents and the signals the cron reads for them (migrations 0037,
 * 0038; docs/operators.md, "Service status and incidents").
 */

import type {
  NetworkAlerts,
  OpenIncident,
  ReaderProbe,
  ServiceLevel,
  ServiceStatus,
} from "../domain/service-status";
import { TtlCache } from "../lib/ttl-cache";
import type { D1Reads } from "./session";

/** As the catalog: a few seconds in isolate memory, so a quote's status check costs no D1 query. */
const STATUS_TTL_MS = 5_000;
const cache = new TtlCache<ServiceStatus | null>(STATUS_TTL_MS, 1);
const openCache = new TtlCache<IncidentWithNotes[]>(STATUS_TTL_MS, 1);

/** The status the cron last wrote; null before its first run. */
export function loadServiceStatus(db: D1Reads): Promise<ServiceStatus | null> {
  return cache.get("status", async () => {
    const row = await db
      .prepare("SELECT status_json FROM service_status WHERE id = 1")
      .first<{ status_json: string }>();
    return row ? (JSON.parse(row.status_json) as ServiceStatus) : null;
  });
}

export async function loadProbes(db: D1Database): Promise<Record<string, ReaderProbe>> {
  const row = await db
    .prepare("SELECT probes_json FROM service_status WHERE id = 1")
    .first<{ probes_json: string }>();
  return row ? (JSON.parse(row.probes_json) as Record<string, ReaderProbe>) : {};
}

export function putServiceStatusStatement(
  db: D1Database,
  status: ServiceStatus,
  probes: Record<string, ReaderProbe>,
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO service_status (id, status_json, probes_json, updated_at) VALUES (1, ?1, ?2, ?3)
       ON CONFLICT (id) DO UPDATE SET status_json = ?1, probes_json = ?2, updated_at = ?3`,
    )
    .bind(JSON.stringify(status), JSON.stringify(probes), new Date(status.at).toISOString());
}

/** This isolate applies a status just written at once; others within the cache's few seconds. */
export function invalidateServiceStatus(): void {
  cache.clear();
  openCache.clear();
}

const NO_ALERTS: NetworkAlerts = { sends: 0, gatewayConfig: 0, venue: 0 };

/**
 * Open alerts of live orders, by the network they hold up: a payout's on the destination network,
 * a refund's on the source network, the venue's and liquidity's on the destination's payout.
 */
export async function openAlertsByNetwork(db: D1Database): Promise<Map<string, NetworkAlerts>> {
  const { results } = await db
    .prepare(
      `SELECT a.kind, o.network_from, o.network_to FROM alerts a JOIN orders o ON o.id = a.order_id
       WHERE a.open = 1 AND o.livemode = 1`,
    )
    .all<{ kind: string; network_from: string; network_to: string }>();
  const out = new Map<string, NetworkAlerts>();
  const add = (network: string, field: keyof NetworkAlerts) => {
    const n = { ...(out.get(network) ?? NO_ALERTS) };
    n[field]++;
    out.set(network, n);
  };
  for (const r of results) {
    const send = /^(payout|refund|extra_refund)_/.exec(r.kind)?.[1];
    if (!send) add(r.network_to, "venue");
    else
      add(
        send === "payout" ? r.network_to : r.network_from,
        r.kind.endsWith("_gateway_config") ? "gatewayConfig" : "sends",
      );
  }
  return out;
}

/** Webhook events made before `olderThan` (within the retry window) that no attempt has reached. */
export async function webhookBacklog(db: D1Database, since: number, olderThan: number): Promise<number> {
  const row = await db
    .prepare(
      `SELECT COUNT(*) AS n FROM webhook_deliveries
       WHERE created_at >= ? AND created_at < ? AND status = 'pending' AND attempts = 0`,
    )
    .bind(new Date(since).toISOString(), new Date(olderThan).toISOString())
    .first<{ n: number }>();
  return row?.n ?? 0;
}

export interface IncidentRow {
  id: number;
  component: string;
  level: Exclude<ServiceLevel, "operational">;
  summary: string;
  opened_at: string;
  closed_at: string | null;
}

export interface IncidentNoteRow {
  id: number;
  incident_id: number;
  at: string;
  operator: string;
  body: string;
}

export async function openIncidents(db: D1Database): Promise<OpenIncident[]> {
  const { results } = await db
    .prepare("SELECT id, component, level FROM incidents WHERE closed_at IS NULL")
    .all<OpenIncident>();
  return results;
}

export const openIncidentStatement = (
  db: D1Database,
  i: { component: string; level: ServiceLevel; summary: string },
  at: string,
) =>
  db
    .prepare(
      `INSERT INTO incidents (component, level, summary, opened_at) VALUES (?, ?, ?, ?)
       ON CONFLICT DO NOTHING`,
    )
    .bind(i.component, i.level, i.summary, at);

export const escalateIncidentStatement = (db: D1Database, id: number, level: ServiceLevel, summary: string) =>
  db
    .prepare("UPDATE incidents SET level = ?, summary = ? WHERE id = ? AND closed_at IS NULL")
    .bind(level, summary, id);

export const closeIncidentStatement = (db: D1Database, id: number, at: string) =>
  db.prepare("UPDATE incidents SET closed_at = ? WHERE id = ? AND closed_at IS NULL").bind(at, id);

export type IncidentWithNotes = { incident: IncidentRow; notes: IncidentNoteRow[] };

/** The incidents with their notes, oldest note first (at most 100 incidents: D1's bound parameters). */
async function withNotes(db: D1Reads, incidents: IncidentRow[]): Promise<IncidentWithNotes[]> {
  if (incidents.length === 0) return [];
  const ids = incidents.map((r) => r.id);
  const { results: notes } = await db
    .prepare(
      `SELECT id, incident_id, at, operator, body FROM incident_notes
       WHERE incident_id IN (${ids.map(() => "?").join(",")}) ORDER BY at, id`,
    )
    .bind(...ids)
    .all<IncidentNoteRow>();
  return incidents.map((incident) => ({
    incident,
    notes: notes.filter((n) => n.incident_id === incident.id),
  }));
}

/** Incidents open now or opened since `since`, newest first, with their notes. */
export async function listIncidents(db: D1Reads, since: string, limit: number): Promise<IncidentWithNotes[]> {
  const { results } = await db
    .prepare(
      `SELECT id, component, level, summary, opened_at, closed_at FROM incidents
       WHERE opened_at >= ? OR closed_at IS NULL ORDER BY opened_at DESC, id DESC LIMIT ?`,
    )
    .bind(since, Math.min(limit, 100))
    .all<IncidentRow>();
  return withNotes(db, results);
}

/** The open incidents with their notes, from the same few-second isolate cache as the status. */
export function loadOpenIncidents(db: D1Reads): Promise<IncidentWithNotes[]> {
  return openCache.get("open", async () => {
    const { results } = await db
      .prepare(
        `SELECT id, component, level, summary, opened_at, closed_at FROM incidents
         WHERE closed_at IS NULL ORDER BY opened_at DESC, id DESC LIMIT 100`,
      )
      .all<IncidentRow>();
    return withNotes(db, results);
  });
}

export async function loadIncident(db: D1Database, id: number): Promise<IncidentWithNotes | null> {
  const row = await db
    .prepare("SELECT id, component, level, summary, opened_at, closed_at FROM incidents WHERE id = ?")
    .bind(id)
    .first<IncidentRow>();
  return row ? ((await withNotes(db, [row]))[0] ?? null) : null;
}

export const addIncidentNoteStatement = (
  db: D1Database,
  note: { incidentId: number; at: string; operator: string; body: string },
) =>
  db
    .prepare("INSERT INTO incident_notes (incident_id, at, operator, body) VALUES (?, ?, ?, ?) RETURNING id")
    .bind(note.incidentId, note.at, note.operator, note.body);
