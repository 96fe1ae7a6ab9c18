import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as zod from "zod";

// The module the Worker's bundle gets for "zod" (wrangler.toml, [alias]); plain JavaScript, so
// imported by path at run time.
const SLIM = "../../src/lib/zod-without-locales/index.js";

type Namespace = Record<string, unknown>;

/** `ns`'s members without `name`. */
const without = (ns: Namespace, name: string): Namespace => {
  const { [name]: _, ...rest } = { ...ns };
  return rest;
};

describe("zod without locales (the Worker bundle's zod)", () => {
  it("exports every member zod's entry exports, the very same values, except `locales`", async () => {
    const slim: Namespace = await import(/* @vite-ignore */ SLIM);
    expect(zod).toHaveProperty("locales");
    expect(slim).not.toHaveProperty("locales");
    // A zod upgrade that adds, renames or drops a member fails here until ./classic.js follows it.
    expect(Object.keys(slim).sort()).toEqual(Object.keys(without(zod, "locales")).sort());
    // The namespaces (`core`, `z`) are this module's own; every other member is zod's.
    for (const [name, value] of Object.entries(slim)) {
      if (!["core", "z", "default"].includes(name)) expect(value, name).toBe((zod as Namespace)[name]);
    }
    expect(slim.z).toBe(slim.default);
    expect(Object.keys(slim.z as Namespace).sort()).toEqual(
      Object.keys(slim)
        .filter((k) => k !== "z" && k !== "default")
        .sort(),
    );
  });

  it("its `core` is zod's core without `locales`, the very same values", async () => {
    const slim: Namespace = await import(/* @vite-ignore */ SLIM);
    const core = slim.core as Namespace;
    expect(zod.core).toHaveProperty("locales");
    expect(core).not.toHaveProperty("locales");
    expect(Object.keys(core).sort()).toEqual(Object.keys(without(zod.core, "locales")).sort());
    for (const name of Object.keys(core)) expect(core[name], name).toBe((zod.core as Namespace)[name]);
  });

  it("still explains errors in English, and is what wrangler.toml bundles for zod", async () => {
    const { z } = (await import(/* @vite-ignore */ SLIM)) as { z: typeof zod.z };
    const result = z.object({ amount: z.string() }).safeParse({ amount: 1 });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe("Invalid input: expected string, received number");
    const toml = readFileSync(new URL("../../wrangler.toml", import.meta.url).pathname, "utf8");
    expect(toml).toMatch(/^\[alias\]\nzod = "\.\/src\/lib\/zod-without-locales\/index\.js"$/m);
  });
});
