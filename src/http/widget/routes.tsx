// The embeddable widget and the referral link (docs/widget.md): /widget.js, the iframe pages under
// /widget/{wid}, and /swap?ref={wid}. Handlers parse, call the widget service, render.
import { type Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { TURNSTILE_ORIGIN, TURNSTILE_SCRIPT } from "../../adapters/turnstile";
import { validateAddress } from "../../domain/addresses";
import { DomainError } from "../../domain/errors";
import { regionOf } from "../../domain/liquidity";
import type { OrderView } from "../../domain/order";
import { parentOriginOf, type Widget } from "../../domain/widget";
import { WIDGET_LOADER_ETAG, WIDGET_LOADER_FILE } from "../../generated/swap-assets";
import { createWidgetOrder, recordView, usableWidget, widgetQuote } from "../../services/widgets";
import { loadCatalog } from "../../storage/catalog";
import type { AppEnv } from "../app-env";
import { cfCountry } from "../asset-params";
import { form } from "../cabinet/forms";
import { ApiError } from "../errors";
import { publicRateLimit } from "../middleware/auth";
import { statusOf } from "../middleware/errors";
import { clientIp } from "../middleware/rate-limit";
import { staticAsset } from "../static-assets";
import { Frame, type FrameOptions, swapCsp } from "../track/frame";
import { renderTracking } from "../track/routes";
import { SwapForm, type SwapFormValues } from "./page";

type C = Context<AppEnv>;

/**
 * The order's tracking page on this host (`/track/{ref}`): the path of its tracking_url, so the
 * visitor stays on the origin the widget is served from.
 */
const trackPath = (order: OrderView) => new URL(order.tracking_url).pathname;

/** How the same flow is framed: inside a partner's page (/widget/{wid}) or as a page (/swap). */
interface Surface {
  widget: Widget;
  /** Base of the form, quote and address-check URLs. */
  base: string;
  /** Query string carried on every URL (the referral id, the embedding origin). */
  query: string;
  /** Where the form sends the visitor once the order exists. */
  trackUrl: (order: OrderView) => string;
  frame: FrameOptions & { csp: string };
  /** The partner named on the page: the referral link's (a widget sits on the partner's own site). */
  offeredBy?: string;
}

function turnstile(c: C): { siteKey?: string; scripts: string[] } {
  const cfg = c.get("config");
  return cfg.TURNSTILE_SITE_KEY && cfg.TURNSTILE_SECRET
    ? { siteKey: cfg.TURNSTILE_SITE_KEY, scripts: [TURNSTILE_SCRIPT] }
    : { scripts: [] };
}

function embedded(c: C, widget: Widget): Surface {
  const parent = parentOriginOf(widget, c.req.query("origin"));
  const query = parent ? `?origin=${encodeURIComponent(parent)}` : "";
  const base = `/widget/${widget.id}`;
  const t = turnstile(c);
  return {
    widget,
    base,
    query,
    trackUrl: (o) => `${base}${trackPath(o)}${query}`,
    frame: {
      // 'self': the cabinet's live preview, on this host.
      csp: swapCsp(["'self'", ...widget.allowed_origins], t.scripts.length ? [TURNSTILE_ORIGIN] : []),
      embedded: true,
      parentOrigin: parent ?? undefined,
      scheme: widget.theme.scheme,
      themeHref: `${base}/theme.css`,
      extraScripts: t.scripts,
    },
  };
}

function referral(c: C, widget: Widget, partnerName: string): Surface {
  const t = turnstile(c);
  return {
    widget,
    offeredBy: partnerName,
    base: "/swap",
    query: `?ref=${widget.id}`,
    trackUrl: trackPath,
    frame: {
      csp: swapCsp([], t.scripts.length ? [TURNSTILE_ORIGIN] : []),
      scheme: widget.theme.scheme,
      themeHref: `/widget/${widget.id}/theme.css`,
      extraScripts: t.scripts,
    },
  };
}

function notFoundPage(c: C, csp = swapCsp([])) {
  c.header("Content-Security-Policy", csp);
  c.header("Cache-Control", "no-store");
  return c.html(
    <Frame title="Widget not found">
      <section class="card">
        <h1>This swap is not available</h1>
        <p class="muted">The link is wrong or the widget was switched off.</p>
      </section>
    </Frame>,
    404,
  );
}

/** A widget the request may use, or null after answering 404 (unknown, revoked, inactive partner). */
async function widgetOf(c: C, id: string | undefined) {
  if (!id) return null;
  try {
    return await usableWidget(c.env, id);
  } catch (err) {
    if (err instanceof DomainError && err.code === "widget_not_found") return null;
    throw err;
  }
}

async function renderForm(
  c: C,
  s: Surface,
  values: SwapFormValues = {},
  error?: { message: string; status: ContentfulStatusCode },
) {
  const catalog = await loadCatalog(c.env.DB);
  c.header("Content-Security-Policy", s.frame.csp);
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Cache-Control", "no-store");
  const t = turnstile(c);
  return c.html(
    <Frame title="Exchange" {...s.frame}>
      <SwapForm
        widget={s.widget}
        catalog={catalog}
        action={`${s.base}/orders${s.query}`}
        quoteUrl={`${s.base}/quote${s.query}`}
        checkUrl={`${s.base}/check-address${s.query}`}
        nonce={crypto.randomUUID()}
        values={values}
        error={error?.message}
        turnstileSiteKey={t.siteKey}
        offeredBy={s.offeredBy}
      />
    </Frame>,
    error?.status ?? 200,
  );
}

const split = (v: string | undefined) => {
  const [coin = "", network = ""] = (v ?? "").split(":");
  return { coin, network };
};

/** The form post: an order, then the tracking page; a refusal shows the form again with why. */
async function postOrder(c: C, s: Surface, partner: Awaited<ReturnType<typeof usableWidget>>["partner"]) {
  const f = await form(c);
  const values: SwapFormValues = {
    from: f.from,
    to: f.to,
    amount_from: f.amount_from,
    amount_to: f.amount_to,
    side: f.side,
    rate_type: f.rate_type,
    recipient_address: f.recipient_address,
    recipient_address_tag: f.recipient_address_tag,
    refund_address: f.refund_address,
  };
  const from = split(f.from);
  const to = split(f.to);
  const opt = (x: string | undefined) => (x?.trim() ? x.trim() : undefined);
  // The side the visitor typed on; without the script, the one amount filled in.
  const side = f.side === "to" || (!opt(f.amount_from) && opt(f.amount_to)) ? "to" : "from";
  const amount = opt(side === "to" ? f.amount_to : f.amount_from);
  // With an amount to get and a fixed quote, the amount to send that quote was issued for.
  const quoted = side === "to" ? opt(f.amount_from) : undefined;
  try {
    if (!from.coin || !to.coin || !amount)
      throw new DomainError("invalid_amount", "Choose both coins and enter an amount.");
    if (![amount, quoted].every((a) => a === undefined || DECIMAL.test(a)))
      throw new DomainError("invalid_amount", "Enter the amount as a number such as 0.1.");
    const order = await createWidgetOrder(
      c.env,
      c.get("config"),
      { widget: s.widget, partner },
      {
        coin_from: from.coin,
        network_from: from.network,
        coin_to: to.coin,
        network_to: to.network,
        amount,
        side,
        quoted_amount_from: quoted,
        rate_type: f.rate_type === "fixed" ? "fixed" : "float",
        recipient_address: opt(f.recipient_address),
        recipient_address_tag: opt(f.recipient_address_tag),
        refund_address: opt(f.refund_address),
        quote_id: f.rate_type === "fixed" ? opt(f.quote_id) : undefined,
        nonce: (f.nonce ?? "").slice(0, 64) || crypto.randomUUID(),
        turnstile_token: opt(f["cf-turnstile-response"]),
      },
      {
        ip: clientIp(c),
        region: regionOf(c.req.raw.cf?.continent),
        country: cfCountry(c),
        hostname: new URL(c.req.url).hostname,
      },
    );
    return c.redirect(s.trackUrl(order), 303);
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    if (err.retryAfter) c.header("Retry-After", String(err.retryAfter));
    return renderForm(c, s, values, { message: err.message, status: statusOf(err.code) });
  }
}

const DECIMAL = /^\d+(\.\d+)?$/;
const QUOTE_PARAMS = ["from", "to", "amount", "amount_to", "rate_type"] as const;

async function quote(c: C, s: Surface, partner: Awaited<ReturnType<typeof usableWidget>>["partner"]) {
  const q = Object.fromEntries(QUOTE_PARAMS.map((k) => [k, c.req.query(k) ?? ""]));
  const from = split(q.from);
  const to = split(q.to);
  // `amount` is what the visitor sends; `amount_to`, instead, what they get (a reverse quote).
  const side = q.amount_to && !q.amount ? "to" : "from";
  const amount = (side === "to" ? q.amount_to : q.amount) ?? "";
  if (!DECIMAL.test(amount) || !from.coin || !to.coin)
    throw new ApiError(400, "invalid_request", "from, to and a decimal amount (or amount_to) are required.");
  const body = await widgetQuote(
    c.env,
    c.get("config"),
    { widget: s.widget, partner },
    {
      coin_from: from.coin,
      network_from: from.network,
      coin_to: to.coin,
      network_to: to.network,
      amount,
      side,
      rate_type: q.rate_type === "fixed" ? "fixed" : "float",
    },
  );
  c.header("Cache-Control", "no-store");
  return c.json(body);
}

/** The API's own address rules, for the form's check as you type. */
function checkAddress(c: C) {
  const network = (c.req.query("network") ?? "").toUpperCase();
  const address = (c.req.query("address") ?? "").trim().slice(0, 128);
  const r = validateAddress(network, address);
  c.header("Cache-Control", "no-store");
  return c.json(r.ok ? { ok: true } : { ok: false, detail: `Not a valid ${network} address: ${r.reason}.` });
}

export function createWidgetPages() {
  const app = new Hono<AppEnv>();

  app.get("/widget.js", async (c) => {
    if (c.req.header("if-none-match") === WIDGET_LOADER_ETAG) return c.body(null, 304);
    const loader = await staticAsset(c.env.ASSETS, `/swap-assets/${WIDGET_LOADER_FILE}`);
    if (!loader) return c.notFound();
    return c.body(loader.body, 200, {
      "Content-Type": "text/javascript; charset=utf-8",
      "Cache-Control": "public, max-age=300",
      ETag: WIDGET_LOADER_ETAG,
      "X-Content-Type-Options": "nosniff",
    });
  });

  app.get("/widget/:wid/theme.css", async (c) => {
    const u = await widgetOf(c, c.req.param("wid"));
    if (!u) return c.body("", 404, { "Content-Type": "text/css; charset=utf-8" });
    // The accent is checked (#rrggbb) when the widget is created.
    return c.body(`:root{--accent:${u.widget.theme.accent}}`, 200, {
      "Content-Type": "text/css; charset=utf-8",
      "Cache-Control": "public, max-age=60",
    });
  });

  const embeddedRoutes = (path: string) => `/widget/:wid${path}`;
  app.get(embeddedRoutes(""), publicRateLimit, async (c) => {
    const u = await widgetOf(c, c.req.param("wid"));
    if (!u) return notFoundPage(c);
    c.executionCtx.waitUntil(recordView(c.env, u.widget.id, clientIp(c)).catch(() => undefined));
    return renderForm(c, embedded(c, u.widget));
  });
  app.post(embeddedRoutes("/orders"), publicRateLimit, async (c) => {
    const u = await widgetOf(c, c.req.param("wid"));
    if (!u) return notFoundPage(c);
    return postOrder(c, embedded(c, u.widget), u.partner);
  });
  app.get(embeddedRoutes("/quote"), publicRateLimit, async (c) => {
    const u = await widgetOf(c, c.req.param("wid"));
    if (!u) throw new DomainError("widget_not_found", "This widget does not exist or was revoked.");
    return quote(c, embedded(c, u.widget), u.partner);
  });
  app.get(embeddedRoutes("/check-address"), publicRateLimit, (c) => checkAddress(c));
  app.get(embeddedRoutes("/track/:order_id"), publicRateLimit, async (c) => {
    const u = await widgetOf(c, c.req.param("wid"));
    if (!u) return notFoundPage(c);
    const s = embedded(c, u.widget);
    return renderTracking(c, c.req.param("order_id") ?? "", { ...s.frame, belongsTo: u.widget.partner_id });
  });

  // The referral link: the same flow as a page of its own.
  app.get("/swap", publicRateLimit, async (c) => {
    const u = await widgetOf(c, c.req.query("ref"));
    if (!u) return notFoundPage(c);
    c.executionCtx.waitUntil(recordView(c.env, u.widget.id, clientIp(c)).catch(() => undefined));
    return renderForm(c, referral(c, u.widget, u.partner.name));
  });
  app.post("/swap/orders", publicRateLimit, async (c) => {
    const u = await widgetOf(c, c.req.query("ref"));
    if (!u) return notFoundPage(c);
    return postOrder(c, referral(c, u.widget, u.partner.name), u.partner);
  });
  app.get("/swap/quote", publicRateLimit, async (c) => {
    const u = await widgetOf(c, c.req.query("ref"));
    if (!u) throw new DomainError("widget_not_found", "This widget does not exist or was revoked.");
    return quote(c, referral(c, u.widget, u.partner.name), u.partner);
  });
  app.get("/swap/check-address", publicRateLimit, (c) => checkAddress(c));
  return app;
}
