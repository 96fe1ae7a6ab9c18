// The cabinet's order pages: the filtered list and the order detail (fields, timeline, explorer
// links, webhook deliveries, and the decisions a failed order offers). Server-rendered; the page
// script polls the detail while the order moves and checks typed addresses.
import type { Child } from "hono/jsx";
import { can } from "../../domain/cabinet";
import type { HoldOutcome, OrderHold } from "../../domain/holds";
import type { OrderView } from "../../domain/order";
import type { OrderActions } from "../../domain/order-actions";
import { ORDER_STATUSES, type OrderStatus } from "../../domain/order-state";
import { aheadLabel } from "../../domain/test-clock";
import type { OrderDetail, OrderQuery, TimedEvent } from "../../services/cabinet-orders";
import type { SessionContext } from "../../storage/cabinet";
import type { CabinetOrderRow } from "../../storage/order-search";
import { Csrf, Page, StepUpField } from "./layout";
import { when } from "./pages";
import { StackTable } from "./stack-table";

const FINAL: readonly OrderStatus[] = ["completed", "refunded"];

export function StatusBadge(props: { status: OrderStatus }) {
  const tone =
    props.status === "completed" || props.status === "refunded"
      ? "ok"
      : props.status === "failed" || props.status === "expired"
        ? "bad"
        : "warn";
  return (
    <span class={`badge ${tone}`} data-testid="status">
      {props.status}
    </span>
  );
}

/** Beside the status of an order a screened deposit holds (its status stays where it was). */
const HeldBadge = () => (
  <span class="badge held" data-testid="held">
    Held
  </span>
);

/** The query string of a filter (empty values left out), for links that keep the filters. */
export function queryString(q: OrderQuery, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...q, ...extra })) if (v) params.set(k, v);
  const s = params.toString();
  return s ? `?${s}` : "";
}

function Select(props: { name: string; label: string; value: string | undefined; options: string[] }) {
  return (
    <label>
      {props.label}
      <select name={props.name}>
        <option value="">any</option>
        {props.options.map((o) => (
          <option value={o} selected={props.value === o}>
            {o}
          </option>
        ))}
      </select>
    </label>
  );
}

export function OrdersPage(props: {
  session: SessionContext;
  query: OrderQuery;
  rows: CabinetOrderRow[];
  next: string | null;
  coins: string[];
}) {
  const q = props.query;
  const filtered = Object.values(q).some(Boolean);
  return (
    <Page title="Orders" session={props.session} current="/cabinet/orders" wide>
      <h1>Orders</h1>
      <p class="lead">Newest first. Search by order id, short id, deposit address or a transaction id.</p>
      <section class="card">
        <form class="row filters" method="get" action="/cabinet/orders">
          <label class="grow">
            Search
            <input
              name="q"
              value={q.q ?? ""}
              placeholder="short id, order id, deposit address, txid"
              data-testid="search"
            />
          </label>
          <Select name="status" label="Status" value={q.status} options={[...ORDER_STATUSES]} />
          <Select name="coin_from" label="From" value={q.coin_from} options={props.coins} />
          <Select name="coin_to" label="To" value={q.coin_to} options={props.coins} />
          <Select name="rate" label="Rate" value={q.rate} options={["float", "fixed"]} />
          <label>
            Created from
            <input type="date" name="from" value={q.from ?? ""} />
          </label>
          <label>
            to
            <input type="date" name="to" value={q.to ?? ""} />
          </label>
          <button type="submit">Apply</button>
          {filtered ? (
            <a class="button secondary" href="/cabinet/orders">
              Clear
            </a>
          ) : null}
          <a class="button secondary" href={`/cabinet/orders.csv${queryString(q)}`} data-testid="export-csv">
            Export CSV
          </a>
        </form>
      </section>
      <section class="card">
        <StackTable
          testid="orders"
          rows={props.rows}
          empty={filtered ? "No order matches these filters." : "No orders yet."}
          rowAttrs={(r) => ({ "data-order-id": r.id })}
          columns={[
            {
              label: "Order",
              cell: (r) => (
                <a href={`/cabinet/orders/${r.short_id}`}>
                  <code>{r.short_id}</code>
                </a>
              ),
            },
            { label: "Created", cell: (r) => when(r.created_at) },
            {
              label: "Swap",
              cell: (r) => (
                <>
                  {r.amount_from ?? "?"} {r.coin_from} → {r.amount_to ?? "?"} {r.coin_to}
                  <div class="muted small">
                    {r.network_from} → {r.network_to}
                  </div>
                </>
              ),
            },
            { label: "Rate", cell: (r) => r.rate_type ?? "—" },
            {
              label: "Status",
              cell: (r) => (
                <>
                  <StatusBadge status={r.status} />
                  {r.hold === null ? null : <HeldBadge />}
                </>
              ),
            },
          ]}
        />
        <div class="pager">
          {q.cursor ? (
            <a href={`/cabinet/orders${queryString({ ...q, cursor: undefined })}`}>Newest</a>
          ) : null}
          {props.next ? (
            <a href={`/cabinet/orders${queryString(q, { cursor: props.next })}`} data-testid="older">
              Older →
            </a>
          ) : null}
        </div>
      </section>
    </Page>
  );
}

