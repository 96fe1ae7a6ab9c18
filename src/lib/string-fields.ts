import { z } from "zod";

/** An object's fields, checked as `schema.safeParse` would; null when it would fail or differ. */
export type StringFieldsCheck = (input: Record<string, unknown>) => Record<string, string> | null;

interface Field {
  name: string;
  optional: boolean;
  min: number;
  max: number;
}

const LENGTH_CHECKS = new Set(["min_length", "max_length"]);

/**
 * A precompiled check for a zod object whose every field is a string bounded only by its length
 * (`z.string().min(a).max(b)`, optionally `.optional()`), unknown keys stripped: what a route's path
 * parameters and key headers are. Null for any other schema. The check answers exactly what the
 * schema's successful parse answers, without running zod's parse machinery; for input it does not
 * accept it answers null, and the caller parses with the schema, which then says what is wrong.
 */
export function stringFieldsCheck(schema: unknown): StringFieldsCheck | null {
  if (!(schema instanceof z.ZodObject) || schema._zod.def.catchall !== undefined) return null;
  const fields: Field[] = [];
  for (const [name, field] of Object.entries(schema.shape as Record<string, unknown>)) {
    const optional = field instanceof z.ZodOptional;
    const inner: unknown = optional ? field.unwrap() : field;
    if (!(inner instanceof z.ZodString)) return null;
    if (!(inner._zod.def.checks ?? []).every((c) => LENGTH_CHECKS.has(c._zod.def.check))) return null;
    fields.push({
      name,
      optional,
      min: inner.minLength ?? 0,
      max: inner.maxLength ?? Number.POSITIVE_INFINITY,
    });
  }
  return (input) => {
    const out: Record<string, string> = {};
    for (const f of fields) {
      const v = input[f.name];
      if (v === undefined && f.optional && !(f.name in input)) continue;
      if (typeof v !== "string" || v.length < f.min || v.length > f.max) return null;
      out[f.name] = v;
    }
    return out;
  };
}
