// `npm run layers`: the structure drawing of src/, from the imports themselves.
//
//   node scripts/layers.mjs           rewrite the drawing in docs/architecture.md
//   node scripts/layers.mjs --check   exit 1 when an import runs back up a layer, or when the
//                                     drawing in docs/architecture.md is not the one the code makes
//
// Layers, top to bottom (DESIGN.md §7): an import may go down or stay in its layer, never up.
// Part of `npm run lint`, so CI fails on the first arrow that runs back up.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const LAYERS = [
  { id: "worker", label: "index.ts · app.ts · tail.ts (the Workers)", match: /^(index|app|tail)\.tsx?$/ },
  { id: "http", label: "http/ (routes, middleware, cabinet pages)", match: /^http\// },
  { id: "services", label: "services/ (use cases)", match: /^services\// },
  { id: "objects", label: "objects/ (Durable Objects)", match: /^objects\// },
  { id: "storage", label: "storage/ (D1 by table group)", match: /^storage\// },
  { id: "adapters", label: "adapters/ (chains, venue, payout, prices)", match: /^adapters\// },
  { id: "domain", label: "domain/ · lib/ · config.ts (pure)", match: /^(domain\/|lib\/|config\.ts$)/ },
  { id: "generated", label: "generated/ (built assets)", match: /^generated\// },
];
// The browser bundle of the cabinet: compiled separately, may import only domain code.
const CLIENT = /^client\//;

const START = "<!-- layers:start (scripts/layers.mjs writes this block) -->";
const END = "<!-- layers:end -->";
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DOC = join(ROOT, "docs", "architecture.md");
const SRC = join(ROOT, "src");

const { values: args } = parseArgs({ options: { check: { type: "boolean", default: false } } });

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

function layerOf(path) {
  const i = LAYERS.findIndex((l) => l.match.test(path));
  return i === -1 ? null : i;
}

function resolveImport(from, spec) {
  const base = resolve(dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts")]) {
    try {
      if (readFileSync(candidate) !== undefined) return relative(SRC, candidate);
    } catch {}
  }
  return null;
}

// Static imports and re-exports, type-only ones included: a type dependency is a dependency.
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s+"(\.[^"]+)"/g;

const edges = new Map(); // "from>to" → count
const upward = [];
const strays = [];
for (const file of files(SRC)) {
  const path = relative(SRC, file);
  const text = readFileSync(file, "utf8");
  for (const [, spec] of text.matchAll(IMPORT)) {
    const target = resolveImport(file, spec);
    if (target === null) continue;
    if (CLIENT.test(path)) {
      if (!CLIENT.test(target) && !/^domain\//.test(target)) strays.push(`${path} → ${target}`);
      continue;
    }
    const [a, b] = [layerOf(path), layerOf(target)];
    if (a === null || b === null) {
      strays.push(`${path} → ${target} (no layer)`);
      continue;
    }
    if (a === b) continue;
    if (b < a) upward.push(`${path} → ${target} (${LAYERS[a].id} imports ${LAYERS[b].id})`);
    const key = `${a}>${b}`;
    edges.set(key, (edges.get(key) ?? 0) + 1);
  }
}

function drawing() {
  const lines = ["```mermaid", "flowchart TD"];
  for (const l of LAYERS) lines.push(`  ${l.id}["${l.label}"]`);
  for (const [key, n] of [...edges].sort(([x], [y]) => x.localeCompare(y, "en", { numeric: true }))) {
    const [a, b] = key.split(">").map(Number);
    lines.push(`  ${LAYERS[a].id} -->|${n}| ${LAYERS[b].id}`);
  }
  lines.push("```");
  return `${START}\n${lines.join("\n")}\n${END}`;
}

const doc = readFileSync(DOC, "utf8");
const from = doc.indexOf(START);
const to = doc.indexOf(END);
if (from === -1 || to === -1) throw new Error(`${DOC} has no ${START} … ${END} block`);
const next = doc.slice(0, from) + drawing() + doc.slice(to + END.length);

let failed = false;
for (const u of upward) console.error(`upward import: ${u}`);
for (const s of strays) console.error(`import outside the layers: ${s}`);
if (upward.length || strays.length) failed = true;
if (args.check) {
  if (next !== doc) {
    console.error("docs/architecture.md: the drawing is stale; run `node scripts/layers.mjs`");
    failed = true;
  }
} else if (next !== doc) {
  writeFileSync(DOC, next);
  console.log("docs/architecture.md: drawing updated");
}
if (failed) process.exit(1);
console.log(`layers: ${[...edges.values()].reduce((s, n) => s + n, 0)} imports across layers, none upward`);