/** A value with its explorer link, when the catalog has a template for it. */
function Linked(props: { value: string | null; href: string | null }) {
  if (props.value === null) return <span class="muted">—</span>;
  return props.href ? (
    <a class="mono" href={props.href} rel="noopener noreferrer" target="_blank">
      {props.value}
    </a>
  ) : (
    <span class="mono">{props.value}</span>
  );
}

function fieldValue(key: keyof OrderView, d: OrderDetail): Child {
  const o = d.order;
  switch (key) {
    case "status":
      return <StatusBadge status={o.status} />;
    // In one line here; the card above the fields says it in full.
    case "hold":
      return o.hold ? (
        <a href="#hold-h">
          {o.hold.category} until {when(o.hold.deadline_at)}, then {o.hold.at_deadline}
        </a>
      ) : (
        <span class="muted">—</span>
      );
    case "deposit_address":
    case "recipient_address":
    case "deposit_txid":
    case "payout_txid":
    case "refund_txid":
      return <Linked value={o[key]} href={d.links[key]} />;
    // The keyless links to hand the person who swaps (docs/widget.md).
    case "tracking_url":
    case "status_url":
      return <Linked value={o[key]} href={o[key]} />;
    default: {
      const v = o[key];
      if (v === null) return <span class="muted">—</span>;
      if (key.endsWith("_at") && typeof v === "string") return when(v);
      // `fees` and the partner's `metadata`: their own pairs, not "[object Object]".
      if (typeof v === "object")
        return (
          <dl class="pairs" data-testid={key}>
            {Object.entries(v).map(([k, x]) => (
              <>
                <dt class="mono">{k}</dt>
                <dd class="mono">{String(x)}</dd>
              </>
            ))}
          </dl>
        );
      return <span class="mono">{String(v)}</span>;
    }
  }
}

/** Every field of the contract's Order, in the contract's order (actions have their own card). */
const FIELDS = (o: OrderView) => Object.keys(o).filter((k) => k !== "actions") as (keyof OrderView)[];

const AT_DEADLINE: Record<HoldOutcome, string> = {
  refund: "the deposit is sent back: to the order's refund address, or else to the address it came from",
  operator_review:
    "the service's operators decide what happens to the deposit, and record it: it does not move by itself",
};

/**
 * A screened deposit's hold in plain words (docs/lifecycle.md, "Holds"): why, since when, the
 * deadline and what happens then, an extension's reason, and the public policy to point the person
 * who swaps to. Times in the viewer's zone, as everywhere in the cabinet.
 */
function HoldCard(props: { order: OrderView; hold: OrderHold }) {
  const { order: o, hold: h } = props;
  return (
    <section class="card held" aria-labelledby="hold-h" data-testid="hold">
      <h2 id="hold-h">This order is on hold</h2>
      <p>
        Why: {h.reason}. Since {when(h.since)} the order has stopped where it was ({o.status}): nothing is
        exchanged or paid out, and decisions on its money wait, while the hold stands.
      </p>
      <p data-testid="hold-deadline">
        The hold ends by <strong>{when(h.deadline_at)}</strong>. Then {AT_DEADLINE[h.at_deadline]}. It may be
        released sooner (the order then goes on), or the deposit sent back sooner.
      </p>
      {h.extended ? (
        <p data-testid="hold-extended">
          The deadline was moved once, on {when(h.extended.at)}: {h.extended.reason}
        </p>
      ) : null}
      <p class="small">
        <a href="/compliance">How screening and holds work</a>: the policy to point the person who swaps to.
      </p>
    </section>
  );
}

