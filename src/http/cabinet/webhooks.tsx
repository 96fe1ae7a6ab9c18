// The cabinet's Webhooks page: the endpoint (URL, on/off), secret rotation (shown once, with an
// optional overlap), "send test event" and the event browser: each event's payload, every attempt
// with the headers sent and the receiver's answer, filters, a resend button and a CSV export.
// Everything goes through the same service as the partner API (services/webhooks.ts).
import { type Context, Hono } from "hono";
import { can } from "../../domain/cabinet";
import { parseOrderRef } from "../../domain/order-id";
import {
  DELIVERY_STATUSES,
  type DeliveryStatus,
  RESPONSE_BODY_LIMIT,
  WEBHOOK_EVENT_TYPES,
} from "../../domain/webhooks";
import { STEP_UP_FIELD } from "../../services/step-up";
import { deliveryOptions } from "../../services/webhook-delivery";
import {
  type AttemptView,
  configureWebhook,
  type DeliveryFilterQuery,
  type DeliveryView,
  deliveriesCsv,
  deliveryPage,
  type EndpointView,
  resendDelivery,
  rotateWebhookSecret,
  sendTestEvent,
  type WebhookScope,
  webhookEndpoint,
} from "../../services/webhooks";
import type { SessionContext } from "../../storage/cabinet";
import { ApiError, badRequest } from "../errors";
import { acceptWebhookUrl } from "../webhook-url";
import { form } from "./forms";
import { Csrf, Notice, Page, StepUpField } from "./layout";
import { when } from "./pages";
import { actorOf, type CabinetEnv, requireSession, type SignedInEnv, stepUpGate } from "./session";
import { StackTable } from "./stack-table";

const PAGE_SIZE = 20;
/** Overlaps offered when rotating: how long the previous secret keeps signing too. */
const OVERLAPS = { now: 0, "1h": 3600, "24h": 86_400 } as const;

interface LogFilter extends DeliveryFilterQuery {
  cursor?: string | undefined;
}

interface PageProps {
  session: SessionContext;
  endpoint: EndpointView;
  deliveries: DeliveryView[];
  nextCursor: string | null;
  filter: LogFilter;
  secret?: string | undefined;
  notice?: string | undefined;
  /** A failed test event or resend is said in the error's colours, not the success box's. */
  noticeFailed?: boolean;
  /** Plain http to localhost is accepted here (ALLOW_HTTP_WEBHOOKS, dev): the hint says so. */
  allowHttp: boolean;
  /** A refused URL: why, and what was typed (kept in the field to correct it). */
  urlError?: { message: string; typed: string } | undefined;
  /** An order filter that is neither a UUID nor a short id (said, not ignored). */
  filterError?: string | undefined;
}

function statusBadge(status: DeliveryStatus) {
  const tone = { delivered: "ok", pending: "warn", failed: "bad", skipped: "" }[status];
  return <span class={`badge ${tone}`.trim()}>{status}</span>;
}

/** A JSON body indented for reading; anything else as it came. */
function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function AttemptItem(props: { a: AttemptView }) {
  const a = props.a;
  return (
    <li title={a.attempted_at}>
      {a.attempted_at.slice(11, 19)} UTC · {a.trigger} ·{" "}
      <strong>{a.status_code !== null ? `HTTP ${a.status_code}` : "no response"}</strong>
      {a.error && a.status_code === null ? ` · ${a.error}` : ""} · {a.duration_ms} ms
      {a.request_headers ? (
        <details>
          <summary>Request headers</summary>
          <dl class="fields" data-testid="request-headers">
            {Object.entries(a.request_headers).map(([name, value]) => (
              <>
                <dt>{name}</dt>
                <dd class="mono">{value}</dd>
              </>
            ))}
          </dl>
        </details>
      ) : null}
      {a.response_body !== null ? (
        <>
          <div class="muted">
            Response body
            {a.response_body_truncated ? ` (first ${RESPONSE_BODY_LIMIT / 1024} KB)` : ""}
            {a.response_body === "" ? ": empty" : ""}
          </div>
          {a.response_body !== "" ? (
            <pre class="body" data-testid="response-body" tabindex={0}>
              {a.response_body}
            </pre>
          ) : null}
        </>
      ) : null}
    </li>
  );
}

function AttemptList(props: { d: DeliveryView }) {
  if (props.d.attempts.length === 0) return <span class="muted">{props.d.last_error ?? "none yet"}</span>;
  return (
    <details>
      <summary>
        {props.d.attempts.length} attempt{props.d.attempts.length === 1 ? "" : "s"}
      </summary>
      <ol class="attempts">
        {props.d.attempts.map((a) => (
          <AttemptItem a={a} />
        ))}
      </ol>
    </details>
  );
}

