// The cabinet's Logs page (docs/cabinet.md, "Logs"): the partner's API requests in the header's
// Live/Test view, filtered and paged like GET /api/v1/partner/logs, and one request's details.
import { type Context, Hono } from "hono";
import type { Child } from "hono/jsx";
import {
  parseLogCursor,
  parseRequestLogFilter,
  type RequestLogFilterInput,
  type RequestLogView,
  requestLogView,
} from "../../domain/request-log";
import { listRequestLog, logName } from "../../services/request-log";
import type { SessionContext } from "../../storage/cabinet";
import { Page } from "./layout";
import { type CabinetEnv, requireSession, type SignedInEnv } from "./session";
import { StackTable } from "./stack-table";

const PAGE_SIZE = 50;
const FILTERS = ["status", "code", "path", "key_id", "request_id", "order_id"] as const;

const modeOf = (s: SessionContext) => (s.mode === "test" ? "test" : "live");
const logOf = (s: SessionContext) => logName(s.user.partner_id, modeOf(s) === "live");

/** Seconds and milliseconds: requests a few ms apart must read apart. */
/** To the millisecond, in UTC; the script shows it in the viewer's zone (src/client/local-time.ts). */
const at = (iso: string) => (
  <time datetime={iso} data-local="ms">{`${iso.replace("T", " ").slice(0, 23)} UTC`}</time>
);

function query(input: RequestLogFilterInput, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const name of FILTERS) {
    const v = input[name]?.trim();
    if (v) params.set(name, v);
  }
  for (const [k, v] of Object.entries(extra)) params.set(k, v);
  const s = params.toString();
  return s ? `?${s}` : "";
}

function LogsPage(props: {
  session: SessionContext;
  input: RequestLogFilterInput;
  rows: RequestLogView[];
  next: string | null;
  error: string | null;
  retentionDays: number;
}) {
  const q = props.input;
  const filtered = FILTERS.some((f) => q[f]?.trim());
  const text = (name: (typeof FILTERS)[number], label: string, placeholder: string) => (
    <label>
      {label}
      <input name={name} value={q[name] ?? ""} placeholder={placeholder} data-testid={`filter-${name}`} />
    </label>
  );
  return (
    <Page title="Logs" session={props.session} current="/cabinet/logs" wide>
      <h1>Logs</h1>
      <p class="lead">
        Every API request made with your {modeOf(props.session)} keys, newest first, as we answered it. Kept{" "}
        {props.retentionDays} days; a request shows here within seconds.
      </p>
      <section class="card">
        <form class="row filters" method="get" action="/cabinet/logs">
          <label>
            Status
            <select name="status" data-testid="filter-status">
              <option value="">any</option>
              {["2xx", "4xx", "5xx"].map((o) => (
                <option value={o} selected={q.status === o}>
                  {o}
                </option>
              ))}
            </select>
          </label>
          {text("code", "Error code", "order_not_found")}
          {text("path", "Path starts with", "/api/v1/partner/orders")}
          {text("key_id", "Key", "pk_…")}
          {text("request_id", "Request id", "X-Request-Id")}
          {text("order_id", "Order", "short id or UUID")}
          <button type="submit">Apply</button>
          {filtered ? (
            <a class="button secondary" href="/cabinet/logs">
              Clear
            </a>
          ) : null}
        </form>
        {props.error ? <p class="error">{props.error}</p> : null}
      </section>
      <section class="card">
        <StackTable
          testid="logs"
          rows={props.rows}
          empty={filtered ? "No request matches these filters." : "No requests yet."}
          rowAttrs={(r) => ({ "data-request-id": r.request_id })}
          columns={[
            { label: "Time", cell: (r) => <span class="mono">{at(r.at)}</span> },
            { label: "Method", cell: (r) => r.method },
            {
              label: "Path",
              cell: (r) => (
                <a class="mono" href={`/cabinet/logs/${r.id}`}>
                  {r.path}
                  {r.query ? `?${r.query}` : ""}
                </a>
              ),
            },
            {
              label: "Status",
              cell: (r) => (
                <span class={`badge ${r.status >= 500 ? "bad" : r.status >= 400 ? "warn" : "ok"}`}>
                  {r.status}
                </span>
              ),
            },
            { label: "Code", cell: (r) => (r.code ? <code>{r.code}</code> : "") },
            { label: "Latency", num: true, cell: (r) => `${r.latency_ms} ms` },
            { label: "Key", cell: (r) => <span class="mono">{r.key_id}</span> },
            { label: "Request id", cell: (r) => <span class="mono">{r.request_id}</span> },
          ]}
        />
        {props.next ? (
          <div class="pager">
            <a href={`/cabinet/logs${query(q, { cursor: props.next })}`} data-testid="older">
              Older requests →
            </a>
          </div>
        ) : null}
      </section>
    </Page>
  );
}

