// Builds the cabinet's browser scripts and stylesheet into static assets served under
// /cabinet/assets/, named by content hash so they can be cached forever: src/client/cabinet.ts
// (with @simplewebauthn/browser) on every page, src/client/charts.ts (with uPlot) only on pages
// that draw a chart, so a chart can never break sign-in. No CDN: the cabinet's CSP allows 'self'
// only. Runs from `prepare`; see scripts/lib/static-assets.mjs.
//
// The end user's pages (tracking page, widget, referral page; docs/widget.md) are built the same
// way under /swap-assets/: one script and one stylesheet for all of them, and the embed loader,
// which the Worker serves as /widget.js (a fixed name: partners paste it).
import { readFileSync } from "node:fs";
import { build } from "esbuild";
import { assetGroup, contentHash, writeGeneratedModule } from "./lib/static-assets.mjs";

const root = new URL("..", import.meta.url);
const bundle = async (entry) => {
  const result = await build({
    entryPoints: [new URL(entry, root).pathname],
    bundle: true,
    minify: true,
    format: "iife",
    target: "es2022",
    write: false,
    legalComments: "none",
  });
  return result.outputFiles[0].text;
};
const js = await bundle("src/client/cabinet.ts");
const charts = await bundle("src/client/charts.ts");
// uPlot's own stylesheet first, so the cabinet's rules can adjust it.
const css =
  readFileSync(new URL("node_modules/uplot/dist/uPlot.min.css", root), "utf8") +
  readFileSync(new URL("src/client/cabinet.css", root), "utf8");

const assets = assetGroup("cabinet/assets");
const names = {
  CABINET_SCRIPT: assets.add("cabinet.js", js, { hashed: true }),
  CABINET_CHARTS_SCRIPT: assets.add("charts.js", charts, { hashed: true }),
  CABINET_STYLE: assets.add("cabinet.css", css, { hashed: true }),
};
writeGeneratedModule(
  "cabinet-assets",
  "build-cabinet-assets.mjs from src/client",
  Object.entries(names)
    .map(([name, file]) => `export const ${name} = ${JSON.stringify(file)};\n`)
    .join(""),
);
console.log(`cabinet assets: ${Object.values(names).join(", ")}, ${assets.summary()}`);

const swap = assetGroup("swap-assets");
const loader = await bundle("src/client/widget-embed.ts");
const swapNames = {
  SWAP_SCRIPT: swap.add("swap.js", await bundle("src/client/track.ts"), { hashed: true }),
  SWAP_STYLE: swap.add("swap.css", readFileSync(new URL("src/client/swap.css", root), "utf8"), {
    hashed: true,
  }),
  WIDGET_LOADER_FILE: swap.add("widget.js", loader),
  WIDGET_LOADER_ETAG: `"${contentHash(loader)}"`,
};
writeGeneratedModule(
  "swap-assets",
  "build-cabinet-assets.mjs from src/client",
  Object.entries(swapNames)
    .map(([name, value]) => `export const ${name} = ${JSON.stringify(value)};\n`)
    .join(""),
);
console.log(`swap assets: ${Object.values(swapNames).slice(0, 3).join(", ")}, ${swap.summary()}`);
