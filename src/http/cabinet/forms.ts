import type { Context } from "hono";

/** A posted form's text fields (file fields are ignored: the cabinet has none). */
export async function form(c: Context): Promise<Record<string, string>> {
  const body = await c.req.parseBody();
  return Object.fromEntries(
    Object.entries(body).flatMap(([k, v]) => (typeof v === "string" ? [[k, v]] : [])),
  );
}

/** Every value of a repeated field (checkboxes of one name). */
export async function formValues(c: Context, name: string): Promise<string[]> {
  const value = (await c.req.parseBody({ all: true }))[name];
  return (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter(
    (v): v is string => typeof v === "string",
  );
}
