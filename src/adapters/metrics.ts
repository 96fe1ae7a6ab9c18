/**
 * Raw service-level points for Workers Analytics Engine (docs/operators.md, "Service levels"):
 * one per request and one per order transition, queried with Analytics Engine's SQL API (3
 * months kept). Writing is fire-and-forget and costs no request time; the service's own figures
 * (GET /admin/v1/slo, /status) come from its D1 rollup, not from here, since reading Analytics
 * Engine needs an account API token. Without the binding (a local run that lacks it), points go
 * nowhere: the same interface, nothing kept.
 */

export interface RequestPoint {
  /** "METHOD /route/:pattern", or "unmatched". */
  route: string;
  partnerId: string | null;
  mode: "live" | "test" | null;
  status: number;
  latencyMs: number;
}

export interface TransitionPoint {
  /** "network_from>network_to" (src/storage/eta.ts pairKey). */
  pair: string;
  from: string;
  to: string;
  partnerId: string;
  mode: "live" | "test";
  /** Since the order was created. */
  ageMs: number;
  /** Since its previous change. */
  sinceLastMs: number;
}

export interface MetricsSink {
  request(p: RequestPoint): void;
  transition(p: TransitionPoint): void;
}

/**
 * Analytics Engine's layout: `index1` the route or pair (its sampling key); blobs are the labels
 * (blob1 the kind), doubles the figures. At most 20 of each and a 96-byte index per point.
 */
export function analyticsEngineSink(dataset: AnalyticsEngineDataset | undefined): MetricsSink {
  if (!dataset) return NO_SINK;
  return {
    request: (p) =>
      dataset.writeDataPoint({
        indexes: [p.route.slice(0, 96)],
        blobs: ["request", p.route, p.partnerId ?? "", p.mode ?? ""],
        doubles: [p.status, p.latencyMs],
      }),
    transition: (p) =>
      dataset.writeDataPoint({
        indexes: [p.pair.slice(0, 96)],
        blobs: ["transition", p.pair, p.from, p.to, p.partnerId, p.mode],
        doubles: [p.ageMs, p.sinceLastMs],
      }),
  };
}

const NO_SINK: MetricsSink = { request: () => {}, transition: () => {} };
