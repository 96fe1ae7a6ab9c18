import type { Context, MiddlewareHandler } from "hono";
import { recordRequest } from "../../services/slo";
import type { AppEnv } from "../app-env";

/**
 * The route a request was answered by, as "METHOD /pattern" (ids and tokens never appear): the
 * last matched handler that is not a middleware (those are registered for every method).
 */
function routeOf(c: Context<AppEnv>): string {
  // The request's own list, not the hono/route helper: that one reads it through a module symbol,
  // which a second copy of Hono (Vitest pre-bundles the main entry) does not share.
  const routes = c.req.matchedRoutes;
  for (let i = routes.length - 1; i >= 0; i--) {
    const r = routes[i];
    if (r && r.method !== "ALL") return `${r.method} ${r.path}`;
  }
  return "unmatched";
}

/** One service-level point per request, after its answer (docs/operators.md, "Service levels"). */
export const sloMeter: MiddlewareHandler<AppEnv> = async (c, next) => {
  const started = Date.now();
  await next();
  const partner = c.get("partner");
  recordRequest(
    c.env,
    c.executionCtx,
    {
      route: routeOf(c),
      partnerId: partner?.id ?? null,
      mode: partner ? (partner.livemode ? "live" : "test") : null,
      status: c.res.status,
      latencyMs: Date.now() - started,
    },
    started,
  );
};
