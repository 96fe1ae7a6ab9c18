// The cabinet's Widgets page (docs/widget.md): the partner's widgets of the current Live / Test
// view, each with its snippet, iframe URL, referral link, a live preview and its last 30 days
// (views → orders → completed); a form to create one; revoking. Members who may manage keys may
// manage widgets (a widget id is publishable, like a key id); everyone who sees orders sees them.
import { type Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { CurrencyRow } from "../../domain/currency";
import { DomainError } from "../../domain/errors";
import type { Widget } from "../../domain/widget";
import { audit } from "../../services/cabinet-auth";
import { STEP_UP_FIELD } from "../../services/step-up";
import { createWidget, partnerWidgets, revokePartnerWidget, widgetStats } from "../../services/widgets";
import type { SessionContext } from "../../storage/cabinet";
import { loadCatalog } from "../../storage/catalog";
import type { WidgetFunnel } from "../../storage/widgets";
import { statusOf } from "../middleware/errors";
import { form } from "./forms";
import { Csrf, Notice, Page, StepUpField } from "./layout";
import { actorOf, type CabinetEnv, requireSession, type SignedInEnv, stepUpGate } from "./session";

const key = (c: Pick<CurrencyRow, "coin" | "network">) => `${c.coin}:${c.network}`;
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

function WidgetCard(props: {
  session: SessionContext;
  widget: Widget;
  funnel: WidgetFunnel | undefined;
  origin: string;
  canWrite: boolean;
}) {
  const w = props.widget;
  const f = props.funnel ?? { views: 0, orders: 0, completed: 0 };
  const snippet = `<script src="${props.origin}/widget.js" data-widget="${w.id}" async></script>`;
  const referral = `${props.origin}/swap?ref=${w.id}`;
  return (
    <section class="card" data-widget={w.id}>
      <h2>
        {w.name} <code>{w.id}</code> {w.revoked_at ? <span class="muted">· revoked</span> : null}
      </h2>
      <dl class="fields">
        <dt>Last 30 days</dt>
        <dd data-testid="funnel">
          {count(f.views, "view")} → {count(f.orders, "order")} → {f.completed} completed
        </dd>
        <dt>Allowed origins</dt>
        <dd class="mono">{w.allowed_origins.join(" ")}</dd>
        <dt>Theme</dt>
        <dd>
          {w.theme.accent} · {w.theme.scheme}
        </dd>
        <dt>Locked recipient</dt>
        <dd class="mono">
          {w.locked_recipient ? `${w.locked_recipient.network}: ${w.locked_recipient.address}` : "—"}
        </dd>
        <dt>Referral link</dt>
        <dd class="mono">
          <a href={referral} data-testid="referral-link">
            {referral}
          </a>
        </dd>
        <dt>iframe URL</dt>
        <dd class="mono">{`${props.origin}/widget/${w.id}`}</dd>
      </dl>
      {w.revoked_at ? null : (
        <>
          <label>
            Paste this where the widget should appear
            <textarea readonly rows={2} class="mono" data-testid="snippet">
              {snippet}
            </textarea>
          </label>
          <details>
            <summary>Preview</summary>
            <iframe
              class="widget-preview"
              src={`/widget/${w.id}`}
              title={`Preview of ${w.name}`}
              loading="lazy"
            ></iframe>
          </details>
          {props.canWrite ? (
            <form
              method="post"
              action={`/cabinet/widgets/${w.id}/revoke`}
              data-confirm="Revoke this widget? Its frame and referral link stop working at once."
            >
              <Csrf session={props.session} />
              <button class="danger small" type="submit">
                Revoke
              </button>
            </form>
          ) : null}
        </>
      )}
    </section>
  );
}

export function WidgetsPage(props: {
  session: SessionContext;
  widgets: Widget[];
  funnels: WidgetFunnel[];
  catalog: CurrencyRow[];
  origin: string;
  canWrite: boolean;
  notice?: string | undefined;
  error?: string | undefined;
}) {
  const mode = props.session.mode === "test" ? "test" : "live";
  const byId = new Map(props.funnels.map((f) => [f.widget_id, f]));
  const active = props.catalog.filter((c) => c.is_active === 1);
  const networks = [...new Set(active.filter((c) => c.is_withdraw_enabled === 1).map((c) => c.network))];
  return (
    <Page title="Widgets" session={props.session} current="/cabinet/widgets">
      <h1>Widgets</h1>
      <p class="lead">
        A swap form for your site, and a referral link for everywhere else: the orders are yours, with your
        markup.
        {mode === "test" ? " These are test widgets: their orders are test orders." : ""}
      </p>
      <Notice text={props.notice} />
      {props.error ? (
        <p class="error" role="alert" data-testid="error">
          {props.error}
        </p>
      ) : null}
      {props.widgets.length === 0 ? <p class="muted">No {mode} widgets yet.</p> : null}
      {props.widgets.map((w) => (
        <WidgetCard
          session={props.session}
          widget={w}
          funnel={byId.get(w.id)}
          origin={props.origin}
          canWrite={props.canWrite}
        />
      ))}
      {props.canWrite ? (
        <section class="card">
          <h2>New {mode} widget</h2>
          <form method="post" action="/cabinet/widgets" class="stack">
            <Csrf session={props.session} />
            <label>
              Name
              <input name="name" maxlength={60} placeholder="Shop checkout" />
            </label>
            <label>
              Sites that may show it (one origin a line, such as https://shop.example)
              <textarea
                name="allowed_origins"
                rows={2}
                required
                placeholder="https://shop.example"
              ></textarea>
            </label>
            <div class="row">
              <label>
                Accent colour
                <input name="accent" type="color" value="#1f4fd1" />
              </label>
              <label>
                Colours
                <select name="scheme">
                  <option value="auto">Follow the visitor's system</option>
                  <option value="light">Light</option>
                  <option value="dark">Dark</option>
                </select>
              </label>
            </div>
            <div class="row">
              <label>
                Default: you send
                <select name="pair_from">
                  <option value="">—</option>
                  {active
                    .filter((c) => c.is_deposit_enabled === 1)
                    .map((c) => (
                      <option value={key(c)}>{key(c)}</option>
                    ))}
                </select>
              </label>
              <label>
                Default: you get
                <select name="pair_to">
                  <option value="">—</option>
                  {active
                    .filter((c) => c.is_withdraw_enabled === 1)
                    .map((c) => (
                      <option value={key(c)}>{key(c)}</option>
                    ))}
                </select>
              </label>
              <label>
                Default amount
                <input name="default_amount" inputmode="decimal" placeholder="0.1" />
              </label>
            </div>
            <label>
              Only these coins (comma-separated tickers; empty: all)
              <input name="coins" placeholder="BTC, ETH, USDT" />
            </label>
            <fieldset>
              <legend>
                Locked recipient (optional: every order pays out here, the visitor cannot change it)
              </legend>
              <div class="row">
                <label>
                  Network
                  <select name="locked_network">
                    <option value="">—</option>
                    {networks.map((n) => (
                      <option value={n}>{n}</option>
                    ))}
                  </select>
                </label>
                <label class="grow">
                  Address
                  <input name="locked_address" autocomplete="off" spellcheck={false} />
                </label>
                <label>
                  Memo / tag
                  <input name="locked_tag" autocomplete="off" />
                </label>
              </div>
            </fieldset>
            <button type="submit">Create widget</button>
            <StepUpField when='input[name="locked_address"]' />
          </form>
        </section>
      ) : null}
    </Page>
  );
}

async function render(
  c: Context<SignedInEnv>,
  extra: { notice?: string; error?: string; status?: ContentfulStatusCode } = {},
) {
  const s = c.get("cabinet");
  const mode = s.mode === "test" ? "test" : "live";
  const [widgets, funnels, catalog] = await Promise.all([
    partnerWidgets(c.env.DB, s.user.partner_id),
    widgetStats(c.env.DB, s.user.partner_id),
    loadCatalog(c.env.DB),
  ]);
  return c.html(
    <WidgetsPage
      session={s}
      widgets={widgets.filter((w) => w.mode === mode)}
      funnels={funnels}
      catalog={catalog}
      origin={new URL(c.req.url).origin}
      canWrite={s.user.role !== "viewer"}
      notice={extra.notice}
      error={extra.error}
    />,
    extra.status ?? 200,
  );
}

const opt = (v: string | undefined) => (v?.trim() ? v.trim() : undefined);

export function widgetPages(): Hono<CabinetEnv> {
  const app = new Hono<CabinetEnv>();
  const signedIn = (c: Context<CabinetEnv>) => c as unknown as Context<SignedInEnv>;
  // Post/redirect/get: a created or revoked widget is named by the redirect's query, so reloading
  // the page that says so sends nothing again.
  app.get("/", requireSession("orders.read"), (c) => {
    const id = (c.req.query("created") ?? c.req.query("revoked") ?? "").slice(0, 40);
    const said = /^wid_\w{20}$/.test(id)
      ? `${c.req.query("created") ? "Created" : "Revoked"} ${id}.`
      : undefined;
    return render(signedIn(c), said ? { notice: said } : {});
  });
  app.post("/", requireSession("keys.write"), async (c) => {
    const s = signedIn(c);
    const session = s.get("cabinet");
    const f = await form(c);
    const [cf = "", nf = ""] = (f.pair_from ?? "").split(":");
    const [ct = "", nt = ""] = (f.pair_to ?? "").split(":");
    const lockedAddress = opt(f.locked_address);
    // Every order of the widget pays out there: a session alone cannot choose where.
    if (lockedAddress)
      await stepUpGate(s, f[STEP_UP_FIELD])({ action: "widget.locked_recipient", target: lockedAddress });
    try {
      if (opt(f.pair_from) && !opt(f.pair_to))
        throw new DomainError("invalid_widget", "Choose both coins of the default pair, or neither.");
      const w = await createWidget(
        c.env.DB,
        session.user.partner_id,
        {
          mode: session.mode === "test" ? "test" : "live",
          name: opt(f.name),
          allowed_origins: (f.allowed_origins ?? "").split(/[\s,]+/).filter(Boolean),
          theme: {
            ...(/^#[0-9a-fA-F]{6}$/.test(f.accent ?? "") ? { accent: f.accent } : {}),
            ...(f.scheme === "light" || f.scheme === "dark" ? { scheme: f.scheme } : {}),
          },
          default_pair:
            opt(f.pair_from) && opt(f.pair_to)
              ? { coin_from: cf, network_from: nf, coin_to: ct, network_to: nt }
              : null,
          default_amount: opt(f.default_amount) ?? null,
          coins:
            opt(f.coins)
              ?.split(/[\s,]+/)
              .filter(Boolean) ?? null,
          locked_recipient: lockedAddress
            ? { address: lockedAddress, network: f.locked_network ?? "", tag: opt(f.locked_tag) ?? null }
            : null,
        },
        session.user.email,
      );
      await audit(c.env.DB, actorOf(s), "widget.created", w.id, {
        mode: w.mode,
        allowed_origins: w.allowed_origins,
      });
      return c.redirect(`/cabinet/widgets?created=${w.id}`, 303);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      return render(s, { error: err.message, status: statusOf(err.code) });
    }
  });
  app.post("/:wid/revoke", requireSession("keys.write"), async (c) => {
    const s = signedIn(c);
    const id = c.req.param("wid");
    await revokePartnerWidget(c.env.DB, s.get("cabinet").user.partner_id, id);
    await audit(c.env.DB, actorOf(s), "widget.revoked", id);
    return c.redirect(`/cabinet/widgets?revoked=${id}`, 303);
  });
  return app;
}
