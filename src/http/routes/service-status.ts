import { createRoute, z } from "@hono/zod-openapi";
import { SERVICE_LEVELS, type ServiceStatus } from "../../domain/service-status";
import { etagOf } from "../../lib/etag";
import type { IncidentWithNotes } from "../../services/service-status";
import { loadSanctions, type SanctionsList } from "../../storage/screening";
import { loadOpenIncidents, loadServiceStatus } from "../../storage/service-status";
import { publicRateLimit } from "../middleware/auth";
import { reads } from "../middleware/d1-session";
import { createRouter } from "../router";
import { cacheable, errorResponses, okResponse, out, timestamp, withCors } from "../schemas";
import { type TaggedBody, taggedJson } from "../tagged-json";

const MAX_NETWORKS = 200;
const MAX_INCIDENTS = 100;
const MAX_NOTES = 100;

const level = (description: string) => z.enum(SERVICE_LEVELS).openapi({ description });

export const IncidentSchema = z
  .object({
    id: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).openapi({ format: "int64" }),
    component: out.text(20).openapi({ example: "BTC", description: "A network's code, or `webhooks`." }),
    level: z.enum(["degraded", "down"]).openapi({ description: "The worst it got while open." }),
    summary: out.text(1000).openapi({ description: "What was seen, in plain words." }),
    opened_at: timestamp("When the signals first showed it."),
    closed_at: timestamp("When the component was operational again; null while open.").nullable(),
    notes: z
      .array(
        z.object({
          at: timestamp("When the operator wrote it."),
          body: out.text(2000),
        }),
      )
      .max(MAX_NOTES)
      .openapi({ description: "The operators' updates, oldest first." }),
  })
  .openapi("Incident");

const NetworkStatusSchema = z
  .object({
    network: out.ticker().openapi({ example: "BTC" }),
    deposits: level("Whether deposits on this network are seen and confirmed now."),
    payouts: level("Whether payouts (and refunds) on this network are sent now."),
    reader_lag_seconds: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().openapi({
      format: "int64",
      description: "Seconds since the chain reader last answered; null if it has not yet.",
    }),
    updated_at: timestamp("When this was judged (once a minute)."),
  })
  .openapi("NetworkStatus");

export const ServiceStatusSchema = z
  .object({
    status: level(
      "Overall: `down` when no network takes deposits, `degraded` when anything is not operational.",
    ),
    updated_at: timestamp("When the status was last judged; null before the first judgement.").nullable(),
    checked: z.boolean().openapi({
      description:
        "Whether anything has been checked yet: false before the first judgement, when `status` and every level are `operational` by default, not by a check.",
    }),
    webhooks: level("`degraded` while webhook events wait for delivery longer than a few minutes."),
    networks: z.array(NetworkStatusSchema).max(MAX_NETWORKS),
    incidents: z
      .array(IncidentSchema)
      .max(MAX_INCIDENTS)
      .openapi({ description: "Open incidents, newest first (the last 30 days: /status)." }),
    sanctions_list: z
      .object({
        version: z
          .string()
          .max(64)
          .nullable()
          .openapi({ description: "As `list_version` in POST /partner/screen." }),
        fetched_at: timestamp(
          "The oldest asset file's last good download (the list's age); null before the first.",
        ).nullable(),
      })
      .optional()
      .openapi({
        description:
          'The sanctions list live addresses are screened against (docs/integrate.md, "Screening"); absent where the status is rendered without it.',
      }),
  })
  .openapi("ServiceStatus");

export type PublicIncident = z.infer<typeof IncidentSchema>;
export type PublicServiceStatus = z.infer<typeof ServiceStatusSchema>;

/** An incident as wallets see it: the notes' words and times, not who wrote them. */
export const publicIncident = ({ incident: i, notes }: IncidentWithNotes): PublicIncident => ({
  id: i.id,
  component: i.component,
  level: i.level,
  summary: i.summary,
  opened_at: i.opened_at,
  closed_at: i.closed_at,
  notes: notes.map((n) => ({ at: n.at, body: n.body })),
});

export function publicServiceStatus(
  s: ServiceStatus | null,
  incidents: readonly IncidentWithNotes[],
  sanctions?: SanctionsList,
): PublicServiceStatus {
  const updated = s ? new Date(s.at).toISOString() : null;
  return {
    status: s?.overall ?? "operational",
    updated_at: updated,
    checked: s !== null,
    webhooks: s?.webhooks ?? "operational",
    networks: (s?.networks ?? []).map((n) => ({
      network: n.network,
      deposits: n.deposits,
      payouts: n.payouts,
      reader_lag_seconds: n.readerLagS,
      updated_at: updated ?? "",
    })),
    incidents: incidents.map(publicIncident),
    ...(sanctions ? { sanctions_list: { version: sanctions.version, fetched_at: sanctions.fetchedAt } } : {}),
  };
}

const route = createRoute({
  method: "get",
  path: "/service-status",
  operationId: "getServiceStatus",
  tags: ["Public"],
  security: [],
  middleware: publicRateLimit,
  summary: "Whether deposits and payouts work now, per network",
  description:
    'Judged once a minute from what the service sees: chain readers\' errors and lag, stuck payouts, the venue, stale prices, the webhook queue (docs/integrate.md, "Service status"). A network whose deposits (or payouts) are `down` stays in GET /currencies, but quotes and orders on it answer `errors[]` with `network_unavailable`.',
  responses: withCors({
    200: cacheable(okResponse("limited", "The status and the open incidents.", ServiceStatusSchema)),
    304: {
      description: "Not modified: the status still has the `ETag` sent in `If-None-Match`. No body.",
      headers: cacheable({ headers: okResponse("limited", "", z.null()).headers }).headers,
    },
    ...errorResponses(429),
  }),
});

// A few seconds: the status changes at most once a minute, and an outage must show soon.
const CACHING = { "Cache-Control": "public, max-age=10", Vary: "Accept-Encoding" };

/**
 * The body and its ETag, made once per load of the status and the open incidents (both from
 * isolate caches, reloaded every few seconds or when written), not on every request.
 */
let made: { status: unknown; incidents: unknown; sanctions: unknown; body: Promise<TaggedBody> } | null =
  null;

function statusBody(status: ServiceStatus | null, incidents: IncidentWithNotes[], sanctions: SanctionsList) {
  if (made?.status !== status || made.incidents !== incidents || made.sanctions !== sanctions) {
    const body = JSON.stringify(publicServiceStatus(status, incidents, sanctions));
    made = { status, incidents, sanctions, body: etagOf(body).then((etag) => ({ body, etag })) };
  }
  return made.body;
}

export const serviceStatusRouter = createRouter().openapi(route, async (c) => {
  const [status, incidents, sanctions] = await Promise.all([
    loadServiceStatus(reads(c)),
    loadOpenIncidents(reads(c)),
    loadSanctions(c.env.DB),
  ]);
  const tagged = await statusBody(status, incidents, sanctions);
  return taggedJson<z.infer<typeof ServiceStatusSchema>>(c, tagged, CACHING);
});
