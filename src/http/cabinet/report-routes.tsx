// The overview and earnings pages, and the earnings CSV.
import type { Context, Hono } from "hono";
import { dayBefore } from "../../domain/overview";
import { earningsBetween, earningsCsv, partnerOverview } from "../../services/earnings";
import { getPartner } from "../../storage/partners";
import { reads } from "../middleware/d1-session";
import { EarningsPage, OverviewPage } from "./report-pages";
import { type CabinetEnv, requireSession, type SignedInEnv } from "./session";

const signedIn = (c: Context<CabinetEnv>) => c as unknown as Context<SignedInEnv>;
const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;
const EARNINGS_DEFAULT_DAYS = 30;

/** The report's UTC days, `to` included; the last 30 days by default. */
function range(c: Context, now: number): { from: string; to: string; fromIso: string; toIso: string } {
  const valid = (d: string | undefined) => (d && DAY_RE.test(d) && !Number.isNaN(Date.parse(d)) ? d : null);
  const to = valid(c.req.query("to")) ?? dayBefore(now, 0);
  const from = valid(c.req.query("from")) ?? dayBefore(now, EARNINGS_DEFAULT_DAYS - 1);
  return {
    from,
    to,
    fromIso: `${from}T00:00:00.000Z`,
    toIso: new Date(Date.parse(to) + 86_400_000).toISOString(),
  };
}

export function registerReportRoutes(app: Hono<CabinetEnv>): void {
  app.get("/overview", requireSession("orders.read"), async (c) => {
    const s = signedIn(c).get("cabinet");
    const [overview, partner] = await Promise.all([
      partnerOverview(reads(c), s.user.partner_id, s.mode !== "test", Date.now()),
      getPartner(reads(c), s.user.partner_id),
    ]);
    return c.html(<OverviewPage session={s} overview={overview} markupBps={partner?.markup_bps ?? 0} />);
  });

  app.get("/earnings", requireSession("orders.read"), async (c) => {
    const s = signedIn(c).get("cabinet");
    const r = range(c, Date.now());
    const summary = await earningsBetween(reads(c), s.user.partner_id, s.mode !== "test", r.fromIso, r.toIso);
    return c.html(<EarningsPage session={s} from={r.from} to={r.to} summary={summary} />);
  });

  app.get("/earnings.csv", requireSession("orders.read"), async (c) => {
    const r = range(c, Date.now());
    const s = signedIn(c).get("cabinet");
    const summary = await earningsBetween(reads(c), s.user.partner_id, s.mode !== "test", r.fromIso, r.toIso);
    return c.body(earningsCsv(summary), 200, {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="earnings-${r.from}-${r.to}.csv"`,
    });
  });
}