function AddressInput(props: {
  name: string;
  kind: "refund" | "payout";
  required: boolean;
  placeholder: string;
}) {
  // Not label.grow: in the choice's column its 320px basis would be the field's height.
  return (
    <label>
      {props.kind === "refund" ? "Refund address" : "New recipient address"}
      <input
        name={props.name}
        required={props.required}
        placeholder={props.placeholder}
        autocomplete="off"
        spellcheck={false}
        data-validate={props.kind}
        data-testid={`${props.kind}-address`}
      />
      <span class="check" data-check></span>
    </label>
  );
}

function ActionsCard(props: { session: SessionContext; order: OrderView; actions: OrderActions }) {
  const { order: o, actions: a, session } = props;
  const may = can(session.user.role, "orders.act");
  const base = `/cabinet/orders/${o.id}`;
  const refund = a.refund;
  const cont = a.continue;
  return (
    <section class="card attention" data-testid="actions">
      <h2>This order holds the user's money: choose what to do</h2>
      <p class="muted">
        Reason: <code>{a.reason}</code>. Each decision is taken once; it moves the money through the usual
        payout path.
      </p>
      {!may ? (
        <p class="muted">Your role (viewer) can see these choices; an admin or developer takes them.</p>
      ) : null}
      <div class="choices">
        <div class="choice">
          <h3>Refund</h3>
          {refund.available ? (
            <p>
              Send back <strong>{refund.amount}</strong> {refund.coin} ({refund.network})
              {refund.address ? (
                <>
                  {" "}
                  to <span class="mono">{refund.address}</span>
                </>
              ) : null}
              .
            </p>
          ) : (
            <p class="muted">Not available: {refund.unavailable_reason}</p>
          )}
          {may && refund.available ? (
            <form
              method="post"
              action={`${base}/refund`}
              data-confirm={`Refund ${refund.amount} ${refund.coin}? This cannot be undone.`}
            >
              <Csrf session={session} />
              {refund.requires_address ? (
                <>
                  <AddressInput
                    name="refund_address"
                    kind="refund"
                    required
                    placeholder={`${refund.network} address`}
                  />
                  <StepUpField />
                </>
              ) : null}
              <button type="submit" class="danger" data-testid="refund">
                Refund {refund.amount} {refund.coin}
              </button>
            </form>
          ) : null}
        </div>
        <div class="choice">
          <h3>Continue the exchange</h3>
          {cont.available ? (
            <p>
              Exchange at the current float rate <strong>{cont.rate}</strong>: about{" "}
              <strong>{cont.amount_to_estimate}</strong> {o.coin_to} to the recipient.
            </p>
          ) : (
            <p class="muted">Not available: {cont.unavailable_reason}</p>
          )}
          {may && cont.available ? (
            <form
              method="post"
              action={`${base}/continue`}
              data-confirm={`Continue: exchange now for about ${cont.amount_to_estimate} ${o.coin_to}?`}
            >
              <Csrf session={session} />
              <button type="submit" data-testid="continue">
                Continue for ≈ {cont.amount_to_estimate} {o.coin_to}
              </button>
            </form>
          ) : null}
        </div>
        {a.wrong_network_deposits.map((w) => (
          <div class="choice" data-testid="wrong-network-deposit">
            <h3>Sent on the wrong network</h3>
            <p>
              <strong>{w.amount_received}</strong> {w.coin} arrived at this order's address on{" "}
              <strong>{w.network}</strong>, not {o.network_from}: it is not part of the order.
            </p>
            {w.refund.available ? (
              <p>
                Send back <strong>{w.refund.amount}</strong> {w.coin} on {w.network}.
              </p>
            ) : (
              <p class="muted">Not available: {w.refund.unavailable_reason}</p>
            )}
            {may && w.refund.available ? (
              <form
                method="post"
                action={`${base}/refund`}
                data-confirm={`Refund ${w.refund.amount} ${w.coin} on ${w.network}? This cannot be undone.`}
              >
                <Csrf session={session} />
                <input type="hidden" name="deposit" value={w.deposit} />
                <AddressInput
                  name="refund_address"
                  kind="refund"
                  required
                  placeholder={`${w.network} address`}
                />
                <StepUpField />
                <button type="submit" class="danger" data-testid="refund-wrong-network">
                  Refund {w.refund.amount} {w.coin} on {w.network}
                </button>
              </form>
            ) : null}
          </div>
        ))}
        {a.payout ? (
          <div class="choice">
            <h3>Pay out to another address</h3>
            {a.payout.available ? (
              <p>
                Send <strong>{a.payout.amount}</strong> {a.payout.coin} ({a.payout.network}) to a new
                recipient.
              </p>
            ) : (
              <p class="muted">Not available: {a.payout.unavailable_reason}</p>
            )}
            {may && a.payout.available ? (
              <form
                method="post"
                action={`${base}/payout`}
                data-confirm={`Send ${a.payout.amount} ${a.payout.coin} to the new address?`}
              >
                <Csrf session={session} />
                <AddressInput
                  name="recipient_address"
                  kind="payout"
                  required
                  placeholder={`${a.payout.network} address`}
                />
                <StepUpField />
                <button type="submit" data-testid="payout">
                  Pay out {a.payout.amount} {a.payout.coin}
                </button>
              </form>
            ) : null}
          </div>
        ) : null}
      </div>
    </section>
  );
}

