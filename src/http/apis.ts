import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./app-env";
import { createRouter } from "./router";
import { adminAlertsRouter } from "./routes/admin/alerts";
import { adminCabinetRouter } from "./routes/admin/cabinet";
import { adminCurrenciesRouter } from "./routes/admin/currencies";
import { adminGuardRailsRouter } from "./routes/admin/guard-rails";
import { adminIncidentsRouter } from "./routes/admin/incidents";
import { adminLiquidityRouter } from "./routes/admin/liquidity";
import { adminOrderActionsRouter } from "./routes/admin/order-actions";
import { adminOrderReviewRouter } from "./routes/admin/order-review";
import { adminOrdersRouter } from "./routes/admin/orders";
import { adminPartnersRouter } from "./routes/admin/partners";
import { adminPricesRouter } from "./routes/admin/prices";
import { adminRegionRestrictionsRouter } from "./routes/admin/region-restrictions";
import { adminScreeningRouter } from "./routes/admin/screening";
import { adminSimRouter } from "./routes/admin/sim";
import { adminSloRouter } from "./routes/admin/slo";
import { adminStatementsRouter } from "./routes/admin/statements";
import { adminWidgetsRouter } from "./routes/admin/widgets";
import { currenciesRouter } from "./routes/currencies";
import { iconsRouter } from "./routes/icons";
import { orderActionsRouter } from "./routes/order-actions";
import { orderCancelRouter } from "./routes/order-cancel";
import { orderStatusRouter } from "./routes/order-status";
import { ordersRouter } from "./routes/orders";
import { partnerLogsRouter } from "./routes/partner-logs";
import { partnerWebhooksRouter } from "./routes/partner-webhooks";
import { permissionsRouter } from "./routes/permissions";
import { ratesRouter } from "./routes/rates";
import { screenRouter } from "./routes/screen";
import { serviceStatusRouter } from "./routes/service-status";
import { statementsRouter } from "./routes/statements";
import { streamsRouter } from "./routes/streams";
import { testHelpersRouter } from "./routes/test-helpers";
import { registerWebhookEvents } from "./routes/webhook-events";
import { ADMIN_RATE_LIMIT_HEADERS, errorResponses, HEADERS } from "./schemas";

/**
 * The API is two documents: what partners integrate (public) and what operators run (behind the
 * admin token). Each is its own router with its own registry, so neither document leaks into the
 * other. Every route carries an `operationId` (camelCase verb + noun; operator routes start with
 * `admin`) that the SDK names its methods after; test/http/surface/openapi.ts refuses a route without.
 */
export const PARTNER_OPENAPI_PATH = "/api/v1/openapi.json";
export const ADMIN_OPENAPI_PATH = "/admin/v1/openapi.json";

// OWASP's inventory rules want each server's audience and environment stated.
const server = (url: string) => ({
  url: new URL(url).origin,
  description: "This deployment: production, or local development under `npm run dev`.",
  "x-internal": false,
});

const info = (title: string, description: string) => ({
  title,
  version: "1.0.0",
  description,
  license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
});

export function partnerApi(): OpenAPIHono<AppEnv> {
  const api = createRouter();
  api.route("/api/v1", currenciesRouter);
  api.route("/api/v1", ratesRouter);
  api.route("/api/v1", permissionsRouter);
  api.route("/api/v1", ordersRouter);
  api.route("/api/v1", orderActionsRouter);
  api.route("/api/v1", orderCancelRouter);
  api.route("/api/v1", orderStatusRouter);
  api.route("/api/v1", screenRouter);
  api.route("/api/v1", streamsRouter);
  api.route("/api/v1", partnerWebhooksRouter);
  api.route("/api/v1", statementsRouter);
  api.route("/api/v1", testHelpersRouter);
  api.route("/api/v1", partnerLogsRouter);
  api.route("/api/v1", iconsRouter);
  api.route("/api/v1", serviceStatusRouter);
  api.openAPIRegistry.registerComponent("securitySchemes", "PartnerBearer", {
    type: "http",
    scheme: "bearer",
    description: "Partner API key `<key_id>.<secret>`.",
  });
  api.openAPIRegistry.registerComponent("securitySchemes", "PartnerApiKey", {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
    description: "The same partner API key, as a header.",
  });
  registerWebhookEvents(api.openAPIRegistry);
  api.doc31(PARTNER_OPENAPI_PATH, (c) => ({
    openapi: "3.1.0",
    info: {
      ...info(
        "Partner Exchange API",
        "List currencies, quote rates, create exchange orders and follow them to payout. Every error is JSON `{detail, code}`; branch on `code`. Public routes allow cross-origin GETs (CORS, no credentials); key-protected routes are for servers only.",
      ),
      contact: { name: "Partner support" },
    },
    servers: [server(c.req.url)],
    tags: [
      {
        name: "Public",
        description: "No key needed: the catalog, quotes, icons, an order's status and the service's status.",
      },
      { name: "Orders", description: "Create and follow exchange orders with your partner API key." },
      {
        name: "Events",
        description:
          "Order events live, as Server-Sent Events or a WebSocket: the webhook events, resumable without a gap (docs/events.md).",
      },
      {
        name: "Webhooks",
        description: "Your webhook endpoint, signing secret and delivery log; resend and test events.",
      },
      { name: "Logs", description: "Your API requests as we answered them (docs/cabinet.md)." },
      {
        name: "Statements",
        description: "Your monthly statements of earnings and their automatic payouts (docs/earnings.md).",
      },
      {
        name: "Test mode",
        description:
          "With a test key (`pk_test_…`): drive your test orders into every situation. Nothing real moves (docs/test-mode.md).",
      },
    ],
  }));
  return api;
}

