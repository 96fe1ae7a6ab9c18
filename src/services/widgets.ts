// Widgets and referral links (docs/widget.md): a partner's widgets (cabinet and operator), and
// what the end user does through one: quote, create an order (limits, Turnstile), be counted.
import { TURNSTILE_ACTION, verifyTurnstile } from "../adapters/turnstile";
import type { Config } from "../config";
import { checkDestination } from "../domain/destination";
import { DomainError } from "../domain/errors";
import { parseDecimal, toDecimalString, toJsonNumber } from "../domain/money";
import type { OrderView } from "../domain/order";
import type { Partner } from "../domain/partner";
import { ipRateLimitSubject } from "../domain/rate-limit";
import {
  DEFAULT_THEME,
  type LockedRecipient,
  normalizeOrigins,
  offersCoin,
  type Widget,
  type WidgetMode,
  type WidgetPair,
  type WidgetTheme,
  widgetIdFrom,
} from "../domain/widget";
import { loadCatalog } from "../storage/catalog";
import { getPartner } from "../storage/partners";
import {
  countView,
  findWidget,
  insertWidget,
  listWidgets,
  revokeWidget,
  type WidgetFunnel,
  widgetFunnels,
} from "../storage/widgets";
import { issueQuoteFor } from "./fixed-quotes";
import { createOrder } from "./orders";
import { priceQuote, type RateType } from "./quoting";

export interface WidgetInput {
  mode: WidgetMode;
  name?: string | undefined;
  allowed_origins: string[];
  theme?: Partial<WidgetTheme> | undefined;
  default_pair?: WidgetPair | null | undefined;
  default_amount?: string | null | undefined;
  coins?: string[] | null | undefined;
  locked_recipient?: { address: string; network: string; tag?: string | null | undefined } | null | undefined;
}

/** Checks a widget's settings against the catalog and the address rules; creates it. */
export async function createWidget(
  db: D1Database,
  partnerId: string,
  input: WidgetInput,
  createdBy: string,
  now = new Date(),
): Promise<Widget> {
  if (!(await getPartner(db, partnerId))) throw new DomainError("partner_not_found", "Partner not found.");
  const catalog = (await loadCatalog(db)).filter((c) => c.is_active === 1);
  const coins = input.coins?.length ? [...new Set(input.coins.map((c) => c.toUpperCase()))] : null;
  for (const c of coins ?? [])
    if (!catalog.some((r) => r.coin === c)) throw new DomainError("invalid_widget", `Unknown coin ${c}.`);
  const pair = input.default_pair ?? null;
  if (pair) {
    const known = (coin: string, network: string) =>
      catalog.some((r) => r.coin === coin.toUpperCase() && r.network === network.toUpperCase());
    if (!known(pair.coin_from, pair.network_from) || !known(pair.coin_to, pair.network_to))
      throw new DomainError("invalid_widget", "default_pair names a coin or network that is not listed.");
  }
  if (input.default_amount != null && !parseDecimal(input.default_amount).gt(0))
    throw new DomainError("invalid_widget", "default_amount must be a positive amount.");
  const widget: Widget = {
    id: widgetIdFrom(crypto.getRandomValues(new Uint8Array(20))),
    partner_id: partnerId,
    mode: input.mode,
    name: input.name?.trim() || "Widget",
    allowed_origins: normalizeOrigins(input.allowed_origins),
    theme: { ...DEFAULT_THEME, ...(input.theme ?? {}) },
    default_pair: pair && {
      coin_from: pair.coin_from.toUpperCase(),
      network_from: pair.network_from.toUpperCase(),
      coin_to: pair.coin_to.toUpperCase(),
      network_to: pair.network_to.toUpperCase(),
    },
    default_amount: input.default_amount ?? null,
    coins,
    locked_recipient: input.locked_recipient ? lockedRecipient(catalog, input.locked_recipient) : null,
    created_by: createdBy,
    created_at: now.toISOString(),
    revoked_at: null,
  };
  await insertWidget(db, widget);
  return widget;
}

function lockedRecipient(
  catalog: { network: string; is_memo: number; is_withdraw_enabled: number }[],
  r: { address: string; network: string; tag?: string | null | undefined },
): LockedRecipient {
  const network = r.network.toUpperCase();
  const row = catalog.find((c) => c.network === network);
  if (!row) throw new DomainError("invalid_widget", `locked_recipient: unknown network ${network}.`);
  const checked = checkDestination(
    network,
    row.is_memo === 1,
    r.address,
    r.tag ?? undefined,
    "recipient_address",
  );
  // The address as given: it is what the order records as recipient_address.
  return { address: r.address, network, tag: checked.tag };
}

