// Puts Redoc's standalone build (from npm) among the static assets at install time, so /docs
// renders the OpenAPI document with a script this Worker's origin serves itself: no CDN, CSP
// 'self'. Runs from `prepare`; see scripts/lib/static-assets.mjs.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { assetGroup, contentHash, writeGeneratedModule } from "./lib/static-assets.mjs";

const require = createRequire(import.meta.url);
const pkgDir = dirname(require.resolve("redoc/package.json"));
const { version } = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
// The source-map comment would make browsers ask for a file this Worker does not serve.
const js = readFileSync(join(pkgDir, "bundles", "redoc.standalone.js"), "utf8").replace(
  /\n\/\/# sourceMappingURL=\S+\s*$/,
  "\n",
);
const hash = contentHash(js);
const docs = assetGroup("docs");
docs.add(`redoc-${hash}.js`, js);
writeGeneratedModule(
  "redoc",
  "build-redoc.mjs",
  `export const REDOC = { version: ${JSON.stringify(version)}, hash: ${JSON.stringify(hash)} };\n`,
);
console.log(`redoc: ${version} standalone, ${docs.summary()}`);
