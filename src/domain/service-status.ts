import { type PoolStock, poolDepositLevel } from "./address-pool";
import type { Refusal } from "./errors";

/**
 * The service status published to wallets (GET /api/v1/service-status, /status; docs/integrate.md,
 * "Service status"): per network, whether deposits and payouts work now, derived from signals the
 * Worker records anyway (docs/operators.md, "Service status and incidents"). Pure: the cron gathers
 * a snapshot of signals, these functions judge it and say which incidents open and close.
 */

export const SERVICE_LEVELS = ["operational", "degraded", "down"] as const;
export type ServiceLevel = (typeof SERVICE_LEVELS)[number];

/** One network's chain reader as the cron's probe saw it (its tip height asked once a run). */
export interface ReaderProbe {
  /** The last time the reader answered; null if it never has since it was first probed. */
  okAt: number | null;
  /** When it started failing (the first failure since the last answer); null while it answers. */
  failingSince: number | null;
}

/** Open operator alerts of live orders touching a network, by what they hold up. */
export interface NetworkAlerts {
  /** Sends on this network (payouts, refunds) stuck: unknown outcome or a refused send. */
  sends: number;
  /** The payout gateway is misconfigured for this network's sends. */
  gatewayConfig: number;
  /** Orders paying out on this network waiting on the venue or on liquidity. */
  venue: number;
}

export interface NetworkSignals {
  network: string;
  reader: ReaderProbe;
  alerts: NetworkAlerts;
  /** Coins of this network with no price fresh enough to quote. */
  stalePrices: readonly string[];
  /** The deposit-address pool of a network whose live deposits draw from one (SOL); else null. */
  depositPool: PoolStock | null;
}

export interface StatusSignals {
  at: number;
  networks: readonly NetworkSignals[];
  /** Webhook events not yet attempted a while after they were made: the delivery queue is stuck. */
  webhookBacklog: number;
}

export interface StatusThresholds {
  /** The reader's view this old (no answer for this long) is degraded; four times as old is down. */
  readerLagDegradedS: number;
  /** Stuck sends on one network from which its payouts count as down rather than degraded. */
  sendsDownCount: number;
}

export const DEFAULT_THRESHOLDS: StatusThresholds = { readerLagDegradedS: 180, sendsDownCount: 3 };

export interface NetworkStatus {
  network: string;
  deposits: ServiceLevel;
  payouts: ServiceLevel;
  /** Seconds since the chain reader last answered; null if it never has. */
  readerLagS: number | null;
  /** Why, in words fit for the public: never an error text from a provider. */
  reasons: string[];
}

export interface ServiceStatus {
  at: number;
  overall: ServiceLevel;
  webhooks: ServiceLevel;
  networks: NetworkStatus[];
}

const RANK: Record<ServiceLevel, number> = { operational: 0, degraded: 1, down: 2 };
export const worst = (...levels: ServiceLevel[]): ServiceLevel =>
  levels.reduce<ServiceLevel>((a, b) => (RANK[b] > RANK[a] ? b : a), "operational");

function networkStatus(s: NetworkSignals, at: number, t: StatusThresholds): NetworkStatus {
  const reasons: string[] = [];
  const since = s.reader.okAt ?? s.reader.failingSince;
  const readerLagS = s.reader.okAt === null ? null : Math.max(0, Math.floor((at - s.reader.okAt) / 1000));
  const silentS = since === null ? 0 : Math.max(0, (at - since) / 1000);
  let deposits: ServiceLevel = "operational";
  if (s.reader.failingSince !== null || silentS >= t.readerLagDegradedS) {
    deposits = silentS >= 4 * t.readerLagDegradedS ? "down" : "degraded";
    reasons.push(
      deposits === "down"
        ? "the chain is not being read: deposits are not seen"
        : "chain reads are failing or late",
    );
  }
  if (s.depositPool) {
    const pool = poolDepositLevel(s.depositPool);
    deposits = worst(deposits, pool.level);
    if (pool.reason) reasons.push(pool.reason);
  }
  let payouts: ServiceLevel = "operational";
  if (s.alerts.gatewayConfig > 0) {
    payouts = "down";
    reasons.push("payouts are stopped");
  } else if (s.alerts.sends > 0) {
    payouts = s.alerts.sends >= t.sendsDownCount ? "down" : "degraded";
    reasons.push("some payouts are delayed");
  }
  if (s.alerts.venue > 0) {
    payouts = worst(payouts, "degraded");
    reasons.push("exchanges are slow to complete");
  }
  if (s.stalePrices.length > 0) {
    deposits = worst(deposits, "degraded");
    payouts = worst(payouts, "degraded");
    reasons.push(`quotes are paused for ${[...s.stalePrices].sort().join(", ")}: prices are stale`);
  }
  return { network: s.network, deposits, payouts, readerLagS, reasons };
}