export const partnerWidgets = (db: D1Database, partnerId: string) => listWidgets(db, partnerId);

export async function revokePartnerWidget(db: D1Database, partnerId: string, id: string): Promise<void> {
  if (!(await revokeWidget(db, partnerId, id, new Date().toISOString())))
    throw new DomainError("widget_not_found", "No such widget, or it is already revoked.");
}

/** Views → orders → completed per widget over the last 30 days. */
export function widgetStats(db: D1Database, partnerId: string, now = Date.now()): Promise<WidgetFunnel[]> {
  return widgetFunnels(db, partnerId, new Date(now - 30 * 86_400_000).toISOString());
}

const notFound = () => new DomainError("widget_not_found", "This widget does not exist or was revoked.");

/** A widget the public may use: known, not revoked, its partner active; else widget_not_found. */
export async function usableWidget(env: Env, id: string): Promise<{ widget: Widget; partner: Partner }> {
  const widget = await findWidget(env.DB, id);
  if (!widget || widget.revoked_at !== null) throw notFound();
  const p = await getPartner(env.DB, widget.partner_id);
  if (p?.is_active !== 1) throw notFound();
  return {
    widget,
    partner: {
      id: p.id,
      name: p.name,
      markupBps: p.markup_bps,
      rateLimitPerMinute: p.rate_limit_per_minute,
      livemode: widget.mode === "live",
    },
  };
}

const DAY_MS = 86_400_000;

/**
 * Counts a view of a widget's page (the cabinet's funnel) once per visitor (its IP, an IPv6 /64)
 * per widget per sliding day, so reloads and a script's GETs do not inflate it; run in the
 * background. The visitor's bucket lives in the rate-limit object, like the creation limits.
 */
export async function recordView(env: Env, widgetId: string, ip: string, now = new Date()): Promise<void> {
  const seen = env.RATE_LIMITER.getByName(`widget-view:${widgetId}:${ipRateLimitSubject(ip)}`);
  if (!(await seen.hitWindow(1, DAY_MS)).allowed) return;
  await countView(env.DB, widgetId, now.toISOString().slice(0, 10));
}

export interface WidgetQuoteRequest {
  coin_from: string;
  network_from: string;
  coin_to: string;
  network_to: string;
  /** The amount to send, or (`side` "to") the amount to get: a reverse quote. */
  amount: string;
  side: AmountSide;
  rate_type: RateType;
}

/** Which amount the visitor typed: what they send, or what they get. */
export type AmountSide = "from" | "to";

const amountOf = (side: AmountSide, amount: string) =>
  side === "to" ? { amountTo: parseDecimal(amount) } : { amountFrom: parseDecimal(amount) };

/** A quote as the widget shows it: priced with the partner's markup; a fixed one can be locked. */
export async function widgetQuote(
  env: Env,
  config: Config,
  u: { widget: Widget; partner: Partner },
  q: WidgetQuoteRequest,
  now = Date.now(),
) {
  for (const c of [q.coin_from, q.coin_to])
    if (!offersCoin(u.widget, c))
      throw new DomainError("pair_unavailable", `This widget does not offer ${c}.`);
  const priced = await priceQuote(
    env,
    config,
    {
      from: { coin: q.coin_from, network: q.network_from },
      to: { coin: q.coin_to, network: q.network_to },
      ...amountOf(q.side, q.amount),
      rateType: q.rate_type,
    },
    u.partner.markupBps,
    now,
    u.partner.livemode,
  );
  const { quote } = priced;
  const quoteId =
    q.rate_type === "fixed"
      ? await issueQuoteFor(env.DB, u.partner.id, priced, now + config.FIXED_QUOTE_TTL_SECONDS * 1000)
      : null;
  return {
    amount_from: toJsonNumber(quote.amountFrom),
    amount_to: toJsonNumber(quote.amountTo),
    rate: toJsonNumber(quote.rate),
    min_amount: toJsonNumber(quote.min),
    max_amount: toJsonNumber(quote.max),
    quote_id: quoteId,
    expires_in: quoteId ? config.FIXED_QUOTE_TTL_SECONDS : null,
  };
}

/** One hour, the creation limits' window. */
const HOUR_MS = 3_600_000;