function filterQuery(f: LogFilter, cursor?: string): string {
  const q = new URLSearchParams();
  if (f.type) q.set("type", f.type);
  if (f.status) q.set("status", f.status);
  if (f.orderId) q.set("order_id", f.orderId);
  if (cursor) q.set("cursor", cursor);
  return q.toString();
}

/** The log's filter as hidden fields, so a form posted from the filtered log comes back to it. */
const FilterFields = (props: { filter: LogFilter }) => (
  <>
    {props.filter.type ? <input type="hidden" name="type" value={props.filter.type} /> : null}
    {props.filter.status ? <input type="hidden" name="status" value={props.filter.status} /> : null}
    {props.filter.orderId ? <input type="hidden" name="order_id" value={props.filter.orderId} /> : null}
  </>
);

export function WebhooksPage(props: PageProps) {
  const s = props.session;
  const write = can(s.user.role, "webhooks.write");
  const e = props.endpoint;
  return (
    <Page
      title="Webhooks"
      session={s}
      current="/cabinet/webhooks"
      replaceUrl={
        props.secret || props.notice || props.urlError
          ? `/cabinet/webhooks${filterQuery(props.filter) ? `?${filterQuery(props.filter)}` : ""}`
          : undefined
      }
    >
      <h1>Webhooks</h1>
      <p class="lead">
        We POST a signed event to your endpoint whenever an order changes status.{" "}
        {s.mode === "test" ? "Test" : "Live"} mode endpoint.
      </p>
      <Notice text={props.notice} failed={props.noticeFailed} />
      {props.secret ? (
        <div class="secret" role="alert">
          <strong>Store this signing secret now.</strong> It is shown only this once.
          <code id="new-secret" data-testid="new-secret">
            {props.secret}
          </code>
          <button type="button" class="small" data-copy="new-secret">
            Copy
          </button>
        </div>
      ) : null}
      <section class="card">
        <h2>Endpoint</h2>
        {write ? (
          <form class="row" method="post" action="/cabinet/webhooks/endpoint">
            <Csrf session={s} />
            <label class="grow">
              URL
              <input
                name="url"
                type="url"
                value={props.urlError ? props.urlError.typed : (e.url ?? "")}
                placeholder="https://your-server.example/webhooks"
                maxlength={2048}
                aria-invalid={props.urlError ? "true" : undefined}
              />
            </label>
            <label class="check">
              <input type="checkbox" name="enabled" value="on" checked={e.url === null || e.enabled} />
              Enabled
            </label>
            <button type="submit">Save</button>
            <StepUpField when='input[name="url"]' />
          </form>
        ) : (
          <p>
            <span class="mono">{e.url ?? "No endpoint set."}</span>{" "}
            {e.url ? (
              <span class={e.enabled ? "badge ok" : "badge"}>{e.enabled ? "enabled" : "disabled"}</span>
            ) : null}
          </p>
        )}
        {props.urlError ? (
          <p class="error" role="alert" data-testid="url-error">
            {props.urlError.message}
          </p>
        ) : null}
        <p class="muted" data-testid="url-hint">
          {props.allowHttp
            ? "https on port 443 to a public host name, or — in this development deployment — plain http to localhost on any port; other IP addresses and local or internal names are refused."
            : "https on port 443 to a public host name; IP addresses and local or internal names are refused."}
        </p>
      </section>
      <section class="card">
        <h2>Signing secret</h2>
        <p>
          {e.secret_set ? <span class="badge ok">set</span> : <span class="badge warn">not set</span>}
          {e.previous_secret_expires_at ? (
            <span class="muted">
              {" "}
              · the previous secret also signs until {when(e.previous_secret_expires_at)}
            </span>
          ) : null}
        </p>
        {write ? (
          <div class="actions">
            <form
              class="row"
              method="post"
              action="/cabinet/webhooks/secret"
              data-confirm={e.secret_set ? "Replace the signing secret?" : undefined}
            >
              <Csrf session={s} />
              {e.secret_set ? (
                <label>
                  Old secret keeps signing for
                  <select name="overlap">
                    <option value="now">no overlap (stops now)</option>
                    <option value="1h" selected>
                      1 hour
                    </option>
                    <option value="24h">24 hours</option>
                  </select>
                </label>
              ) : null}
              <button type="submit" class="secondary">
                {e.secret_set ? "Rotate secret" : "Create secret"}
              </button>
            </form>
            <form class="row" method="post" action="/cabinet/webhooks/test">
              <Csrf session={s} />
              <button type="submit" class="secondary" disabled={!e.url || !e.secret_set || !e.enabled}>
                Send test event
              </button>
            </form>
          </div>
        ) : null}
      </section>
      <section class="card">
        <h2>Delivery log</h2>
        <form class="row" method="get" action="/cabinet/webhooks">
          <label>
            Type
            <select name="type">
              <option value="">any</option>
              {WEBHOOK_EVENT_TYPES.map((t) => (
                <option value={t} selected={props.filter.type === t}>
                  {t}
                </option>
              ))}
            </select>
          </label>
          <label>
            Status
            <select name="status">
              <option value="">any</option>
              {DELIVERY_STATUSES.map((st) => (
                <option value={st} selected={props.filter.status === st}>
                  {st}
                </option>
              ))}
            </select>
          </label>
          <label class="grow">
            Order id
            <input
              name="order_id"
              value={props.filter.orderId ?? ""}
              placeholder="order UUID or short id"
              data-testid="filter-order"
            />
          </label>
          <button type="submit" class="secondary">
            Filter
          </button>
          <a
            class="button secondary"
            href={`/cabinet/webhooks/events.csv${filterQuery(props.filter) ? `?${filterQuery(props.filter)}` : ""}`}
            data-testid="export-csv"
          >
            Export CSV
          </a>
        </form>
        {props.filterError ? (
          <p class="error" role="alert">
            {props.filterError}
          </p>
        ) : null}
        <StackTable
          testid="deliveries"
          rows={props.deliveries}
          empty="No events yet."
          rowAttrs={(d) => ({ "data-event": d.event_id })}
          columns={[
            { label: "When", cell: (d) => when(d.created_at) },
            {
              label: "Event",
              cell: (d) => (
                <>
                  <code>{d.type}</code>
                  <div class="mono muted">{d.event_id}</div>
                  {d.order_id ? <div class="mono muted">order {d.order_id}</div> : null}
                  <details>
                    <summary>Payload</summary>
                    <pre class="body" data-testid="payload" tabindex={0}>
                      {pretty(d.payload)}
                    </pre>
                  </details>
                </>
              ),
            },
            { label: "Status", cell: (d) => statusBadge(d.status) },
            { label: "Attempts", cell: (d) => <AttemptList d={d} /> },
            write && {
              label: "",
              cell: (d) => (
                <form
                  class="inline"
                  method="post"
                  action={`/cabinet/webhooks/deliveries/${d.event_id}/resend`}
                >
                  <Csrf session={s} />
                  <FilterFields filter={props.filter} />
                  <button class="secondary small" type="submit">
                    Resend
                  </button>
                </form>
              ),
            },
          ]}
        />
        {props.nextCursor ? (
          <div class="pager">
            <a href={`/cabinet/webhooks?${filterQuery(props.filter, props.nextCursor)}`}>Older events →</a>
          </div>
        ) : null}
      </section>
    </Page>
  );
}

