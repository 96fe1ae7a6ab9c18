// Widgets, their daily views, and the 30-day funnel (migration 0030; docs/widget.md).
import type { LockedRecipient, Widget, WidgetMode, WidgetPair, WidgetTheme } from "../domain/widget";

interface WidgetRow {
  id: string;
  partner_id: string;
  mode: WidgetMode;
  name: string;
  allowed_origins: string;
  theme: string;
  default_pair: string | null;
  default_amount: string | null;
  coins: string | null;
  locked_recipient: string | null;
  created_by: string;
  created_at: string;
  revoked_at: string | null;
}

const parsed = <T>(s: string | null): T | null => (s === null ? null : (JSON.parse(s) as T));

function fromRow(r: WidgetRow): Widget {
  return {
    ...r,
    allowed_origins: JSON.parse(r.allowed_origins) as string[],
    theme: JSON.parse(r.theme) as WidgetTheme,
    default_pair: parsed<WidgetPair>(r.default_pair),
    coins: parsed<string[]>(r.coins),
    locked_recipient: parsed<LockedRecipient>(r.locked_recipient),
  };
}

const json = (v: unknown) => (v === null ? null : JSON.stringify(v));

export async function insertWidget(db: D1Database, w: Widget): Promise<void> {
  await db
    .prepare(
      `INSERT INTO widgets (id, partner_id, mode, name, allowed_origins, theme, default_pair, default_amount,
         coins, locked_recipient, created_by, created_at, revoked_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)`,
    )
    .bind(
      w.id,
      w.partner_id,
      w.mode,
      w.name,
      JSON.stringify(w.allowed_origins),
      JSON.stringify(w.theme),
      json(w.default_pair),
      w.default_amount,
      json(w.coins),
      json(w.locked_recipient),
      w.created_by,
      w.created_at,
    )
    .run();
}

/**
 * A widget by id, revoked ones included (the caller decides). Remembered per isolate for a few
 * seconds: every widget page view and order reads it, and a revocation reaches all isolates
 * within WIDGET_CACHE_MS.
 */
export async function findWidget(db: D1Database, id: string, now = Date.now()): Promise<Widget | null> {
  const hit = cache.get(id);
  if (hit && hit.until > now) return hit.widget;
  const row = await db.prepare("SELECT * FROM widgets WHERE id = ?").bind(id).first<WidgetRow>();
  const widget = row ? fromRow(row) : null;
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(id, { widget, until: now + WIDGET_CACHE_MS });
  return widget;
}

export const WIDGET_CACHE_MS = 10_000;
const CACHE_MAX = 10_000;
const cache = new Map<string, { widget: Widget | null; until: number }>();

export async function listWidgets(db: D1Database, partnerId: string): Promise<Widget[]> {
  const { results } = await db
    .prepare("SELECT * FROM widgets WHERE partner_id = ? ORDER BY created_at DESC, id")
    .bind(partnerId)
    .all<WidgetRow>();
  return results.map(fromRow);
}

/** Revokes a partner's widget; false when it has no such live widget. */
export async function revokeWidget(
  db: D1Database,
  partnerId: string,
  id: string,
  at: string,
): Promise<boolean> {
  const res = await db
    .prepare("UPDATE widgets SET revoked_at = ? WHERE id = ? AND partner_id = ? AND revoked_at IS NULL")
    .bind(at, id, partnerId)
    .run();
  cache.delete(id);
  return (res.meta.changes ?? 0) > 0;
}

export async function countView(db: D1Database, widgetId: string, day: string): Promise<void> {
  await db
    .prepare(
      "INSERT INTO widget_views (widget_id, day, views) VALUES (?, ?, 1) ON CONFLICT (widget_id, day) DO UPDATE SET views = views + 1",
    )
    .bind(widgetId, day)
    .run();
}

export interface WidgetFunnel {
  widget_id: string;
  views: number;
  orders: number;
  completed: number;
}

/** Views → orders → completed per widget of a partner since `since` (ISO time; its day for views). */
export async function widgetFunnels(
  db: D1Database,
  partnerId: string,
  since: string,
): Promise<WidgetFunnel[]> {
  const { results } = await db
    .prepare(
      `SELECT w.id AS widget_id,
         COALESCE((SELECT SUM(views) FROM widget_views v WHERE v.widget_id = w.id AND v.day >= ?2), 0) AS views,
         (SELECT COUNT(*) FROM orders o WHERE o.widget_id = w.id AND o.created_at >= ?3) AS orders,
         (SELECT COUNT(*) FROM orders o WHERE o.widget_id = w.id AND o.created_at >= ?3 AND o.status = 'completed') AS completed
       FROM widgets w WHERE w.partner_id = ?1`,
    )
    .bind(partnerId, since.slice(0, 10), since)
    .all<WidgetFunnel>();
  return results;
}