/**
 * Every /admin/v1 request is counted (adminRateLimit: per IP, a bucket of its own,
 * ADMIN_RATE_LIMIT_PER_MINUTE) before anything else, so every operator route can answer 429 and
 * every answer but a 500 carries `RateLimit-*`: declared once here for all of them.
 */
function declareAdminRateLimit(api: OpenAPIHono<AppEnv>): void {
  const tooMany = errorResponses(429)[429];
  for (const def of api.openAPIRegistry.definitions) {
    if (def.type !== "route") continue;
    const responses: Record<string, { headers?: object }> = { ...def.route.responses, 429: tooMany };
    for (const [status, r] of Object.entries(responses)) {
      if (!/^[24]/.test(status)) continue;
      const retry = status === "429" ? HEADERS.retryAfter : {};
      responses[status] = { ...r, headers: { ...r.headers, ...ADMIN_RATE_LIMIT_HEADERS, ...retry } };
    }
    (def as { route: typeof def.route }).route = {
      ...def.route,
      responses: responses as typeof def.route.responses,
    };
  }
}

export function adminApi(): OpenAPIHono<AppEnv> {
  const api = createRouter();
  api.route("/admin/v1", adminPartnersRouter);
  api.route("/admin/v1", adminCurrenciesRouter);
  api.route("/admin/v1", adminPricesRouter);
  api.route("/admin/v1", adminLiquidityRouter);
  api.route("/admin/v1", adminRegionRestrictionsRouter);
  api.route("/admin/v1", adminOrdersRouter);
  api.route("/admin/v1", adminOrderActionsRouter);
  api.route("/admin/v1", adminOrderReviewRouter);
  api.route("/admin/v1", adminAlertsRouter);
  api.route("/admin/v1", adminIncidentsRouter);
  api.route("/admin/v1", adminSloRouter);
  api.route("/admin/v1", adminGuardRailsRouter);
  api.route("/admin/v1", adminScreeningRouter);
  api.route("/admin/v1", adminSimRouter);
  api.route("/admin/v1", adminCabinetRouter);
  api.route("/admin/v1", adminStatementsRouter);
  api.route("/admin/v1", adminWidgetsRouter);
  declareAdminRateLimit(api);
  api.openAPIRegistry.registerComponent("securitySchemes", "AdminBearer", {
    type: "http",
    scheme: "bearer",
    description: "Operator token (ADMIN_TOKEN secret).",
  });
  api.openAPIRegistry.registerComponent("securitySchemes", "CloudflareAccess", {
    type: "apiKey",
    in: "header",
    name: "Cf-Access-Jwt-Assertion",
    description: "Cloudflare Access JWT, added by the Access edge (ACCESS_TEAM_DOMAIN, ACCESS_AUD).",
  });
  api.doc31(ADMIN_OPENAPI_PATH, (c) => ({
    openapi: "3.1.0",
    info: info(
      "Partner Exchange API — operator",
      "The operator API: partners and keys, prices, orders, deposit addresses and SimChain. Not for partners.",
    ),
    servers: [server(c.req.url)],
    security: [{ AdminBearer: [] }, { CloudflareAccess: [] }] as Record<string, string[]>[],
    tags: [
      { name: "Admin: partners", description: "Partners, keys, webhooks and widgets." },
      { name: "Admin: catalog", description: "Currencies: list, create, update (audited)." },
      { name: "Admin: audit", description: "Who changed what: the operator audit log." },
      { name: "Admin: prices", description: "Prices in static mode." },
      { name: "Admin: liquidity", description: "What the service can pay out per coin (docs/liquidity.md)." },
      {
        name: "Admin: region restrictions",
        description: 'Countries and coins refused by region (docs/operators.md, "Region restrictions").',
      },
      { name: "Admin: orders", description: "Order inspection and decisions on held funds." },
      {
        name: "Admin: screening",
        description: 'The operator\'s listed addresses (docs/operators.md, "Screening").',
      },
      {
        name: "Admin: incidents",
        description:
          'The published status\'s incidents: list and annotate (docs/operators.md, "Service status and incidents").',
      },
      {
        name: "Admin: service levels",
        description:
          'Availability and latency measured by the service (docs/operators.md, "Service levels").',
      },
      { name: "Admin: deposit addresses", description: "Address pools for networks without derivation." },
      { name: "Admin: SimChain", description: "Drive the simulated chains (dev and test only)." },
      { name: "Admin: cabinet", description: "Partner cabinet: invitations, members and their sessions." },
      {
        name: "Admin: statements",
        description: "Partner statements and payouts: hold, release, adjust, re-run a month, totals owed.",
      },
    ],
  }));
  return api;
}
