// Builds dist/ for both module systems from src/, with the tools this package declares
// (devDependencies: esbuild, typescript), so `npm pack` works in this folder alone:
//   dist/esm/  index.js (ESM) + declarations, typed as ESM by the package's "type": "module"
//   dist/cjs/  index.js (CommonJS) + the same declarations, typed as CommonJS by dist/cjs/package.json
// One bundle per format, openapi-fetch inside it: its default export reaches a CommonJS bundle
// as the module object (Node's interop), not the function, when left external. It stays a
// dependency for the declarations (the `raw` client's type).
import { execFileSync } from "node:child_process";
import { copyFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { build } from "esbuild";

const SDK = new URL("..", import.meta.url).pathname;
const DIST = join(SDK, "dist");
const require = createRequire(import.meta.url);

rmSync(DIST, { recursive: true, force: true });
for (const format of ["esm", "cjs"]) {
  await build({
    entryPoints: [join(SDK, "src/index.ts")],
    bundle: true,
    platform: "neutral",
    target: "es2022",
    format,
    outfile: join(DIST, format, "index.js"),
    logLevel: "error",
  });
}
execFileSync(
  process.execPath,
  [
    require.resolve("typescript/bin/tsc"),
    "-p",
    join(SDK, "tsconfig.build.json"),
    "--outDir",
    join(DIST, "esm"),
  ],
  { stdio: "inherit" },
);
copyFileSync(join(SDK, "src/schema.d.ts"), join(DIST, "esm/schema.d.ts"));
for (const file of readdirSync(join(DIST, "esm")).filter((f) => f.endsWith(".d.ts")))
  copyFileSync(join(DIST, "esm", file), join(DIST, "cjs", file));
writeFileSync(join(DIST, "cjs/package.json"), `${JSON.stringify({ type: "commonjs" })}\n`);