// The cabinet acts on the live endpoint until test mode gives the header switch a meaning.
const scopeOf = (s: SessionContext): WebhookScope => ({
  partnerId: s.user.partner_id,
  mode: s.mode ?? "live",
});

async function render(
  c: Context<SignedInEnv>,
  extra: Partial<PageProps> = {},
  filter: LogFilter = {},
  status: 200 | 201 | 400 = extra.secret ? 201 : 200,
) {
  const s = c.get("cabinet");
  const scope = scopeOf(s);
  const [endpoint, page] = await Promise.all([
    webhookEndpoint(c.env.DB, scope),
    deliveryPage(c.env.DB, scope, { ...filter, limit: PAGE_SIZE }),
  ]);
  return c.html(
    <WebhooksPage
      session={s}
      endpoint={endpoint}
      deliveries={page.data}
      nextCursor={page.next_cursor}
      filter={filter}
      allowHttp={c.get("config").ALLOW_HTTP_WEBHOOKS}
      {...extra}
    />,
    status,
  );
}

function outcome(d: DeliveryView): string {
  const last = d.attempts.at(-1);
  const answer = last?.status_code != null ? `HTTP ${last.status_code}` : (last?.error ?? "no answer");
  return `${d.type} ${d.event_id}: ${d.status} (${answer}).`;
}

/**
 * The log filter a query or a posted form carries. The order is a UUID or a short id in any case
 * (the log is keyed by UUID); anything else is an error to show, not a filter to drop.
 */
