/**
 * The service status and its incidents (docs/operators.md, "Service status and incidents"). The
 * cron gathers the signals once a minute, judges them (src/domain/service-status.ts) and writes one
 * row; requests read that row through an isolate cache, so no request fans out to the chains.
 */
import { chainReaderFor } from "../adapters/registry";
import type { Config } from "../config";
import {
  deriveServiceStatus,
  incidentChanges,
  type NetworkSignals,
  nextProbe,
  type ReaderProbe,
  type ServiceStatus,
  type StatusSignals,
} from "../domain/service-status";
import { loadCatalog } from "../storage/catalog";
import { currentPrices } from "../storage/market";
import { auditStatement } from "../storage/operator-audit";
import { poolCounts } from "../storage/orders";
import {
  addIncidentNoteStatement,
  closeIncidentStatement,
  escalateIncidentStatement,
  type IncidentWithNotes,
  invalidateServiceStatus,
  listIncidents,
  loadIncident,
  loadProbes,
  openAlertsByNetwork,
  openIncidentStatement,
  openIncidents,
  putServiceStatusStatement,
  webhookBacklog,
} from "../storage/service-status";
import type { D1Reads } from "../storage/session";
import { poolNetworks, stockOf } from "./address-pools";
import type { Actor } from "./catalog-admin";

export type { IncidentWithNotes };

/** A probe that has not answered in this long counts as a failure. */
const PROBE_TIMEOUT_MS = 10_000;
/** A webhook event no attempt reached this long after it was made: the queue is stuck. */
const WEBHOOK_BACKLOG_AFTER_MS = 5 * 60_000;
/** Only events within the retry window count (older ones are history). */
const WEBHOOK_WINDOW_MS = 3 * 86_400_000;

async function probe(env: Env, config: Config, network: string): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("probe timed out")), PROBE_TIMEOUT_MS);
  });
  try {
    // Building the reader is inside: a network with no reader configured is not being read either.
    await Promise.race([
      Promise.resolve().then(() => chainReaderFor(env, config, network).tipHeight()),
      timeout,
    ]);
    return true;
  } catch (err) {
    console.error(
      JSON.stringify({ level: "warn", network, msg: "chain reader probe failed", error: String(err) }),
    );
    return false;
  } finally {
    clearTimeout(timer);
  }
}

async function gatherSignals(
  env: Env,
  config: Config,
  now: number,
): Promise<{ signals: StatusSignals; probes: Record<string, ReaderProbe> }> {
  const [catalog, prices, alerts, backlog, before, pools] = await Promise.all([
    loadCatalog(env.DB),
    // As quotes read them: with the simulated source (a plain `wrangler dev` has no cron) a read refreshes old prices.
    currentPrices(env, config, now),
    openAlertsByNetwork(env.DB),
    webhookBacklog(env.DB, now - WEBHOOK_WINDOW_MS, now - WEBHOOK_BACKLOG_AFTER_MS),
    loadProbes(env.DB),
    poolCounts(env.DB),
  ]);
  const poolNetworksNow = new Set(poolNetworks(config, catalog));
  const stock = new Map(pools.map((c) => [c.network, stockOf(c)]));
  const active = catalog.filter((r) => r.is_active === 1);
  const networks = [...new Set(active.map((r) => r.network))];
  const answered = await Promise.all(networks.map((n) => probe(env, config, n)));
  const probes: Record<string, ReaderProbe> = {};
  const maxAgeMs = config.PRICE_MAX_AGE_SECONDS * 1000;
  const signals: NetworkSignals[] = networks.map((network, i) => {
    const reader = nextProbe(before[network], answered[i] === true, now);
    probes[network] = reader;
    const stalePrices = active
      .filter((r) => r.network === network)
      .map((r) => r.coin)
      .filter((coin) => {
        const p = prices.get(coin);
        return !p || !(now - Date.parse(p.updated_at) <= maxAgeMs);
      });
    return {
      network,
      reader,
      alerts: alerts.get(network) ?? { sends: 0, gatewayConfig: 0, venue: 0 },
      stalePrices: [...new Set(stalePrices)],
      // A pool network with no address loaded yet has no row: it is empty.
      depositPool: poolNetworksNow.has(network) ? (stock.get(network) ?? { free: 0, unreserved: 0 }) : null,
    };
  });
  return { signals: { at: now, networks: signals, webhookBacklog: backlog }, probes };
}

/** The cron's step: judge the signals now, store the status, open and close incidents with it. */
export async function refreshServiceStatus(env: Env, config: Config, now: number): Promise<ServiceStatus> {
  const { signals, probes } = await gatherSignals(env, config, now);
  const status = deriveServiceStatus(signals);
  const changes = incidentChanges(await openIncidents(env.DB), status);
  const at = new Date(now).toISOString();
  await env.DB.batch([
    putServiceStatusStatement(env.DB, status, probes),
    ...changes.close.map((id) => closeIncidentStatement(env.DB, id, at)),
    ...changes.escalate.map((e) => escalateIncidentStatement(env.DB, e.id, e.level, e.summary)),
    ...changes.open.map((o) => openIncidentStatement(env.DB, o, at)),
  ]);
  invalidateServiceStatus();
  return status;
}

/** Incidents open now or opened within `days`, newest first, with the operators' notes. */
export function recentIncidents(
  db: D1Reads,
  now: number,
  days: number,
  limit: number,
): Promise<IncidentWithNotes[]> {
  return listIncidents(db, new Date(now - days * 86_400_000).toISOString(), limit);
}

/** An operator's note on an incident, audited in the same batch (incident.annotate). */
export async function annotateIncident(
  env: Env,
  actor: Actor,
  id: number,
  body: string,
): Promise<IncidentWithNotes | null> {
  if (!(await loadIncident(env.DB, id))) return null;
  const at = new Date().toISOString();
  await env.DB.batch([
    addIncidentNoteStatement(env.DB, { incidentId: id, at, operator: actor.operator, body }),
    auditStatement(env.DB, {
      at,
      operator: actor.operator,
      action: "incident.annotate",
      entityType: "incident",
      entityId: String(id),
      before: null,
      after: { body },
      requestId: actor.requestId,
    }),
  ]);
  invalidateServiceStatus();
  return loadIncident(env.DB, id);
}
