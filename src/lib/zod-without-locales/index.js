/**
 * What the Worker's bundle gets for `import … from "zod"` (wrangler.toml, [alias]): zod's own
 * entry (node_modules/zod/index.js) without the `locales` namespaces, its error messages in 50
 * languages. @hono/zod-openapi hands the whole `z` namespace to zod-to-openapi as a value, so the
 * bundler keeps every member of it, and `z.locales` and `z.core.locales` were ≈ 360 KiB of the
 * script (≈ 42 KiB gzipped) that nothing reads: errors are written in English, from the locale
 * zod's schemas set themselves. Everything else is zod's own modules, unchanged; the type checker,
 * the tests and the cabinet's browser bundle use zod as published.
 */
import * as z from "./classic.js";

export * from "./classic.js";
export { z, z as default };
