// Puts the cryptocurrency-icons SVG set among the static assets at install time; the Worker keeps
// only each icon's content hash (for `icon_url`'s `v` and the ETag). Runs from `prepare`; see
// scripts/lib/static-assets.mjs.
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { assetGroup, contentHash, writeGeneratedModule } from "./lib/static-assets.mjs";

const require = createRequire(import.meta.url);
const pkgDir = dirname(require.resolve("cryptocurrency-icons/package.json"));
const svgDir = join(pkgDir, "svg", "color");

const icons = assetGroup("api/v1/icons");
const hashes = {};
for (const file of readdirSync(svgDir).sort()) {
  if (!file.endsWith(".svg")) continue;
  const svg = readFileSync(join(svgDir, file), "utf8");
  icons.add(file, svg);
  hashes[file] = contentHash(svg);
}
if (!hashes["generic.svg"]) throw new Error("cryptocurrency-icons has no generic.svg");

writeGeneratedModule(
  "icons",
  "build-icons.mjs from cryptocurrency-icons",
  `/** Icon file name → the first 12 hex digits of its SHA-256 (the body is a static asset). */\n` +
    `export const ICON_HASHES: Readonly<Record<string, string>> = ${JSON.stringify(hashes)};\n`,
);
console.log(`icons: ${icons.summary()}`);