/**
 * A test order's helpers as buttons (docs/test-mode.md, "Test helpers"): each posts to the cabinet,
 * which runs the partner API's helper and shows the order after it.
 */
function TestHelpersCard(props: { session: SessionContext; order: OrderView }) {
  const { order: o, session } = props;
  const base = `/cabinet/orders/${o.id}/test`;
  if (!can(session.user.role, "orders.act"))
    return (
      <section class="card" data-testid="test-helpers">
        <h2>Test helpers</h2>
        <p class="muted">Your role (viewer) cannot run the test helpers; an admin or developer can.</p>
      </section>
    );
  const button = (helper: string, label: string, hint: string) => (
    <form method="post" action={`${base}/${helper}`} class="row">
      <Csrf session={session} />
      <button type="submit" class="secondary" data-testid={`test-${helper}`}>
        {label}
      </button>
      <span class="muted small">{hint}</span>
    </form>
  );
  return (
    <section class="card" data-testid="test-helpers">
      <h2>Test helpers</h2>
      <p class="muted">
        A test order runs on its own simulated chain: make things happen to it and watch its statuses and
        webhooks. Nothing is sent anywhere.
      </p>
      <div class="test-helpers">
        <form method="post" action={`${base}/deposit`} class="row">
          <Csrf session={session} />
          <label>
            Deposit amount ({o.coin_from})
            <input
              name="amount"
              inputmode="decimal"
              autocomplete="off"
              placeholder={`${o.amount_from_expected} (expected)`}
              data-testid="test-amount"
            />
          </label>
          <button type="submit" data-testid="test-deposit">
            Send deposit
          </button>
        </form>
        {button("confirm", "Confirm deposit", "mines enough blocks to confirm it")}
        {button("drop-deposit", "Drop deposit", "the deposit leaves the mempool, or is reorged out")}
        {button("expire", "Expire", "this order's clock passes its deadline")}
        <form method="post" action={`${base}/fail`} class="row">
          <Csrf session={session} />
          <label>
            Step
            <select name="step" data-testid="test-step">
              <option value="exchange">exchange</option>
              <option value="payout">payout</option>
              <option value="refund">refund</option>
            </select>
          </label>
          <button type="submit" class="secondary" data-testid="test-fail">
            Fail next attempt
          </button>
        </form>
      </div>
    </section>
  );
}

/** When an event really happened: a test order's clock may run ahead of real time (`expire`). */
const realTime = (e: TimedEvent) => new Date(Date.parse(e.at) - e.ahead_ms).toISOString();

