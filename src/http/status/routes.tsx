// /status: the service's status for people (docs/integrate.md, "Service status"); the same figures
// as GET /api/v1/service-status, with the last 30 days of incidents and how long each pair's swaps
// take (docs/orders.md, "How long it takes"), and the last 90 days' availability.
import { Hono } from "hono";
import { recentIncidents } from "../../services/service-status";
import { recentAvailability } from "../../services/slo";
import { loadPairEtas } from "../../storage/eta";
import { loadOpenIncidents, loadServiceStatus } from "../../storage/service-status";
import type { AppEnv } from "../app-env";
import { publicRateLimit } from "../middleware/auth";
import { reads } from "../middleware/d1-session";
import { publicIncident, publicServiceStatus } from "../routes/service-status";
import { Frame, swapCsp } from "../track/frame";
import { StatusBody } from "./page";

export const STATUS_PAGE_DAYS = 30;
/** The availability shown: about a quarter, as partners' reviews count it. */
export const AVAILABILITY_DAYS = 90;

export function createStatusPage() {
  const app = new Hono<AppEnv>();
  app.get("/", publicRateLimit, async (c) => {
    const db = reads(c);
    const now = Date.now();
    const [status, open, recent, etas, availability] = await Promise.all([
      loadServiceStatus(db),
      loadOpenIncidents(db),
      recentIncidents(db, now, STATUS_PAGE_DAYS, 100),
      loadPairEtas(db),
      recentAvailability(db, now, AVAILABILITY_DAYS),
    ]);
    c.header("Content-Security-Policy", swapCsp([]));
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Cache-Control", "public, max-age=10");
    return c.html(
      <Frame title="Service status">
        <StatusBody
          status={publicServiceStatus(status, open)}
          incidents={recent.map(publicIncident)}
          etas={[...etas].map(([pair, h]) => ({ pair, ...h }))}
          days={STATUS_PAGE_DAYS}
          availability={availability}
        />
      </Frame>,
    );
  });
  return app;
}
