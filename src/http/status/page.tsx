// The /status page's body: the overall status in words, each network's deposits and payouts, and
// the last 30 days of incidents with the operators' notes. No script: a reload shows a new status.
import { ETA_MIN_ORDERS, ETA_WINDOW_DAYS, type PairHistory } from "../../domain/eta";
import type { ServiceLevel } from "../../domain/service-status";
import { OBJECTIVES } from "../../domain/slo";
import { durationWords } from "../../lib/relative-time";
import type { RecentAvailability } from "../../services/slo";
import type { PublicIncident, PublicServiceStatus } from "../routes/service-status";

const HEADLINE: Record<ServiceLevel, string> = {
  operational: "All systems operational",
  degraded: "Some services are degraded",
  down: "Swaps are unavailable",
};

const WORD: Record<ServiceLevel, string> = { operational: "Operational", degraded: "Degraded", down: "Down" };

/** A level in words, with a mark that does not rely on colour alone. */
function Level(props: { level: ServiceLevel }) {
  return (
    <span class="level" data-level={props.level}>
      {WORD[props.level]}
    </span>
  );
}

const when = (iso: string) => `${iso.slice(0, 16).replace("T", " ")} UTC`;

function lag(seconds: number | null): string {
  if (seconds === null) return "no answer yet";
  if (seconds < 120) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min`;
}

function IncidentItem(props: { incident: PublicIncident }) {
  const i = props.incident;
  return (
    <li
      class="incident"
      data-testid="incident"
      data-component={i.component}
      data-open={String(i.closed_at === null)}
    >
      <h3>
        {i.component === "webhooks" ? "Webhooks" : i.component} · <Level level={i.level} />
        {i.closed_at === null ? <span class="small"> · ongoing</span> : null}
      </h3>
      <p class="muted small">
        {when(i.opened_at)}
        {i.closed_at === null ? " — now" : ` — ${when(i.closed_at)}`}
      </p>
      <p>{i.summary}</p>
      {i.notes.length > 0 ? (
        <ul class="notes">
          {i.notes.map((n) => (
            <li>
              <span class="muted small">{when(n.at)}</span> {n.body}
            </li>
          ))}
        </ul>
      ) : null}
    </li>
  );
}

/** Each pair with enough completed swaps: deposit seen to payout sent, half of them and nine in ten. */
function PairTimes(props: { etas: (PairHistory & { pair: string })[] }) {
  const shown = props.etas
    .filter((e) => e.orders >= ETA_MIN_ORDERS)
    .sort((a, b) => b.orders - a.orders || a.pair.localeCompare(b.pair));
  return (
    <section class="card" aria-labelledby="eta-title">
      <h2 id="eta-title">How long swaps take</h2>
      <p class="muted small">
        From the deposit seen on chain to the payout sent, over the last {ETA_WINDOW_DAYS} days' completed
        swaps of each pair with at least {ETA_MIN_ORDERS} of them. Quotes for other pairs give an estimate
        from the chain's confirmations.
      </p>
      {shown.length === 0 ? (
        <p class="muted" data-testid="eta-none">
          No pair has {ETA_MIN_ORDERS} completed swaps in the last {ETA_WINDOW_DAYS} days yet.
        </p>
      ) : (
        <table class="status">
          <thead>
            <tr>
              <th scope="col">Pair</th>
              <th scope="col">Half within</th>
              <th scope="col">9 in 10 within</th>
              <th scope="col">Swaps</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((e) => (
              <tr data-pair={e.pair}>
                <th scope="row">{e.pair.replace(">", " → ")}</th>
                <td>{durationWords(e.p50)}</td>
                <td>{durationWords(e.p90)}</td>
                <td class="small">{e.orders}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/**
 * A share as a percentage, rounded down: 0.99996 is "99.99 %", never "100.00 %" (the epsilon
 * keeps 0.997, stored as 0.99699…, at 99.70).
 */
const percent = (share: number) => `${(Math.floor(share * 10_000 + 1e-6) / 100).toFixed(2)} %`;

/**
 * The share of requests answered without a server error, measured by the service itself
 * (docs/operators.md, "Service levels"): the whole span's and one mark per UTC day.
 */
function Availability(props: { availability: RecentAvailability }) {
  const a = props.availability;
  const span = a.days.length;
  return (
    <section class="card" aria-labelledby="availability-title">
      <h2 id="availability-title">Availability in the last {span} days</h2>
      <p data-testid="availability">
        {a.availability === null
          ? "Nothing measured yet."
          : `${percent(a.availability)} of requests answered without a server error (objective ${percent(OBJECTIVES.availability)} a month).`}
      </p>
      <ol class="days" aria-label="Each day, oldest first">
        {a.days.map((d) => (
          <li
            data-day={d.day}
            data-met={d.availability === null ? "none" : String(d.availability >= OBJECTIVES.availability)}
            title={`${d.day}: ${d.availability === null ? "no requests" : percent(d.availability)}`}
          />
        ))}
      </ol>
    </section>
  );
}

export function StatusBody(props: {
  status: PublicServiceStatus;
  incidents: PublicIncident[];
  days: number;
  etas: (PairHistory & { pair: string })[];
  availability: RecentAvailability;
}) {
  const s = props.status;
  return (
    <>
      <h1>Service status</h1>
      <p
        class="level-banner"
        data-level={s.checked ? s.status : "unchecked"}
        data-testid="overall"
        role="status"
      >
        {s.checked ? HEADLINE[s.status] : "Not checked yet"}
      </p>
      <p class="muted small">
        {s.updated_at
          ? `Checked ${when(s.updated_at)}, once a minute.`
          : "Nothing is checked before the first check, which runs within a minute."}{" "}
        As JSON: <a href="/api/v1/service-status">/api/v1/service-status</a>.
      </p>
      <section class="card" aria-labelledby="networks-title">
        <h2 id="networks-title">Networks</h2>
        <table class="status">
          <thead>
            <tr>
              <th scope="col">Network</th>
              <th scope="col">Deposits</th>
              <th scope="col">Payouts</th>
              <th scope="col">Chain read</th>
            </tr>
          </thead>
          <tbody>
            {s.networks.map((n) => (
              <tr data-network={n.network}>
                <th scope="row">{n.network}</th>
                <td>
                  <Level level={n.deposits} />
                </td>
                <td>
                  <Level level={n.payouts} />
                </td>
                <td class="small">{lag(n.reader_lag_seconds)}</td>
              </tr>
            ))}
            <tr data-network="webhooks">
              <th scope="row">Webhooks</th>
              <td colspan={3}>
                <Level level={s.webhooks} />
              </td>
            </tr>
          </tbody>
        </table>
      </section>
      <Availability availability={props.availability} />
      <PairTimes etas={props.etas} />
      <section class="card" aria-labelledby="incidents-title">
        <h2 id="incidents-title">Incidents in the last {props.days} days</h2>
        {props.incidents.length === 0 ? (
          <p class="muted">No incidents in the last {props.days} days.</p>
        ) : (
          <ol class="incidents">
            {props.incidents.map((i) => (
              <IncidentItem incident={i} />
            ))}
          </ol>
        )}
      </section>
    </>
  );
}