function eventText(data: Record<string, string | number | boolean | null> | null): string {
  if (!data) return "";
  return Object.entries(data)
    .filter(([k]) => k !== "event")
    .map(([k, v]) => `${k}=${v}`)
    .join(" · ");
}

export function OrderPage(props: { session: SessionContext; detail: OrderDetail }) {
  const d = props.detail;
  const o = d.order;
  return (
    <Page title={`Order ${o.short_id}`} session={props.session} current="/cabinet/orders" wide>
      <p>
        <a href="/cabinet/orders">← Orders</a>
      </p>
      <div
        data-live={`/cabinet/orders/${o.id}/state`}
        data-updated={o.updated_at}
        data-events={d.events.length}
        data-final={FINAL.includes(o.status) ? "true" : undefined}
      >
        <h1>
          Order <code>{o.short_id}</code> <StatusBadge status={o.status} />
          {o.hold ? <HeldBadge /> : null}
        </h1>
        <p class="lead">
          {o.amount_from_received ?? o.amount_from_expected} {o.coin_from} ({o.network_from}) →{" "}
          {o.amount_to_actual ?? o.amount_to_expected} {o.coin_to} ({o.network_to}) ·{" "}
          {o.status_reason ? (
            <>
              <code>{o.status_reason}</code> ·{" "}
            </>
          ) : null}
          updated {when(o.updated_at)}
          {FINAL.includes(o.status) ? null : <span class="muted"> · updates by itself</span>}
        </p>
        {o.hold ? <HoldCard order={o} hold={o.hold} /> : null}
        {o.actions ? <ActionsCard session={props.session} order={o} actions={o.actions} /> : null}
        {o.livemode ? null : <TestHelpersCard session={props.session} order={o} />}
        <div class="columns">
          <section class="card">
            <h2>Timeline</h2>
            <ol class="timeline" data-testid="timeline">
              {d.events.map((e) => (
                <li>
                  <div>
                    <strong>
                      {e.from_status === e.to_status
                        ? e.reason
                        : `${e.from_status ?? "created"} → ${e.to_status}`}
                    </strong>
                    <span class="muted"> {when(realTime(e))}</span>
                    {e.ahead_ms > 0 ? (
                      <span
                        class="badge warn"
                        data-testid="simulated"
                        title={`Test order clock (moved ahead by the expire helper): ${e.at}`}
                      >
                        simulated: {aheadLabel(e.ahead_ms)}
                      </span>
                    ) : null}
                  </div>
                  {e.from_status !== e.to_status ? <div class="muted">{e.reason}</div> : null}
                  {eventText(e.data) ? <div class="mono small">{eventText(e.data)}</div> : null}
                </li>
              ))}
            </ol>
          </section>
          <section class="card">
            <h2>Order</h2>
            <dl class="fields" data-testid="fields">
              {FIELDS(o).map((k) => (
                <>
                  <dt>{k}</dt>
                  <dd data-field={k}>{fieldValue(k, d)}</dd>
                </>
              ))}
            </dl>
          </section>
        </div>
        <section class="card">
          <h2>Webhook deliveries</h2>
          <StackTable
            testid="deliveries"
            rows={d.deliveries}
            empty="No webhook events for this order (none sent yet, or no webhook URL set)."
            columns={[
              { label: "#", cell: (w) => w.sequence },
              { label: "Event", cell: (w) => <code>{w.event_id}</code> },
              { label: "Created", cell: (w) => when(w.created_at) },
              {
                label: "Status",
                cell: (w) => (
                  <span
                    class={`badge ${w.status === "delivered" ? "ok" : w.status === "failed" ? "bad" : ""}`}
                  >
                    {w.status}
                  </span>
                ),
              },
              { label: "Attempts", cell: (w) => w.attempts },
              {
                label: "Last answer",
                cell: (w) => (
                  <>
                    {w.last_status_code ?? ""} {w.last_error ?? ""}
                    {w.next_retry_at ? <div class="muted">next try {when(w.next_retry_at)}</div> : null}
                  </>
                ),
              },
            ]}
          />
        </section>
      </div>
    </Page>
  );
}
