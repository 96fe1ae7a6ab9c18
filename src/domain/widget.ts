// Widgets and referral links (docs/widget.md): what a widget is, the origins that may frame it,
// and the hourly creation limits' arithmetic. Pure: no I/O.
import { DomainError } from "./errors";

export type WidgetMode = "live" | "test";
export type ColorScheme = "light" | "dark" | "auto";

export interface WidgetTheme {
  /** `#rrggbb`. */
  accent: string;
  scheme: ColorScheme;
}

export interface WidgetPair {
  coin_from: string;
  network_from: string;
  coin_to: string;
  network_to: string;
}

/** Where every order of the widget pays out: the user cannot change it (a wallet's "top up"). */
export interface LockedRecipient {
  address: string;
  network: string;
  tag: string | null;
}

export interface Widget {
  id: string;
  partner_id: string;
  mode: WidgetMode;
  name: string;
  allowed_origins: string[];
  theme: WidgetTheme;
  default_pair: WidgetPair | null;
  default_amount: string | null;
  coins: string[] | null;
  locked_recipient: LockedRecipient | null;
  created_by: string;
  created_at: string;
  revoked_at: string | null;
}

export const WIDGET_ID_RE = /^wid_[A-Za-z0-9]{20}$/;
export const MAX_ALLOWED_ORIGINS = 20;
export const DEFAULT_THEME: WidgetTheme = { accent: "#1f4fd1", scheme: "auto" };

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A new publishable widget id from 20 random bytes (about 119 bits). */
export function widgetIdFrom(random: Uint8Array): string {
  let id = "wid_";
  for (let i = 0; i < 20; i++) id += BASE62[(random[i] ?? 0) % 62];
  return id;
}

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * An allowed origin as the browser reports it (`https://shop.example`, lower-case, default port
 * dropped): https only, except plain http on this machine for development. No paths, no
 * wildcards: the same string is the frame-ancestors source and the postMessage target.
 */
export function normalizeOrigin(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new DomainError("invalid_origin", `Not an origin: ${JSON.stringify(raw)}.`);
  }
  const local = LOCAL_HOSTS.has(url.hostname);
  const pathless = (url.pathname === "/" || url.pathname === "") && !url.search && !url.hash;
  if (!pathless || url.username || url.password || raw.includes("*"))
    throw new DomainError(
      "invalid_origin",
      `An allowed origin is a scheme and host only, such as https://shop.example: ${JSON.stringify(raw)}.`,
    );
  if (url.protocol !== "https:" && !(url.protocol === "http:" && local))
    throw new DomainError("invalid_origin", `Allowed origins use https (http only for localhost): ${raw}.`);
  return url.origin;
}

export function normalizeOrigins(raw: readonly string[]): string[] {
  if (raw.length > MAX_ALLOWED_ORIGINS)
    throw new DomainError("invalid_origin", `At most ${MAX_ALLOWED_ORIGINS} allowed origins.`);
  return [...new Set(raw.map(normalizeOrigin))];
}

/**
 * The origin the embedding page claims (widget.js passes its `location.origin`), when the widget
 * allows it; null otherwise. The browser enforces framing itself (frame-ancestors); this only
 * decides where the frame sends its height.
 */
export function parentOriginOf(
  w: Pick<Widget, "allowed_origins">,
  claimed: string | undefined,
): string | null {
  if (!claimed) return null;
  try {
    const origin = normalizeOrigin(claimed);
    return w.allowed_origins.includes(origin) ? origin : null;
  } catch {
    return null;
  }
}

/** Whether the widget offers a coin (no allowlist: every coin). */
export const offersCoin = (w: Pick<Widget, "coins">, coin: string): boolean =>
  w.coins === null || w.coins.includes(coin.toUpperCase());

/** Where an order came from, as the API, webhooks, the cabinet and the CSV show it. */
export type OrderSource = "api" | "widget";