/** A slow bucket's hit (src/objects/rate-limiter.ts); 429 widget_rate_limited with Retry-After. */
async function spend(env: Env, bucket: string, limit: number, what: string): Promise<void> {
  const d = await env.RATE_LIMITER.getByName(bucket).hitWindow(limit, HOUR_MS);
  if (!d.allowed)
    throw new DomainError(
      "widget_rate_limited",
      `At most ${limit} orders per hour ${what}; retry in ${d.resetSeconds} s.`,
      d.resetSeconds,
    );
}

/** The quote's fields as the visitor typed them, and the rest of the order. */
export interface WidgetOrderForm extends WidgetQuoteRequest {
  /** With `side` "to" and a fixed quote: the amount to send the quote was issued for. */
  quoted_amount_from?: string | undefined;
  recipient_address?: string | undefined;
  recipient_address_tag?: string | undefined;
  refund_address?: string | undefined;
  quote_id?: string | undefined;
  /** Rendered into the form: a double submit replays the first order instead of making two. */
  nonce: string;
  turnstile_token?: string | undefined;
}

export interface WidgetClient {
  ip: string;
  region: string;
  /** Cloudflare's country of the request (the end user's browser): region restrictions apply. */
  country: string | null;
  /** The host the form was served from: where a Turnstile token must have been solved. */
  hostname: string;
}

/**
 * An order created through a widget or referral link, for the widget's partner (its markup, its
 * mode), recorded with the widget's id. In order: Turnstile when configured, the per-IP and
 * per-widget hourly limits, then the API's own checks; a refusal creates nothing.
 */
export async function createWidgetOrder(
  env: Env,
  config: Config,
  u: { widget: Widget; partner: Partner },
  form: WidgetOrderForm,
  client: WidgetClient,
  now = Date.now(),
): Promise<OrderView> {
  const { widget, partner } = u;
  if (config.TURNSTILE_SECRET && config.TURNSTILE_SITE_KEY) {
    const ok = form.turnstile_token
      ? await verifyTurnstile(config.TURNSTILE_SECRET, form.turnstile_token, {
          ip: client.ip,
          hostname: client.hostname,
          action: TURNSTILE_ACTION,
        })
      : false;
    if (!ok) throw new DomainError("turnstile_failed", "The anti-bot check failed; please try again.");
  }
  for (const c of [form.coin_from, form.coin_to])
    if (!offersCoin(widget, c)) throw new DomainError("pair_unavailable", `This widget does not offer ${c}.`);
  const locked = widget.locked_recipient;
  if (locked && form.network_to.toUpperCase() !== locked.network)
    throw new DomainError("invalid_widget", `This widget pays out on ${locked.network} only.`);
  const recipient = locked ? locked.address : (form.recipient_address ?? "");
  if (!recipient) throw new DomainError("invalid_address", "Enter the address to receive the coins.");
  await spend(
    env,
    `widget-ip:${ipRateLimitSubject(client.ip)}`,
    config.WIDGET_ORDERS_PER_IP_PER_HOUR,
    "from one address",
  );
  await spend(env, `widget:${widget.id}`, config.WIDGET_ORDERS_PER_WIDGET_PER_HOUR, "through this widget");
  const amountFrom = await amountToSend(env, config, u, form, client.country, now);
  const { order } = await createOrder(
    env,
    config,
    partner,
    {
      coin_from: form.coin_from,
      network_from: form.network_from,
      coin_to: form.coin_to,
      network_to: form.network_to,
      amount_from: amountFrom,
      rate_type: form.rate_type,
      recipient_address: recipient,
      recipient_address_tag: locked ? (locked.tag ?? undefined) : form.recipient_address_tag,
      refund_address: form.refund_address,
      quote_id: form.quote_id,
    },
    `widget:${widget.id}:${form.nonce}`,
    now,
    { region: client.region, widgetId: widget.id, country: client.country },
  );
  return order;
}

/**
 * The order's amount to send. Typed on the "you get" side, it is the reverse quote's amount_from
 * (or, with a fixed quote, the amount that quote was issued for, which locking it checks).
 */
async function amountToSend(
  env: Env,
  config: Config,
  u: { widget: Widget; partner: Partner },
  form: WidgetOrderForm,
  country: string | null,
  now: number,
): Promise<string> {
  if (form.side === "from") return form.amount;
  if (form.quote_id && form.quoted_amount_from) return form.quoted_amount_from;
  const { quote } = await priceQuote(
    env,
    config,
    {
      from: { coin: form.coin_from, network: form.network_from },
      to: { coin: form.coin_to, network: form.network_to },
      amountTo: parseDecimal(form.amount),
      rateType: form.rate_type,
    },
    u.partner.markupBps,
    now,
    u.partner.livemode,
    country,
  );
  return toDecimalString(quote.amountFrom);
}
