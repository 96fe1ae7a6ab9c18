// stringFieldsCheck: for the schemas it takes, it answers what the schema's own parse answers on
// success and null wherever the parse fails; every other schema is left to zod (null).
import { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { stringFieldsCheck } from "../../src/lib/string-fields";

const inputs: Record<string, unknown>[] = [
  {},
  { id: "" },
  { id: "a" },
  { id: "abcd" },
  { id: "abcde" },
  { id: "é".repeat(4) },
  { id: 12 },
  { id: ["a"] },
  { id: undefined },
  { id: "ab", sig: "" },
  { id: "ab", sig: "x".repeat(8) },
  { id: "ab", sig: "x".repeat(9) },
  { id: "ab", sig: null },
  { id: "ab", extra: "dropped" },
  { sig: "x" },
];

describe("stringFieldsCheck", () => {
  it("answers what safeParse answers for length-bounded string fields, optional ones included", () => {
    const schemas = [
      z.object({ id: z.string().min(1).max(4).openapi({ description: "an id" }) }),
      z.object({ id: z.string().min(1).max(4), sig: z.string().max(8).optional() }),
      z.object({ id: z.string() }),
      z.object({ sig: z.string().min(1).optional() }),
    ];
    for (const schema of schemas) {
      const check = stringFieldsCheck(schema);
      expect(check).not.toBeNull();
      for (const input of inputs) {
        const parsed = schema.safeParse(input);
        expect(check?.(input), JSON.stringify(input)).toEqual(parsed.success ? parsed.data : null);
      }
    }
  });

  it("takes no schema with anything but length bounds on plain strings", () => {
    for (const schema of [
      z.object({ id: z.string().regex(/^a/) }),
      z.object({ id: z.string().trim() }),
      z.object({ id: z.string().uuid() }),
      z.object({ id: z.string().nullable() }),
      z.object({ id: z.string().default("x") }),
      z.object({ n: z.coerce.number() }),
      z.object({ id: z.string() }).strict(),
      z.object({ id: z.string() }).passthrough(),
      z.string(),
    ])
      expect(stringFieldsCheck(schema)).toBeNull();
  });
});