/**
 * The status now. Overall is down only when no network takes deposits (nothing can be swapped);
 * any other problem, a webhook backlog included, makes it degraded.
 */
export function deriveServiceStatus(
  signals: StatusSignals,
  t: StatusThresholds = DEFAULT_THRESHOLDS,
): ServiceStatus {
  const networks = signals.networks
    .map((n) => networkStatus(n, signals.at, t))
    .sort((a, b) => a.network.localeCompare(b.network));
  const webhooks: ServiceLevel = signals.webhookBacklog > 0 ? "degraded" : "operational";
  const allDown = networks.length > 0 && networks.every((n) => n.deposits === "down");
  const anyNotOperational =
    webhooks !== "operational" || networks.some((n) => worst(n.deposits, n.payouts) !== "operational");
  const overall: ServiceLevel = allDown ? "down" : anyNotOperational ? "degraded" : "operational";
  return { at: signals.at, overall, webhooks, networks };
}

/** A reader probe after one more attempt: its answer (true) or its failure. */
export function nextProbe(prev: ReaderProbe | undefined, answered: boolean, now: number): ReaderProbe {
  if (answered) return { okAt: now, failingSince: null };
  return { okAt: prev?.okAt ?? null, failingSince: prev?.failingSince ?? now };
}

/** What an incident is about: a network's code, or `webhooks`. */
export const WEBHOOKS_COMPONENT = "webhooks";

export interface OpenIncident {
  id: number;
  component: string;
  level: ServiceLevel;
}

export interface IncidentChanges {
  open: { component: string; level: ServiceLevel; summary: string }[];
  /** Open incidents that got worse: their level rises, it never falls while they stay open. */
  escalate: { id: number; level: ServiceLevel; summary: string }[];
  close: number[];
}

function components(s: ServiceStatus): { component: string; level: ServiceLevel; summary: string }[] {
  const out = s.networks.map((n) => ({
    component: n.network,
    level: worst(n.deposits, n.payouts),
    summary: `${n.network}: deposits ${n.deposits}, payouts ${n.payouts}${n.reasons.length ? ` (${n.reasons.join("; ")})` : ""}`,
  }));
  out.push({
    component: WEBHOOKS_COMPONENT,
    level: s.webhooks,
    summary: `Webhooks: ${s.webhooks}${s.webhooks === "operational" ? "" : " (event delivery is delayed)"}`,
  });
  return out;
}

/**
 * The incidents the status opens, escalates and closes: one open incident per component while it is
 * not operational, closed when it is again. A component that no longer exists (a network removed
 * from the catalog) closes too.
 */
export function incidentChanges(open: readonly OpenIncident[], status: ServiceStatus): IncidentChanges {
  const changes: IncidentChanges = { open: [], escalate: [], close: [] };
  const now = new Map(components(status).map((c) => [c.component, c]));
  const byComponent = new Map(open.map((i) => [i.component, i]));
  for (const c of now.values()) {
    const incident = byComponent.get(c.component);
    if (c.level === "operational") continue;
    if (!incident) changes.open.push(c);
    else if (RANK[c.level] > RANK[incident.level])
      changes.escalate.push({ id: incident.id, level: c.level, summary: c.summary });
  }
  for (const i of open)
    if ((now.get(i.component)?.level ?? "operational") === "operational") changes.close.push(i.id);
  return changes;
}

/** A status older than this (the cron stopped) refuses nothing: an outage is not assumed to last. */
export const STATUS_TRUSTED_MS = 10 * 60_000;

/**
 * Why a new order on these networks cannot be served now: deposits down on the source network,
 * payouts down on the destination's. The currencies stay listed; the quote says why.
 */
export function networkRefusals(
  status: ServiceStatus | null,
  pair: { from: string; to: string },
  now: number,
): Refusal[] {
  if (!status || now - status.at > STATUS_TRUSTED_MS) return [];
  const of = (network: string) => status.networks.find((n) => n.network === network);
  const out: Refusal[] = [];
  if (of(pair.from)?.deposits === "down")
    out.push({
      code: "network_unavailable",
      side: "from",
      detail: `Deposits on ${pair.from} are down: see GET /api/v1/service-status.`,
    });
  if (of(pair.to)?.payouts === "down")
    out.push({
      code: "network_unavailable",
      side: "to",
      detail: `Payouts on ${pair.to} are down: see GET /api/v1/service-status.`,
    });
  return out;
}
