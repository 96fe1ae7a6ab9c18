// The overview (figures for today / 7 / 30 days and a chart) and the earnings report.
import { can } from "../../domain/cabinet";
import type { EarningsSummary } from "../../domain/earnings";
import type { Overview } from "../../domain/overview";
import type { SessionContext } from "../../storage/cabinet";
import { Page } from "./layout";
import { StackTable } from "./stack-table";

/** Dollars as the pages show them; the stored and exported values keep their full precision. */
const usd = (s: string) =>
  `$${Number(s).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

/** Why earnings are $0.00 when the markup is 0 bps, and where the markup is set (docs/earnings.md). */
function ZeroMarkupHint(props: { session: SessionContext }) {
  return (
    <div class="muted small hint" data-testid="markup-hint">
      Your markup is 0 bps, so orders earn you nothing.{" "}
      {can(props.session.user.role, "settings.write") ? (
        <a href="/cabinet/settings#markup">Set a markup</a>
      ) : (
        "An admin of your team sets it in Settings."
      )}
    </div>
  );
}

export function OverviewPage(props: { session: SessionContext; overview: Overview; markupBps: number }) {
  const o = props.overview;
  return (
    <Page title="Overview" session={props.session} current="/cabinet/overview" charts>
      <h1>Overview</h1>
      <p class="lead">Your orders and what you earned. Days are UTC.</p>
      <div class="stats" data-testid="stats">
        {o.windows.map((w) => (
          <section class="card" data-window={w.label}>
            <h2>{w.label}</h2>
            <div class="figure">
              {w.created} {w.created === 1 ? "order" : "orders"}
            </div>
            <div class="muted">
              {w.completed} completed ·{" "}
              {w.conversion === null
                ? "no conversion yet"
                : `${(w.conversion * 100).toFixed(1)} % conversion`}
            </div>
            <div>
              Volume <strong>{usd(w.volume_usd)}</strong>
            </div>
            <div>
              Earnings <strong data-testid="earnings">{usd(w.earnings_usd)}</strong>
            </div>
            {props.markupBps === 0 && Number(w.earnings_usd) === 0 ? (
              <ZeroMarkupHint session={props.session} />
            ) : null}
          </section>
        ))}
      </div>
      <section class="card">
        <h2>Last 30 days</h2>
        <div class="chart" data-chart={JSON.stringify(o.chart)} data-testid="chart"></div>
        <p class="muted small">
          Orders created per day, and earnings (USD) of the orders completed that day. Conversion counts the
          orders created in the window that have completed.
        </p>
      </section>
    </Page>
  );
}

export function EarningsPage(props: {
  session: SessionContext;
  from: string;
  to: string;
  summary: EarningsSummary;
}) {
  const s = props.summary;
  const range = `from=${props.from}&to=${props.to}`;
  return (
    <Page title="Earnings" session={props.session} current="/cabinet/earnings">
      <h1>Earnings</h1>
      <p class="lead">
        Your markup on each completed order: amount exchanged × markup ÷ 10 000, in the coin you received,
        valued in USD at that coin's price when the order completed. Fixed at completion; it never changes
        afterwards.
      </p>
      <section class="card">
        <form class="row" method="get" action="/cabinet/earnings">
          <label>
            Completed from
            <input type="date" name="from" value={props.from} />
          </label>
          <label>
            to
            <input type="date" name="to" value={props.to} />
          </label>
          <button type="submit">Show</button>
          <a class="button secondary" href={`/cabinet/earnings.csv?${range}`} data-testid="earnings-csv">
            Export CSV
          </a>
        </form>
      </section>
      <section class="card">
        <h2>
          Total <span data-testid="total-usd">{usd(s.total_usd)}</span>{" "}
          <span class="muted small">
            from {s.orders} completed {s.orders === 1 ? "order" : "orders"} · volume {usd(s.volume_usd)}
          </span>
        </h2>
        <StackTable
          testid="per-coin"
          rows={s.coins}
          empty="No completed orders in this range."
          columns={[
            { label: "Coin", cell: (c) => c.coin },
            { label: "Orders", num: true, cell: (c) => c.orders },
            { label: "Markup", num: true, mono: true, cell: (c) => `${c.markup} ${c.coin}` },
            {
              label: "USD",
              num: true,
              cell: (c) => (
                <>
                  {usd(c.markup_usd)}
                  {c.unpriced ? <div class="muted small">{c.unpriced} without a price</div> : null}
                </>
              ),
            },
          ]}
        />
      </section>
      {s.lines.length ? (
        <section class="card">
          <h2>Per day</h2>
          <StackTable
            testid="per-day"
            rows={s.lines}
            columns={[
              { label: "Day", cell: (l) => l.day },
              { label: "Coin", cell: (l) => l.coin },
              { label: "Orders", num: true, cell: (l) => l.orders },
              { label: "Markup", num: true, mono: true, cell: (l) => l.markup },
              { label: "USD", num: true, cell: (l) => usd(l.markup_usd) },
            ]}
          />
        </section>
      ) : null}
    </Page>
  );
}
