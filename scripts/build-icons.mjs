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

/**
 * Coins whose ticker changed after the package's last release: the icon under the new ticker is
 * the old one's (Polygon's MATIC became POL, ethereum-lists/chains eip155-137.json).
 */
const RENAMED = { "pol.svg": "matic.svg" };

const icons = assetGroup("api/v1/icons");
const hashes = {};
const add = (file, svg) => {
  icons.add(file, svg);
  hashes[file] = contentHash(svg);
};
for (const file of readdirSync(svgDir).sort()) {
  if (file.endsWith(".svg")) add(file, readFileSync(join(svgDir, file), "utf8"));
}
for (const [file, from] of Object.entries(RENAMED)) {
  if (hashes[file]) throw new Error(`cryptocurrency-icons now has ${file}: drop it from RENAMED`);
  add(file, readFileSync(join(svgDir, from), "utf8"));
}
/**
 * Coins the package never drew, drawn here after the coin's own brand mark: TON's blue disc and
 * white diamond (ton.org/brand-assets).
 */
const ownDir = join(dirname(new URL(import.meta.url).pathname), "icons");
for (const file of readdirSync(ownDir).sort()) {
  if (hashes[file]) throw new Error(`cryptocurrency-icons now has ${file}: drop scripts/icons/${file}`);
  add(file, readFileSync(join(ownDir, file), "utf8"));
}
if (!hashes["generic.svg"]) throw new Error("cryptocurrency-icons has no generic.svg");

writeGeneratedModule(
  "icons",
  "build-icons.mjs from cryptocurrency-icons",
  `/** Icon file name → the first 12 hex digits of its SHA-256 (the body is a static asset). */\n` +
    `export const ICON_HASHES: Readonly<Record<string, string>> = ${JSON.stringify(hashes)};\n`,
);
console.log(`icons: ${icons.summary()}`);
