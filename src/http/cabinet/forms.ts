import type { Context } from "hono";

/** A posted form's text fields (file fields are ignored: the cabinet has none). */
export async function form(c: Context): Promise<Record<string, string>> {
  const body = await c.req.parseBody();
  return Object.fromEntries(
    Object.entries(body).flatMap(([k, v]) => (typeof v === "string" ? [[k, v]] : [])),
  );
}