function logFilter(raw: {
  type?: string | undefined;
  status?: string | undefined;
  order_id?: string | undefined;
}): {
  filter: LogFilter;
  error?: string;
} {
  const status = DELIVERY_STATUSES.find((st) => st === raw.status);
  const type = WEBHOOK_EVENT_TYPES.find((t) => t === raw.type);
  const typed = raw.order_id?.trim();
  if (!typed) return { filter: { type, status } };
  const order = parseOrderRef(typed);
  if (!order) return { filter: { type, status }, error: `"${typed}" is not an order id or short id.` };
  return { filter: { type, status, orderId: order.id } };
}

/** The filter of a GET: its query string. */
const queryFilter = (c: Context) =>
  logFilter({ type: c.req.query("type"), status: c.req.query("status"), order_id: c.req.query("order_id") });

export function webhookPages(): Hono<CabinetEnv> {
  const app = new Hono<CabinetEnv>();
  const signedIn = (c: Context<CabinetEnv>) => c as unknown as Context<SignedInEnv>;

  app.get("/", requireSession("webhooks.read"), (c) => {
    const { filter, error } = queryFilter(c);
    return render(
      signedIn(c),
      { filterError: error },
      { ...filter, cursor: c.req.query("cursor") || undefined },
      error ? 400 : 200,
    );
  });
  app.get("/events.csv", requireSession("webhooks.read"), (c) => {
    const { filter, error } = queryFilter(c);
    if (error) throw badRequest(error);
    const stamp = new Date().toISOString().slice(0, 19).replace(/[-:]/g, "");
    return c.body(deliveriesCsv(c.env.DB, scopeOf(signedIn(c).get("cabinet")), filter), 200, {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="webhook-events-${stamp}.csv"`,
    });
  });
  app.post("/endpoint", requireSession("webhooks.write"), async (c) => {
    const f = await form(c);
    const raw = f.url?.trim() ?? "";
    let url: string | null = null;
    try {
      url = raw === "" ? null : acceptWebhookUrl(c.get("config"), raw, "The URL");
    } catch (err) {
      // Refused: the same page, the reason beside the field and what was typed still in it.
      if (!(err instanceof ApiError)) throw err;
      return render(signedIn(c), { urlError: { message: err.message, typed: raw } }, {}, 400);
    }
    // Events carry orders' addresses and amounts: a session alone cannot send them elsewhere.
    const scope = scopeOf(signedIn(c).get("cabinet"));
    if (url !== (await webhookEndpoint(c.env.DB, scope)).url)
      await stepUpGate(signedIn(c), f[STEP_UP_FIELD])({ action: "webhook.url", target: url });
    await configureWebhook(c.env.DB, actorOf(signedIn(c)), scope, {
      url,
      enabled: f.enabled === "on",
    });
    return render(signedIn(c), { notice: url ? `Endpoint saved: ${url}` : "Endpoint removed." });
  });
  app.post("/secret", requireSession("webhooks.write"), async (c) => {
    const overlap = (await form(c)).overlap ?? "now";
    if (!(overlap in OVERLAPS))
      throw badRequest(`overlap must be one of ${Object.keys(OVERLAPS).join(", ")}.`);
    const { secret } = await rotateWebhookSecret(
      c.env.DB,
      actorOf(signedIn(c)),
      scopeOf(signedIn(c).get("cabinet")),
      OVERLAPS[overlap as keyof typeof OVERLAPS],
    );
    return render(signedIn(c), { secret });
  });
  app.post("/test", requireSession("webhooks.write"), async (c) => {
    const d = await sendTestEvent(
      c.env.DB,
      deliveryOptions(c.get("config")),
      actorOf(signedIn(c)),
      scopeOf(signedIn(c).get("cabinet")),
    );
    return render(signedIn(c), {
      notice: `Test event sent — ${outcome(d)}`,
      noticeFailed: d.status !== "delivered",
    });
  });
  app.post("/deliveries/:eventId/resend", requireSession("webhooks.write"), async (c) => {
    const { filter } = logFilter(await form(c));
    const d = await resendDelivery(
      c.env.DB,
      deliveryOptions(c.get("config")),
      actorOf(signedIn(c)),
      scopeOf(signedIn(c).get("cabinet")),
      c.req.param("eventId"),
    );
    return render(
      signedIn(c),
      { notice: `Resent — ${outcome(d)}`, noticeFailed: d.status !== "delivered" },
      filter,
    );
  });
  return app;
}