function LogEntryPage(props: { session: SessionContext; entry: RequestLogView }) {
  const e = props.entry;
  const rows: [string, Child][] = [
    ["Time", at(e.at)],
    ["Request", `${e.method} ${e.path}${e.query ? `?${e.query}` : ""}`],
    ["Status", e.status],
    ["Error code", e.code],
    ["Latency", `${e.latency_ms} ms`],
    ["Key", e.key_id],
    ["Request id", e.request_id],
    ["Client IP", e.ip],
    ["Order", e.order_short_id ?? e.order_id],
  ];
  return (
    <Page title="Request" session={props.session} current="/cabinet/logs">
      <p>
        <a href="/cabinet/logs">← Logs</a>
      </p>
      <h1>
        {e.method} <span class="mono">{e.path}</span> · {e.status}
      </h1>
      <section class="card">
        <dl class="fields" data-testid="log-entry">
          {rows.map(([k, v]) => (
            <>
              <dt>{k}</dt>
              <dd class="mono">
                {k === "Order" && v ? <a href={`/cabinet/orders/${e.order_id}`}>{v}</a> : (v ?? "—")}
              </dd>
            </>
          ))}
        </dl>
        {e.error_body ? (
          <>
            <h2>Response body</h2>
            <pre class="body" data-testid="error-body">
              {e.error_body}
            </pre>
          </>
        ) : null}
      </section>
    </Page>
  );
}

export function logPages(): Hono<CabinetEnv> {
  const app = new Hono<CabinetEnv>();
  const signedIn = (c: Context<CabinetEnv>) => c as unknown as Context<SignedInEnv>;

  app.get("/", requireSession("keys.read"), async (c) => {
    const s = signedIn(c).get("cabinet");
    const input: RequestLogFilterInput = Object.fromEntries(FILTERS.map((f) => [f, c.req.query(f)]));
    const parsed = parseRequestLogFilter(input);
    const cursor = parseLogCursor(c.req.query("cursor") ?? "");
    const retentionDays = c.get("config").REQUEST_LOG_RETENTION_DAYS;
    const page = parsed.ok
      ? await listRequestLog(c.env, logOf(s), parsed.filter, cursor, PAGE_SIZE, retentionDays)
      : { data: [], next_cursor: null };
    const error = parsed.ok
      ? null
      : `Not a valid ${parsed.invalid.map((f) => (f === "order_id" ? "order id or short id" : f)).join(", ")}.`;
    return c.html(
      <LogsPage
        session={s}
        input={input}
        rows={page.data.map(requestLogView)}
        next={page.next_cursor}
        error={error}
        retentionDays={retentionDays}
      />,
      parsed.ok ? 200 : 400,
    );
  });

  app.get("/:id{[0-9]{1,15}}", requireSession("keys.read"), async (c) => {
    const s = signedIn(c).get("cabinet");
    const id = Number(c.req.param("id"));
    const [entry] = await listRequestLog(
      c.env,
      logOf(s),
      {},
      id + 1,
      1,
      c.get("config").REQUEST_LOG_RETENTION_DAYS,
    ).then((p) => p.data);
    if (!entry || entry.seq !== id) return c.notFound();
    return c.html(<LogEntryPage session={s} entry={requestLogView(entry)} />);
  });
  return app;
}
